#include "runner.hpp"

#include "record.hpp"

#include <gpuarch/core/error.hpp>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <thread>

namespace gpuarch::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t stop_requested = 0;

extern "C" void request_stop(int) { stop_requested = 1; }

// Installs the stop handler for the lifetime of one run_tasks call and restores what was there before.
class StopSignals {
public:
    StopSignals() {
        stop_requested = 0;
        struct sigaction action {};
        action.sa_handler = request_stop;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0;
        for (std::size_t i = 0; i < std::size(signals_); ++i) sigaction(signals_[i], &action, &old_[i]);
        // An inherited SIGCHLD = SIG_IGN would reap the workers behind our back (waitpid fails with ECHILD).
        struct sigaction child {};
        child.sa_handler = SIG_DFL;
        sigemptyset(&child.sa_mask);
        sigaction(SIGCHLD, &child, &old_child_);
    }
    ~StopSignals() {
        for (std::size_t i = 0; i < std::size(signals_); ++i) sigaction(signals_[i], &old_[i], nullptr);
        sigaction(SIGCHLD, &old_child_, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

private:
    static constexpr int signals_[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction old_[std::size(signals_)]{};
    struct sigaction old_child_ {};
};

bool is_stop_signal(int sig) { return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT; }

// fork + exec with stdout and stderr on `log` and stdin on /dev/null. Everything the child touches is prepared
// before fork, so the child only calls async-signal-safe functions.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log) {
    if (argv.empty()) throw Error("sweep: empty worker command");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) throw Error("sweep: cannot open " + log.string() + ": " + std::strerror(errno));
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        ::close(log_fd);
        if (null_fd >= 0) ::close(null_fd);
        throw Error(std::string("sweep: fork failed: ") + std::strerror(err));
    }
    if (pid == 0) {
        ::dup2(log_fd, STDOUT_FILENO);
        ::dup2(log_fd, STDERR_FILENO);
        if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
        ::execvp(args[0], args.data());
        const char* what = "sweep: cannot execute the worker: ";
        [[maybe_unused]] auto n = ::write(STDERR_FILENO, what, std::strlen(what));
        const char* why = std::strerror(errno);
        n = ::write(STDERR_FILENO, why, std::strlen(why));
        n = ::write(STDERR_FILENO, "\n", 1);
        ::_exit(127);
    }
    ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    return pid;
}

class Progress {
public:
    Progress(std::ostream& os, bool enabled, bool tty, std::size_t total)
        : os_(os), enabled_(enabled && total > 0), tty_(tty), total_(total), start_(Clock::now()), last_line_(start_) {}

    void finished_one(bool ok) {
        ++done_;
        if (!ok) ++failed_;
    }

    void draw(std::size_t running, bool final = false) {
        if (!enabled_) return;
        const auto now = Clock::now();
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        if (tty_) {
            // Redraw at most ten times a second.
            if (!final && now - last_line_ < std::chrono::milliseconds(100)) return;
        } else if (!final) {
            return; // a log gets the start line (run_tasks) and the end line only
        }
        last_line_ = now;
        constexpr std::size_t width = 24;
        const std::size_t filled = width * done_ / total_;
        std::string bar(filled, '#');
        bar.resize(width, '.');
        char line[256];
        std::snprintf(line, sizeof line, "[%s] %zu/%zu %3zu%% | %zu running | %zu failed | %s elapsed | ETA %s",
                      bar.c_str(), done_, total_, 100 * done_ / total_, running, failed_,
                      format_duration(elapsed).c_str(),
                      format_duration(estimate_remaining(elapsed, done_, total_)).c_str());
        if (tty_) os_ << '\r' << line << "\x1b[K" << (final ? "\n" : "") << std::flush;
        else os_ << line << '\n' << std::flush;
    }

private:
    std::ostream& os_;
    bool enabled_, tty_;
    std::size_t total_, done_ = 0, failed_ = 0;
    Clock::time_point start_, last_line_;
};

struct Running {
    const Task* task;
    pid_t pid;
    Clock::time_point start;
    bool timed_out = false;
};

std::string describe_exit(int status) {
    if (WIFEXITED(status)) return "the worker process exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return "the worker process was killed by signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
    }
    return "the worker process ended with wait status " + std::to_string(status);
}

} // namespace

std::vector<Task> make_tasks(const std::vector<Point>& points) {
    std::vector<Task> tasks;
    tasks.reserve(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) tasks.push_back(Task{i, points[i], point_id(points[i])});
    return tasks;
}

WorkerCommand self_worker(const fs::path& exe, const fs::path& out) {
    return [exe, out](const Task& task) {
        return std::vector<std::string>{exe.string(), "point",   "--out",
                                        out.string(), "--point", canonical_json(task.point)};
    };
}

