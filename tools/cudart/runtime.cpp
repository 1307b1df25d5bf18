#include "runtime.hpp"

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/func/kernel_error.hpp>
#include <gpuarch/ptx/parse_error.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuarch::cudart {

namespace {

std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ULL;
    return h;
}

std::string hex(std::uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
    return b;
}

// Stops the program: used where CUDA would have no error code to return, or where continuing could only produce a
// wrong answer (settings that do not parse, PTX gpuarch cannot run).
[[noreturn]] void fatal(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "gpuarch: %s\n", message.c_str());
    std::exit(1);
}

support::Settings load_settings() {
    support::Settings s;
    try {
        if (const char* file = std::getenv("GPUARCH_CONFIG"); file != nullptr && *file != '\0') s.load_file(file);
        if (const char* list = std::getenv("GPUARCH_SETTINGS"); list != nullptr) s.load_list(list, "GPUARCH_SETTINGS");
        support::check_variant(s);
    } catch (const std::exception& e) {
        fatal(e.what());
    }
    return s;
}

// The program's own command line (/proc/self/cmdline: the runtime is loaded into it and has no argv of its own).
std::vector<std::string> command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::vector<std::string> words;
    std::string word;
    while (std::getline(in, word, '\0')) words.push_back(word);
    return words;
}

// The timeline's run directory: `timeline.dir`, else PROGRAM.MACHINE.SCHEDULER.timeline in the working directory,
// so that runs of one program under two schedulers land side by side for gpuarch-report.
std::filesystem::path timeline_dir(const support::Settings& settings, const TimelineMeta& meta) {
    if (!settings.get("timeline.dir").empty()) return settings.get("timeline.dir");
    const std::string program = meta.program.empty() ? "program" : meta.program;
    return std::filesystem::current_path() / (program + "." + meta.machine + "." + meta.scheduler + ".timeline");
}

TimelineMeta timeline_meta(const support::Settings& settings, const support::MachineInfo& machine,
                           const std::string& variant, std::uint64_t interval) {
    TimelineMeta meta;
    std::vector<std::string> words = command_line();
    if (!words.empty()) {
        meta.program = std::filesystem::path(words[0]).filename().string();
        meta.args.assign(words.begin() + 1, words.end());
    }
    meta.machine = settings.get("machine");
    meta.scheduler = settings.get("scheduler");
    meta.register_file = settings.get("register_file");
    meta.variant = variant;
    meta.interval = interval;
    meta.sms = machine.sms;
    return meta;
}

bool sticky_code(cudaError_t e) {
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorAssert:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout: return true;
    default: return false;
    }
}

void at_exit() { Runtime::get().write_totals(); }

// The directory where a ptxas binary lives: PATH, then CUDA_HOME / CUDA_PATH, then the default install.
std::string find_ptxas() {
    auto executable = [](const std::filesystem::path& p) { return ::access(p.c_str(), X_OK) == 0; };
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest(path);
        while (!rest.empty()) {
            const auto colon = rest.find(':');
            const std::filesystem::path dir(std::string(rest.substr(0, colon)));
            if (!dir.empty() && executable(dir / "ptxas")) return (dir / "ptxas").string();
            rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var))
            if (executable(std::filesystem::path(home) / "bin" / "ptxas"))
                return (std::filesystem::path(home) / "bin" / "ptxas").string();
    if (executable("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
    return {};
}

// `ptxas -v` reports "Compiling entry function 'NAME' for 'sm_75'" and then "Used N registers" for each entry.
std::map<std::string, unsigned> parse_ptxas_report(const std::string& text) {
    std::map<std::string, unsigned> out;
    std::istringstream lines(text);
    std::string line, current;
    while (std::getline(lines, line)) {
        constexpr std::string_view entry = "Compiling entry function '";
        if (auto p = line.find(entry); p != std::string::npos) {
            const auto start = p + entry.size();
            current = line.substr(start, line.find('\'', start) - start);
            continue;
        }
        constexpr std::string_view used = "Used ";
        if (auto p = line.find(used);
            p != std::string::npos && !current.empty() && line.find(" registers", p) != std::string::npos) {
            out[current] = static_cast<unsigned>(std::strtoul(line.c_str() + p + used.size(), nullptr, 10));
            current.clear();
        }
    }
    return out;
}

} // namespace

