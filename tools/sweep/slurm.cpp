#include "slurm.hpp"

#include "record.hpp"

#include <gpuarch/core/error.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gpuarch::sweep {

namespace fs = std::filesystem;

std::string array_ranges(const std::vector<std::size_t>& tasks) {
    std::string out;
    for (std::size_t i = 0; i < tasks.size();) {
        std::size_t j = i;
        while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + std::to_string(tasks[i]);
        if (j > i) out += "-" + std::to_string(tasks[j]);
        i = j + 1;
    }
    return out;
}

std::vector<std::size_t> unfinished_chunks(const std::vector<std::string>& ids, std::size_t chunk,
                                           const fs::path& out) {
    if (chunk == 0) throw Error("sweep: a chunk holds at least one point");
    std::vector<std::size_t> tasks;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::size_t task = i / chunk;
        if (!tasks.empty() && tasks.back() == task) continue;
        if (!read_record(out, ids[i])) tasks.push_back(task);
    }
    return tasks;
}

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::string sbatch_text(const SbatchScript& s) {
    // #SBATCH lines are not parsed by a shell: a path there must be free of blanks, quotes and '%' (sbatch's
    // filename patterns).
    const std::string out = s.out.string();
    if (out.find_first_of(" \t\n\r\"'%\\$`") != std::string::npos)
        throw Error("sweep: the output directory '" + out +
                    "' must not contain blanks, quotes, '%', '$' or '\\' "
                    "(it goes into an #SBATCH line)");
    std::string name;
    for (const char c : s.job_name)
        name += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    std::ostringstream os;
    os << "#!/bin/bash\n"
       << "# Written by `sweep slurm`: array task T runs points [T*" << s.chunk << ", (T+1)*" << s.chunk
       << ") of the spec below.\n"
       << "#SBATCH --job-name=sweep-" << name << '\n'
       << "#SBATCH --array=" << s.array << '\n'
       << "#SBATCH --ntasks=1\n"
       << "#SBATCH --cpus-per-task=" << s.resources.cpus << '\n'
       << "#SBATCH --mem=" << s.resources.mem << '\n'
       << "#SBATCH --time=" << s.resources.time << '\n';
    if (!s.resources.partition.empty()) os << "#SBATCH --partition=" << s.resources.partition << '\n';
    os << "#SBATCH --output=" << out << "/slurm/%A_%a.out\n"
       << "set -euo pipefail\n"
       << "exec " << shell_quote(s.exe.string()) << " point-chunk " << shell_quote(s.spec.string())
       << " --index \"$SLURM_ARRAY_TASK_ID\" --chunk " << s.chunk << " --out " << shell_quote(out)
       << " --jobs \"${SLURM_CPUS_PER_TASK:-" << s.resources.cpus << "}\"\n";
    return os.str();
}

CommandResult run_command(const std::vector<std::string>& argv) {
    if (argv.empty()) throw Error("sweep: empty command");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error(std::string("sweep: pipe failed: ") + std::strerror(errno));
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(std::string("sweep: fork failed: ") + std::strerror(errno));
    if (pid == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
        ::execvp(args[0], args.data());
        const char* what = "sweep: cannot execute ";
        [[maybe_unused]] auto n = ::write(STDERR_FILENO, what, std::strlen(what));
        n = ::write(STDERR_FILENO, args[0], std::strlen(args[0]));
        n = ::write(STDERR_FILENO, "\n", 1);
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    if (null_fd >= 0) ::close(null_fd);
    CommandResult result;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
        if (n > 0) result.output.append(buffer, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

fs::path freeze_spec(const fs::path& spec, const fs::path& out) {
    std::ifstream in(spec, std::ios::binary);
    if (!in) throw Error("cannot read the sweep spec '" + spec.string() + "'");
    std::stringstream text;
    text << in.rdbuf();
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a64(text.str())));
    fs::create_directories(out);
    const fs::path frozen = fs::absolute(out / ("spec-" + std::string(hash) + ".json"));
    if (!fs::exists(frozen)) {
        const fs::path temp = out / (".spec.tmp." + std::to_string(::getpid()));
        {
            std::ofstream os(temp, std::ios::binary | std::ios::trunc);
            os << text.str();
            if (!os) throw Error("cannot write " + temp.string());
        }
        fs::rename(temp, frozen);
    }
    return frozen;
}

} // namespace gpuarch::sweep