fs::path self_exe() { return fs::read_symlink("/proc/self/exe"); }

unsigned available_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<unsigned>(CPU_COUNT(&set));
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}

RunSummary run_tasks(const std::vector<Task>& tasks, const RunOptions& options, const WorkerCommand& worker,
                     std::ostream& stream) {
    RunSummary summary;
    summary.total = tasks.size();
    fs::create_directories(options.out / "results");
    fs::create_directories(options.out / "logs");

    std::vector<const Task*> todo;
    for (const Task& t : tasks) {
        const auto record = read_record(options.out, t.id);
        if (record && (!options.retry_failed || (*record)["status"] == "ok")) {
            ++summary.skipped;
            continue;
        }
        todo.push_back(&t);
    }
    const unsigned jobs = options.jobs == 0 ? 1 : options.jobs;
    if (options.progress)
        stream << "sweep: " << tasks.size() << " points, " << summary.skipped << " already done, running "
               << todo.size() << " with " << std::min<std::size_t>(jobs, todo.size()) << " worker process"
               << (std::min<std::size_t>(jobs, todo.size()) == 1 ? "" : "es") << " (results in " << options.out.string()
               << ")\n";

    const bool tty = &stream == &std::cerr && ::isatty(STDERR_FILENO);
    Progress progress(stream, options.progress, tty, todo.size());
    StopSignals signals;
    std::vector<Running> running;
    std::size_t next = 0;
    bool stop_sent = false;

    auto settle = [&](const Running& r, int status) {
        const Task& t = *r.task;
        const fs::path log = log_path(options.out, t.id);
        // A record is this run's (a stale one was removed at spawn), even if it was written just before a kill.
        if (auto rec = read_record(options.out, t.id)) {
            const bool ok = (*rec)["status"] == "ok";
            ++(ok ? summary.ok : summary.failed);
            progress.finished_one(ok);
            return;
        }
        if (r.timed_out) {
            char limit[64];
            std::snprintf(limit, sizeof limit, "%g", options.timeout_s);
            Record rec = make_error_record(
                t.point, "timeout", std::string("ran past the per-point limit of ") + limit + " s and was killed");
            rec["log_tail"] = tail_of(log, 20);
            write_record(options.out, t.id, rec);
            ++summary.failed;
            progress.finished_one(false);
            return;
        }
        if (WIFSIGNALED(status) && is_stop_signal(WTERMSIG(status))) {
            ++summary.unfinished; // interrupted from outside: run again on resume
            return;
        }
        Record rec = make_error_record(t.point, "crashed", describe_exit(status) + " before writing a record");
        rec["log_tail"] = tail_of(log, 20);
        write_record(options.out, t.id, rec);
        ++summary.failed;
        progress.finished_one(false);
    };

    // On an error of the pool itself (fork, a log file that cannot be opened), no worker is left behind.
    struct Reaper {
        std::vector<Running>& running;
        ~Reaper() {
            for (const auto& r : running) {
                ::kill(r.pid, SIGKILL);
                int status = 0;
                while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {}
            }
        }
    } reaper{running};
    while ((next < todo.size() && !stop_requested) || !running.empty()) {
        while (!stop_requested && running.size() < jobs && next < todo.size()) {
            const Task& t = *todo[next++];
            // A stale non-ok record is removed first, so a record found after the worker ends is this run's.
            std::error_code ignored;
            fs::remove(result_path(options.out, t.id), ignored);
            running.push_back(Running{&t, spawn(worker(t), log_path(options.out, t.id)), Clock::now()});
        }
        progress.draw(running.size());
        bool reaped = false;
        for (auto it = running.begin(); it != running.end();) {
            int status = 0;
            const pid_t r = ::waitpid(it->pid, &status, WNOHANG);
            if (r == 0 || (r < 0 && errno == EINTR)) {
                if (options.timeout_s > 0 && !it->timed_out &&
                    std::chrono::duration<double>(Clock::now() - it->start).count() > options.timeout_s) {
                    ::kill(it->pid, SIGKILL);
                    it->timed_out = true;
                }
                ++it;
                continue;
            }
            if (r < 0) throw Error(std::string("sweep: waitpid failed: ") + std::strerror(errno));
            const Running ended = *it;
            it = running.erase(it); // before settle: the Reaper must never signal a reaped (reusable) pid
            reaped = true;
            settle(ended, status);
        }
        if (stop_requested && !stop_sent) {
            for (const auto& r : running) ::kill(r.pid, SIGTERM);
            stop_sent = true;
        }
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    progress.draw(0, true);
    summary.unfinished += todo.size() - next;
    summary.interrupted = stop_requested != 0;
    return summary;
}

} // namespace gpuarch::sweep