cudaError_t error_for(const std::exception& e, cudaError_t otherwise) {
    if (const auto* k = dynamic_cast<const func::KernelError*>(&e)) {
        switch (k->kind()) {
        case func::KernelErrorKind::invalid_launch: return cudaErrorInvalidConfiguration;
        case func::KernelErrorKind::illegal_address: return cudaErrorIllegalAddress;
        case func::KernelErrorKind::misaligned_address: return cudaErrorMisalignedAddress;
        case func::KernelErrorKind::illegal_instruction: return cudaErrorIllegalInstruction;
        case func::KernelErrorKind::assertion: return cudaErrorAssert;
        case func::KernelErrorKind::trap: return cudaErrorLaunchFailure;
        case func::KernelErrorKind::limit:
        case func::KernelErrorKind::deadlock: return cudaErrorLaunchTimeout;
        case func::KernelErrorKind::cooperative_too_large: return cudaErrorCooperativeLaunchTooLarge;
        case func::KernelErrorKind::other: break;
        }
    }
    return otherwise;
}

Runtime& Runtime::get() {
    // Never destroyed: registration and unregistration run from static initialisers and atexit handlers in an
    // order the program decides, and must always find the runtime.
    static Runtime* runtime = new Runtime();
    return *runtime;
}

Runtime::Runtime()
    : settings_(load_settings()), functional_(settings_.get_bool("functional")),
      device_(settings_.get_uint("device_memory_mb") << 20) {
    try {
        if (!functional_) {
            simulator_ = std::make_unique<support::Simulator>(support::make_simulator(settings_));
            machine_ = simulator_->machine();
            // Only a run that samples or fast-forwards plans its launches and reports how each ran.
            if (settings_.get_bool("sample") || !settings_.get("sample.fast_forward").empty())
                sampler_.emplace(support::launch_sampling_options(settings_));
            cta_sampling_ = support::cta_sampling_options(settings_);
        } else {
            machine_ = support::machine_info(settings_.get("machine"), settings_);
        }
    } catch (const std::exception& e) {
        fatal(e.what());
    }
    Reporter::Options o;
    o.quiet = settings_.get_bool("quiet");
    const std::string progress = settings_.get("progress");
    o.progress = progress == "on" || (progress == "auto" && ::isatty(STDERR_FILENO) == 1);
    if (!settings_.get("stats").empty()) o.json_paths.push_back(settings_.get("stats"));
    if (const std::uint64_t interval = settings_.get_uint("timeline"); interval != 0) {
        if (functional_)
            fatal("timeline = " + std::to_string(interval) +
                  " needs timing, and `functional` runs none (gpuarch-run: drop --functional or --timeline)");
        try {
            const TimelineMeta meta = timeline_meta(settings_, machine_, simulator_->description(), interval);
            timeline_ = std::make_unique<TimelineWriter>(timeline_dir(settings_, meta), meta,
                                                         settings_.get_uint("timeline.max_mb") << 20);
        } catch (const std::exception& e) {
            fatal(e.what());
        }
        o.json_paths.push_back((timeline_->dir() / "totals.json").string());
    }
    o.gpgpusim_format = settings_.get("stats_format") == "gpgpusim";
    o.functional = functional_;
    o.variant = functional_
                    ? "functional engine (" + machine_.name + ", warp width " + std::to_string(machine_.warp_size) + ")"
                    : simulator_->description();
    reporter_.configure(std::move(o), machine_);
    std::atexit(at_exit);
}

support::Simulator* Runtime::simulator() { return simulator_.get(); }

void Runtime::write_totals() {
    std::lock_guard lock(mutex_);
    flush_console();
    if (timeline_) {
        timeline_->flush();
        try {
            timeline_->write_lines();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gpuarch: %s\n", e.what());
        }
    }
    if (sampler_ && !sampler_->reached())
        std::fprintf(stderr,
                     "[gpuarch] warning: the fast-forward target sample.fast_forward = '%s' never launched, so every "
                     "launch ran on the functional engine (a kernel name is matched as the per-kernel block prints it, "
                     "or mangled)\n",
                     sampler_->options().fast_forward.c_str());
    reporter_.finish();
}

void Runtime::flush_console() {
    std::string text = device_.take_console();
    if (text.empty()) return;
    // A GPU's printf FIFO holds cudaLimitPrintfFifoSize bytes per launch and drops what does not fit.
    std::size_t dropped = 0;
    if (text.size() > printf_fifo_bytes) {
        dropped = text.size() - printf_fifo_bytes;
        text.resize(printf_fifo_bytes);
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (dropped != 0)
        std::fprintf(stderr,
                     "gpuarch: %zu bytes of device printf output beyond cudaLimitPrintfFifoSize (%zu bytes) "
                     "were dropped, as a GPU drops them\n",
                     dropped, printf_fifo_bytes);
}

void Runtime::report_fault(const std::exception& e) const {
    std::fflush(stdout);
    std::fprintf(stderr, "gpuarch: %s\n", e.what());
}

// ------------------------------------------------------------------------------------------------ registration

void** Runtime::register_fatbin(const void* wrapper) {
    std::lock_guard lock(mutex_);
    auto m = std::make_unique<LoadedModule>();
    const std::size_t index = modules_.size();
    try {
        m->entries = read_fatbin(fatbin_from_wrapper(wrapper));
        if (auto ptx = select_ptx(m->entries, &m->ptx_arch)) m->ptx = std::move(*ptx);
        m->cubin_registers = cubin_registers(m->entries, &m->cubin_arch);
    } catch (const std::exception& e) {
        fatal(std::string("cannot read the program's fat binary: ") + e.what());
    }
    m->entries.clear(); // the PTX and register counts are all that is needed
    m->entries.shrink_to_fit();
    modules_.push_back(std::move(m));
    // The handle the program keeps is a slot holding the module index.
    auto** handle = new void*(reinterpret_cast<void*>(index));
    return handle;
}

void Runtime::register_function(void** handle, const void* host_function, const char* device_name) {
    std::lock_guard lock(mutex_);
    KernelRecord r;
    r.module = reinterpret_cast<std::size_t>(*handle);
    r.device_name = device_name;
    r.host_function = host_function;
    kernels_[host_function] = std::move(r);
}

void Runtime::register_variable(void** handle, const void* host_variable, const char* device_name, std::size_t size,
                                bool constant) {
    std::lock_guard lock(mutex_);
    VariableRecord v;
    v.module = reinterpret_cast<std::size_t>(*handle);
    v.device_name = device_name;
    v.size = size;
    v.constant = constant;
    variables_[host_variable] = std::move(v);
}

void Runtime::unregister_fatbin(void** handle) {
    // The module stays: atexit handlers of the program (and the statistics) may still name its kernels.
    (void)handle;
}

const KernelRecord* Runtime::kernel_by_host(const void* host_function) const {
    auto it = kernels_.find(host_function);
    return it == kernels_.end() ? nullptr : &it->second;
}

const VariableRecord* Runtime::variable_by_host(const void* host_variable) const {
    auto it = variables_.find(host_variable);
    return it == variables_.end() ? nullptr : &it->second;
}

std::string Runtime::cache_dir() const {
    std::filesystem::path dir;
    if (const char* d = std::getenv("GPUARCH_CACHE_DIR"); d != nullptr && *d != '\0') dir = d;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0')
        dir = std::filesystem::path(x) / "gpuarch";
    else if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
        dir = std::filesystem::path(h) / ".cache" / "gpuarch";
    else dir = "/tmp/gpuarch-" + std::to_string(::getuid());
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return ec ? std::string() : dir.string();
}

func::Module& Runtime::module(std::size_t index) {
    LoadedModule& m = loaded(index);
    if (m.module) return *m.module;
    if (m.ptx.empty())
        fatal("the program's fat binary #" + std::to_string(index) +
              " carries no PTX; gpuarch simulates PTX, so build with a virtual architecture in the fat binary "
              "(nvcc's default does this; with -gencode add code=compute_XX)");
    // The PTX goes to the cache, so error positions name a file the user can open.
    const std::string dir = cache_dir();
    const std::string name = "module-" + hex(fnv1a(m.ptx)) + ".ptx";
    m.ptx_path = dir.empty() ? name : dir + "/" + name;
    if (!dir.empty() && !std::filesystem::exists(m.ptx_path)) {
        std::ofstream out(m.ptx_path + ".tmp", std::ios::binary);
        out << m.ptx;
        out.close();
        std::error_code ec;
        std::filesystem::rename(m.ptx_path + ".tmp", m.ptx_path, ec);
    }
    try {
        m.module.emplace(func::Module::from_string(m.ptx, m.ptx_path));
    } catch (const std::exception& e) {
        std::string kernels;
        for (const auto& [host, k] : kernels_)
            if (k.module == index) kernels += (kernels.empty() ? "" : ", ") + demangle(k.device_name);
        fatal(std::string("cannot run the kernels of this module (") + kernels + "): " + e.what());
    }
    return *m.module;
}

unsigned Runtime::registers_for(LoadedModule& m, const std::string& kernel, std::string& source) {
    if (const auto forced = settings_.get_uint("registers_per_thread"); forced != 0) {
        source = "setting registers_per_thread";
        return static_cast<unsigned>(forced);
    }
    const std::string mode = settings_.get("registers");
    if (mode != "ptxas") {
        if (auto it = m.cubin_registers.find(kernel); it != m.cubin_registers.end()) {
            source = "cubin sm_" + std::to_string(m.cubin_arch);
            return it->second;
        }
        if (mode == "cubin")
            throw Error("kernel '" + kernel +
                        "' has no cubin in the program's fat binary (setting registers = cubin); "
                        "build with -arch=sm_75 or newer, or use registers = auto");
    }
    const unsigned arch = std::max(75U, m.ptx_arch);
    const std::string cache = m.ptx_path + ".sm_" + std::to_string(arch) + ".ptxas";
    if (!m.ptxas_registers) {
        std::string report;
        if (std::ifstream in(cache); in) {
            std::ostringstream text;
            text << in.rdbuf();
            report = text.str();
        } else {
            const std::string ptxas = find_ptxas();
            if (ptxas.empty())
                throw Error("kernel '" + kernel +
                            "': the fat binary has no cubin to read its register count from and "
                            "no ptxas is on PATH (set CUDA_HOME, or the setting registers_per_thread)");
            const std::string command =
                "'" + ptxas + "' -v -arch=sm_" + std::to_string(arch) + " '" + m.ptx_path + "' -o /dev/null 2>&1";
            FILE* pipe = ::popen(command.c_str(), "r");
            if (pipe == nullptr) throw Error("cannot run " + ptxas);
            std::array<char, 4096> buffer{};
            std::size_t n = 0;
            while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) report.append(buffer.data(), n);
            const int status = ::pclose(pipe);
            if (status != 0) throw Error("ptxas failed on " + m.ptx_path + ":\n" + report);
            std::ofstream(cache) << report;
        }
        m.ptxas_registers = parse_ptxas_report(report);
    }
    auto it = m.ptxas_registers->find(kernel);
    if (it == m.ptxas_registers->end())
        throw Error("ptxas reported no register count for kernel '" + kernel + "' (" + cache + ")");
    source = "ptxas sm_" + std::to_string(arch) + ", cached in " + cache;
    return it->second;
}

// ------------------------------------------------------------------------------------------------ errors

cudaError_t Runtime::result(cudaError_t e) {
    if (sticky_ != cudaSuccess) return sticky_;
    if (e != cudaSuccess) {
        last_error_ = e;
        if (sticky_code(e)) sticky_ = e;
    }
    return e;
}

cudaError_t Runtime::last_error(bool reset) {
    if (sticky_ != cudaSuccess) return sticky_;
    const cudaError_t e = last_error_;
    if (reset) last_error_ = cudaSuccess;
    return e;
}

// ------------------------------------------------------------------------------------------------ launch

void Runtime::push_configuration(dim3 grid, dim3 block, std::size_t shared, void* stream) {
    configurations_.push_back({grid, block, shared, stream});
}

cudaError_t Runtime::pop_configuration(dim3* grid, dim3* block, std::size_t* shared, void* stream) {
    if (configurations_.empty()) return cudaErrorMissingConfiguration;
    const Configuration c = configurations_.back();
    configurations_.pop_back();
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    std::memcpy(stream, &c.stream, sizeof(void*));
    return cudaSuccess;
}

unsigned Runtime::max_active_ctas(const KernelRecord& kernel, unsigned threads, std::size_t dynamic_shared) {
    const auto& m = machine_;
    const ir::Kernel& k = module(kernel.module).kernel(kernel.device_name);
    const unsigned warps = (threads + m.warp_size - 1) / m.warp_size;
    const unsigned regs = kernel_registers(kernel);
    const unsigned unit = std::max(1U, m.register_allocation_unit);
    const unsigned regs_per_cta = (regs * m.warp_size + unit - 1) / unit * unit * warps;
    const std::uint64_t shared = k.shared_bytes + dynamic_shared;
    unsigned n = std::min({m.max_ctas_per_sm, m.max_threads_per_sm / threads, m.max_warps_per_sm / warps});
    if (regs_per_cta != 0) n = std::min(n, m.registers_per_sm / regs_per_cta);
    if (shared != 0) n = std::min<unsigned>(n, static_cast<unsigned>(m.shared_bytes_per_sm / shared));
    return n;
}

cudaError_t Runtime::launch(const KernelRecord& kernel, dim3 grid, dim3 block, void** args, std::size_t shared,
                            bool cooperative) {
    LaunchReport report;
    report.kernel = kernel.device_name;
    report.display_name = demangle(kernel.device_name);
    report.grid = func::Dim3{grid.x, grid.y, grid.z};
    report.block = func::Dim3{block.x, block.y, block.z};
    report.dynamic_shared = static_cast<std::uint32_t>(shared);
    const auto start = std::chrono::steady_clock::now();
    reporter_.launch_started();
    const cudaError_t e = guarded(cudaErrorLaunchFailure, [&] {
        func::Module& mod = module(kernel.module);
        const ir::Kernel& k = mod.kernel(kernel.device_name);
        report.static_shared = static_cast<std::uint32_t>(k.shared_bytes);
        if (args == nullptr && !k.params.empty())
            throw func::KernelError("kernel '" + kernel.device_name + "' takes " + std::to_string(k.params.size()) +
                                        " parameters but the launch passed no argument array",
                                    func::KernelErrorKind::invalid_launch);
        func::Args a;
        for (std::size_t i = 0; i < k.params.size(); ++i) a.push_bytes(args[i], k.params[i].size_bytes);
        func::LaunchConfig lc;
        lc.grid = report.grid;
        lc.block = report.block;
        if (shared > std::numeric_limits<std::uint32_t>::max())
            throw func::KernelError("kernel '" + kernel.device_name + "': " + std::to_string(shared) +
                                        " bytes of dynamic shared memory",
                                    func::KernelErrorKind::invalid_launch);
        lc.dynamic_shared_bytes = static_cast<std::uint32_t>(shared);
        report.registers = registers_for(loaded(kernel.module), kernel.device_name, report.register_source);
        if (cooperative && lc.block.count() != 0) {
            // As the driver does before a cooperative launch starts (GPU::launch checks again against the SM
            // variant, which also covers functional mode's absence of one).
            const std::uint64_t fit =
                std::uint64_t{max_active_ctas(kernel, static_cast<unsigned>(lc.block.count()), shared)} * machine_.sms;
            if (lc.grid.count() > fit)
                throw func::KernelError(
                    "cooperative launch of kernel '" + report.display_name +
                        "' is too large: " + std::to_string(lc.grid.count()) + " CTAs, but at most " +
                        std::to_string(fit) + " can be resident at once on this machine (" +
                        std::to_string(fit / std::max(1U, machine_.sms)) + " per SM x " + std::to_string(machine_.sms) +
                        " SMs; see cudaOccupancyMaxActiveBlocksPerMultiprocessor)",
                    func::KernelErrorKind::cooperative_too_large);
        }
        const std::uint64_t max_instructions = settings_.get_uint("max_warp_instructions");
        auto run_functional = [&] {
            func::LaunchOptions o;
            o.warp_width = machine_.warp_size;
            o.num_sms = machine_.sms;
            o.resident_ctas = machine_.sms;
            o.cooperative = cooperative;
            if (max_instructions != 0) o.instruction_limit = max_instructions;
            const func::FunctionalStats s = func::launch(device_, mod, kernel.device_name, lc, a, o);
            report.warp_instructions = s.warp_instructions;
            report.thread_instructions = s.thread_instructions;
            report.ctas = s.ctas;
        };
        // A repeated launch's series: same kernel, grid, block and dynamic shared memory.
        std::string series;
        sample::LaunchMode mode = sample::LaunchMode::detailed;
        if (sampler_) {
            series =
                kernel.device_name + " " + dims(report.grid) + " " + dims(report.block) + " " + std::to_string(shared);
            mode = sampler_->plan(kernel.device_name, report.display_name, series);
            report.sampling = std::string(sample::to_string(mode));
        }
        try {
            if (functional_ || mode == sample::LaunchMode::fast_forward) {
                run_functional();
            } else if (mode == sample::LaunchMode::estimated) {
                run_functional();
                const auto e = sampler_->estimate(series, report.thread_instructions);
                report.cycles = static_cast<std::uint64_t>(e.cycles + 0.5);
                report.cycles_error = e.cycles_error;
                report.stats = e.stats;
                report.stats_error = e.stats_error;
                report.detailed_ctas = 0;
                report.resident_ctas_per_sm = max_active_ctas(kernel, static_cast<unsigned>(lc.block.count()), shared);
            } else {
                TimingOptions o;
                o.registers_per_thread = report.registers;
                o.placement =
                    settings_.get("placement") == "clustered" ? CtaPlacement::clustered : CtaPlacement::round_robin;
                o.host_threads = static_cast<unsigned>(settings_.get_uint("host_threads"));
                o.deadlock_cycles = settings_.get_uint("deadlock_cycles");
                o.instruction_limit = max_instructions;
                o.max_cycles = settings_.get_uint("max_cycles");
                o.livelock_cycles = settings_.get_uint("livelock_cycles");
                o.cooperative = cooperative;
                o.cta_sampling = cta_sampling_;
                o.progress = [this, &report](core::Cycle c, std::uint64_t done, std::uint64_t total) {
                    reporter_.progress(report.kernel, c, done, total);
                };
                if (timeline_) {
                    o.line_stats = true;
                    o.timeline_interval = settings_.get_uint("timeline");
                    o.timeline = [this, &report, launch = reporter_.launches_reported()](const TimelineInterval& t) {
                        timeline_->write(launch, report.display_name, t);
                    };
                }
                const LaunchResult r = simulator_->launch(device_, mod, kernel.device_name, lc, a, o);
                report.cycles = r.cycles;
                report.warp_instructions = r.warp_instructions;
                report.thread_instructions = r.thread_instructions;
                report.ctas = r.ctas;
                report.resident_ctas_per_sm = r.resident_ctas_per_sm;
                report.stats = r.stats;
                report.detailed_ctas = r.detailed_ctas;
                report.cycles_error = r.cycles_error;
                report.stats_error = r.stats_error;
                if (timeline_) {
                    const LoadedModule& lm = loaded(kernel.module);
                    timeline_->add_lines(kernel.module, lm.ptx, lm.ptx_path, mod.kernel(kernel.device_name),
                                         report.display_name, r.lines);
                }
                if (sampler_ && mode == sample::LaunchMode::detailed)
                    sampler_->record(series, r.thread_instructions, double(r.cycles), r.stats);
            }
        } catch (const std::exception& fault) {
            report.error = fault.what();
            throw;
        }
        elapsed_cycles_ += report.cycles;
        return cudaSuccess;
    });
    flush_console();
    report.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // A launch that ran, completely or until a fault stopped it, is reported; one refused before it started
    // (a bad configuration) is not.
    if (e == cudaSuccess || sticky_code(e)) reporter_.launch_finished(std::move(report));
    return e;
}

// ------------------------------------------------------------------------------------------------ memory

void* Runtime::host_alloc(std::size_t bytes) {
    void* p = std::aligned_alloc(4096, (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096);
    if (p != nullptr) host_allocations_[p] = bytes;
    return p;
}

bool Runtime::host_free(void* p) {
    auto it = host_allocations_.find(p);
    if (it == host_allocations_.end()) return false;
    std::free(p);
    host_allocations_.erase(it);
    return true;
}

bool Runtime::is_device_pointer(const void* p, std::size_t bytes) {
    return device_.translate(reinterpret_cast<func::DevPtr>(p), std::max<std::size_t>(bytes, 1)) != nullptr;
}

// ------------------------------------------------------------------------------------------------ streams, events

cudaStream_t Runtime::create_stream() {
    streams_.push_back(std::make_unique<int>(0));
    return reinterpret_cast<cudaStream_t>(streams_.back().get());
}

bool Runtime::valid_stream(cudaStream_t s) const {
    if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return true;
    for (const auto& p : streams_)
        if (reinterpret_cast<cudaStream_t>(p.get()) == s) return true;
    return false;
}

bool Runtime::destroy_stream(cudaStream_t s) {
    for (auto it = streams_.begin(); it != streams_.end(); ++it)
        if (reinterpret_cast<cudaStream_t>(it->get()) == s) {
            streams_.erase(it);
            return true;
        }
    return false;
}

cudaEvent_t Runtime::create_event() {
    events_.emplace_back();
    return reinterpret_cast<cudaEvent_t>(&events_.back());
}

EventRecord* Runtime::event(cudaEvent_t e) {
    for (auto& r : events_)
        if (reinterpret_cast<cudaEvent_t>(&r) == e) return &r;
    return nullptr;
}

bool Runtime::destroy_event(cudaEvent_t e) {
    EventRecord* r = event(e);
    if (r == nullptr) return false;
    *r = EventRecord{}; // the slot stays (a deque keeps addresses stable); a destroyed event reads as unrecorded
    return true;
}

// ------------------------------------------------------------------------------------------------ device queries

void Runtime::fill_properties(cudaDeviceProp& p) const {
    std::memset(&p, 0, sizeof p);
    const std::string name = "gpuarch " + machine_.name + " (" +
                             (functional_ ? std::string("functional") : settings_.get("scheduler")) + ")";
    std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
    p.totalGlobalMem = device_.capacity();
    p.sharedMemPerBlock = func::default_shared_memory_limit;
    p.regsPerBlock = static_cast<int>(std::min(machine_.registers_per_sm, 65536U));
    p.warpSize = static_cast<int>(machine_.warp_size);
    p.memPitch = std::numeric_limits<int>::max();
    p.maxThreadsPerBlock = static_cast<int>(func::max_threads_per_block);
    p.maxThreadsDim[0] = static_cast<int>(func::max_block_dims.x);
    p.maxThreadsDim[1] = static_cast<int>(func::max_block_dims.y);
    p.maxThreadsDim[2] = static_cast<int>(func::max_block_dims.z);
    p.maxGridSize[0] = static_cast<int>(func::max_grid_dims.x);
    p.maxGridSize[1] = static_cast<int>(func::max_grid_dims.y);
    p.maxGridSize[2] = static_cast<int>(func::max_grid_dims.z);
    p.totalConstMem = 64 * 1024; // CUDA C++ Programming Guide, Technical Specifications: 64 KB constant memory
    // The PTX gpuarch runs is compiled for sm_75 and newer (the toolkit's oldest target), whatever machine times it.
    p.major = 7;
    p.minor = 5;
    p.textureAlignment = 512;
    p.texturePitchAlignment = 32;
    p.multiProcessorCount = static_cast<int>(machine_.sms);
    p.unifiedAddressing = 1;
    p.memoryBusWidth = static_cast<int>(machine_.dram_bus_bits);
    p.l2CacheSize = static_cast<int>(machine_.l2_bytes);
    p.maxThreadsPerMultiProcessor = static_cast<int>(machine_.max_threads_per_sm);
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = machine_.shared_bytes_per_sm;
    p.regsPerMultiprocessor = static_cast<int>(machine_.registers_per_sm);
    p.sharedMemPerBlockOptin = func::default_shared_memory_limit;
    p.maxBlocksPerMultiProcessor = static_cast<int>(machine_.max_ctas_per_sm);
    p.cooperativeLaunch = 1; // cudaLaunchCooperativeKernel, grid.sync() included
}

std::optional<int> Runtime::attribute(cudaDeviceAttr a) const {
    cudaDeviceProp p;
    fill_properties(p);
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: return p.maxThreadsPerBlock;
    case cudaDevAttrMaxBlockDimX: return p.maxThreadsDim[0];
    case cudaDevAttrMaxBlockDimY: return p.maxThreadsDim[1];
    case cudaDevAttrMaxBlockDimZ: return p.maxThreadsDim[2];
    case cudaDevAttrMaxGridDimX: return p.maxGridSize[0];
    case cudaDevAttrMaxGridDimY: return p.maxGridSize[1];
    case cudaDevAttrMaxGridDimZ: return p.maxGridSize[2];
    case cudaDevAttrMaxSharedMemoryPerBlock: return static_cast<int>(p.sharedMemPerBlock);
    case cudaDevAttrTotalConstantMemory: return static_cast<int>(p.totalConstMem);
    case cudaDevAttrWarpSize: return p.warpSize;
    case cudaDevAttrMaxRegistersPerBlock: return p.regsPerBlock;
    case cudaDevAttrClockRate: return static_cast<int>(machine_.core_clock_mhz * 1000.0); // kHz
    case cudaDevAttrMemoryClockRate: return static_cast<int>(machine_.dram_clock_mhz * 1000.0); // kHz
    case cudaDevAttrMultiProcessorCount: return p.multiProcessorCount;
    case cudaDevAttrComputeCapabilityMajor: return p.major;
    case cudaDevAttrComputeCapabilityMinor: return p.minor;
    case cudaDevAttrGlobalMemoryBusWidth: return p.memoryBusWidth;
    case cudaDevAttrL2CacheSize: return p.l2CacheSize;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return p.maxThreadsPerMultiProcessor;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return static_cast<int>(p.sharedMemPerMultiprocessor);
    case cudaDevAttrMaxRegistersPerMultiprocessor: return p.regsPerMultiprocessor;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return static_cast<int>(p.sharedMemPerBlockOptin);
    case cudaDevAttrMaxBlocksPerMultiprocessor: return p.maxBlocksPerMultiProcessor;
    case cudaDevAttrUnifiedAddressing: return p.unifiedAddressing;
    case cudaDevAttrGlobalL1CacheSupported: return p.globalL1CacheSupported;
    case cudaDevAttrLocalL1CacheSupported: return p.localL1CacheSupported;
    case cudaDevAttrIntegrated:
    case cudaDevAttrConcurrentKernels:
    case cudaDevAttrEccEnabled:
    case cudaDevAttrCanMapHostMemory:
    case cudaDevAttrManagedMemory: return 0;
    case cudaDevAttrCooperativeLaunch: return p.cooperativeLaunch;
    default: return std::nullopt;
    }
}

} // namespace gpuarch::cudart
