#pragma once
// gpuarch::GPU<SMVariant, N>: N SMs of one variant, the shared memory system (interconnect, L2 slices, DRAM)
// and a CTA dispatcher that honours occupancy.
//
// Contract: `launch` runs a kernel to completion, cycle by cycle, and returns its cycles and statistics.
// Functional results land in the Device exactly as a functional-only launch would write them. Deterministic:
// SMs tick in index order each cycle and the dispatcher is a pure function of the SMs' state. With several
// host threads (TimingOptions::host_threads) each SM's timing phase and the fetch steps that touch only its own
// CTAs run concurrently, and the fetch steps that touch the shared Device serially in SM index order, which gives
// bit-identical results (tests/pinned/parallel_sms.cpp).
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core_interface.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/func/host.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/memory_system.hpp>
#include <gpuarch/sample/cta_sampler.hpp>
#include <gpuarch/sample/ratio_estimate.hpp>
#include <gpuarch/sm.hpp>
#include <gpuarch/timed_launch.hpp>
#include <gpuarch/timeline.hpp>
#include <gpuarch/timing/line_stats.hpp>

namespace gpuarch {

// Registers per thread that ptxas reported for `entry`, from the `.resources` file beside a PTX file
// (lines `<entry> registers=<N> shared=<B> local=<B> constant=<B>`). nullopt when there is none.
inline std::optional<unsigned> registers_from_resources(const std::filesystem::path& ptx_file, std::string_view entry) {
    std::filesystem::path resources = ptx_file;
    resources.replace_extension(".resources");
    std::ifstream in(resources);
    if (!in) return std::nullopt;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name, field;
        fields >> name;
        if (name != entry) continue;
        while (fields >> field)
            if (field.rfind("registers=", 0) == 0) return static_cast<unsigned>(std::stoul(field.substr(10)));
    }
    return std::nullopt;
}

namespace detail {

// A team of host threads that runs one job on items 0..n-1 each time run() is called; the calling thread is
// member 0 and thread t takes items t, t + T, t + 2T, ... (interleaved, so that round-robin CTA placement spreads
// the busy SMs over the threads). One run() per simulated cycle costs two barrier crossings: members spin (with
// a pause instruction) and then sleep in std::atomic::wait, so an oversubscribed host still makes
// progress. A job that throws stops nothing else; run() rethrows the exception of the lowest item after every
// member finished, which is what a serial loop would have thrown first among the items that threw.
class TickTeam {
public:
    explicit TickTeam(unsigned threads) : errors_(0) {
        workers_.reserve(threads > 0 ? threads - 1 : 0);
        for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }
    TickTeam(const TickTeam&) = delete;
    TickTeam& operator=(const TickTeam&) = delete;
    ~TickTeam() {
        stop_.store(true, std::memory_order_release);
        epoch_.fetch_add(1, std::memory_order_acq_rel);
        epoch_.notify_all();
        for (auto& w : workers_) w.join();
    }

    unsigned threads() const { return static_cast<unsigned>(workers_.size()) + 1; }

    // Runs job(i) for every i < n. `job` must be callable concurrently for different i.
    template <class Job> void run(unsigned n, Job& job) {
        items_ = n;
        job_ = &job;
        invoke_ = [](void* j, unsigned i) { (*static_cast<Job*>(j))(i); };
        if (errors_.size() < n) errors_.resize(n);
        done_.store(0, std::memory_order_relaxed);
        epoch_.fetch_add(1, std::memory_order_acq_rel); // publishes items_, job_, invoke_
        epoch_.notify_all(); // wakes members that stopped spinning
        share(0);
        const unsigned others = static_cast<unsigned>(workers_.size());
        for (unsigned d = done_.load(std::memory_order_acquire); d != others; d = done_.load(std::memory_order_acquire))
            wait_while_equal(done_, d);
        if (failed_.load(std::memory_order_relaxed)) {
            failed_.store(false, std::memory_order_relaxed);
            for (unsigned i = 0; i < n; ++i)
                if (errors_[i]) {
                    std::exception_ptr e = std::exchange(errors_[i], nullptr);
                    for (auto& rest : errors_) rest = nullptr;
                    std::rethrow_exception(e);
                }
        }
    }

private:
    // Pause instructions a member spins before it sleeps. Documented default, measured on the loaded development
    // machine (docs/performance-history.md, "Parallel SMs"): 512 costs a futex wake in most cycles (2.8 us per empty
    // round) but degrades gently when no core is idle; 32768 cut the empty round to 0.46 us but made an oversubscribed
    // run up to 100 times slower, because the spinner holds the core its partner needs.
    static constexpr unsigned spin_limit = 512;
    // Returns once `a` no longer holds `old`: spins (a cycle's work is microseconds), then sleeps in
    // std::atomic::wait so that an oversubscribed host runs the member being waited for instead of the spinner.
    template <class T> static void wait_while_equal(const std::atomic<T>& a, T old) {
        for (unsigned spins = 0; spins < spin_limit; ++spins) {
            if (a.load(std::memory_order_acquire) != old) return;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        while (a.load(std::memory_order_acquire) == old) a.wait(old, std::memory_order_acquire);
    }
    void share(unsigned t) {
        const unsigned step = threads();
        for (unsigned i = t; i < items_; i += step) {
            try {
                invoke_(job_, i);
            } catch (...) {
                errors_[i] = std::current_exception();
                failed_.store(true, std::memory_order_relaxed);
            }
        }
    }
    void work(unsigned t) {
        std::uint64_t seen = 0;
        while (true) {
            wait_while_equal(epoch_, seen);
            seen = epoch_.load(std::memory_order_acquire);
            if (stop_.load(std::memory_order_acquire)) return;
            share(t);
            done_.fetch_add(1, std::memory_order_acq_rel);
            done_.notify_one();
        }
    }

    std::vector<std::thread> workers_;
    std::vector<std::exception_ptr> errors_;
    unsigned items_ = 0;
    void* job_ = nullptr;
    void (*invoke_)(void*, unsigned) = nullptr;
    alignas(64) std::atomic<std::uint64_t> epoch_{0};
    alignas(64) std::atomic<unsigned> done_{0};
    alignas(64) std::atomic<bool> failed_{false};
    std::atomic<bool> stop_{false};
};

// Chooses, epoch by epoch, whether a cycle's SMs tick on the team or serially on the calling thread. The two give
// bit-identical results, so the choice may depend on measured host time without changing any result: it measures
// one epoch of each kind, runs the faster kind, and measures again later. A parallel epoch slower than a serial one
// doubles the wait before the next measurement (up to max_backoff epochs), so a host whose other cores are busy,
// where a barrier per cycle can cost tens of microseconds, spends almost all its cycles serial.
class AdaptiveTick {
public:
    static constexpr unsigned epoch_cycles = 256; // documented default: long enough to time, short to probe
    static constexpr unsigned parallel_epochs = 32; // epochs run in parallel after it measured faster
    static constexpr unsigned first_backoff = 8, max_backoff = 4096;

    bool parallel() const { return mode_ == Mode::probe_parallel || mode_ == Mode::run_parallel; }
    // A launch begins: the epoch in progress restarts, so host time between launches is not measured.
    void start_launch() {
        cycles_ = 0;
        epoch_start_ = std::chrono::steady_clock::now();
    }
    // After every cycle that could have run in parallel (two or more busy SMs).
    void count_cycle() {
        if (++cycles_ < epoch_cycles) return;
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - epoch_start_).count();
        cycles_ = 0;
        epoch_start_ = now;
        switch (mode_) {
        case Mode::probe_serial:
            serial_seconds_ = seconds;
            mode_ = Mode::probe_parallel;
            return;
        case Mode::probe_parallel:
            if (seconds < serial_seconds_) {
                mode_ = Mode::run_parallel;
                left_ = parallel_epochs;
                backoff_ = first_backoff;
            } else {
                mode_ = Mode::run_serial;
                left_ = backoff_;
                backoff_ = std::min(backoff_ * 2, max_backoff);
            }
            return;
        case Mode::run_parallel:
        case Mode::run_serial:
            if (--left_ == 0) mode_ = Mode::probe_serial;
            return;
        }
    }

private:
    enum class Mode : std::uint8_t { probe_serial, probe_parallel, run_parallel, run_serial };
    Mode mode_ = Mode::probe_serial;
    unsigned cycles_ = 0, left_ = 0, backoff_ = first_backoff;
    double serial_seconds_ = 0;
    std::chrono::steady_clock::time_point epoch_start_ = std::chrono::steady_clock::now();
};

// Host threads for a launch: TimingOptions::host_threads, else GPUARCH_HOST_THREADS, else one. Never more than the
// SM count.
inline unsigned host_threads_for(unsigned requested, unsigned sms) {
    unsigned n = requested;
    if (n == 0) {
        if (const char* env = std::getenv("GPUARCH_HOST_THREADS"); env != nullptr && *env != '\0') {
            char* end = nullptr;
            const unsigned long v = std::strtoul(env, &end, 10);
            if (end == env || *end != '\0' || v == 0)
                throw Error("GPUARCH_HOST_THREADS must be a positive integer (got '" + std::string(env) + "')");
            n = static_cast<unsigned>(std::min<unsigned long>(v, sms));
        } else {
            n = 1;
        }
    }
    return std::max(1U, std::min(n, sms));
}

// Which SMs GPU::launch visits in a cycle: the awake ones, in index order. A core that offers asleep_until() (SM)
// sleeps after a visit whose answer lies beyond the next cycle, and is visited again from that cycle on, or when
// something reaches it first (wake). The cycles it skipped, [slept_from, end), are handed to it when it wakes
// (count_slept_cycles, called by `hand`), before anything else reaches it. A sleeping SM costs nothing per cycle:
// the visit loop reads only the awake set, and one compare tells when some sleeper's time comes.
template <unsigned N> class SleepSchedule {
public:
    static constexpr unsigned words = (N + 63) / 64;
    using Mask = std::array<std::uint64_t, words>;
    static constexpr core::Cycle never = std::numeric_limits<core::Cycle>::max();

    SleepSchedule() {
        for (unsigned i = 0; i < N; ++i) awake_[i / 64] |= bit(i);
    }
    bool awake(unsigned i) const { return (awake_[i / 64] & bit(i)) != 0; }
    const Mask& awake_set() const { return awake_; }
    // SM i was visited in cycle `now` and answered asleep_until() = `until` (0: no sleep).
    void after_visit(unsigned i, core::Cycle now, core::Cycle until) {
        if (until <= now + 1) return; // its next cycle runs anyway
        awake_[i / 64] &= ~bit(i);
        slept_from_[i] = now + 1;
        until_[i] = until;
        next_wake_ = std::min(next_wake_, until);
    }
    // Before the visits of cycle `now`: wakes the sleepers whose time has come.
    template <class Hand> void wake_due(core::Cycle now, Hand&& hand) {
        if (now < next_wake_) return;
        next_wake_ = never;
        for (unsigned i = 0; i < N; ++i) {
            if (awake(i)) continue;
            if (until_[i] <= now) wake(i, now, hand);
            else next_wake_ = std::min(next_wake_, until_[i]);
        }
    }
    // Wakes SM i, handing over the cycles it skipped before `end` (exclusive: the first cycle not yet ticked).
    template <class Hand> void wake(unsigned i, core::Cycle end, Hand&& hand) {
        if (awake(i)) return;
        awake_[i / 64] |= bit(i);
        if (end > slept_from_[i]) hand(i, end - slept_from_[i], end - 1);
    }
    template <class Hand> void wake_all(core::Cycle end, Hand&& hand) {
        for (unsigned i = 0; i < N; ++i) wake(i, end, hand);
    }
    // f(i) for every SM set in `mask`, ascending.
    template <class F> static void for_each(const Mask& mask, F&& f) {
        for (unsigned w = 0; w < words; ++w)
            for (std::uint64_t bits = mask[w]; bits != 0; bits &= bits - 1)
                f(w * 64 + static_cast<unsigned>(std::countr_zero(bits)));
    }

private:
    static std::uint64_t bit(unsigned i) { return std::uint64_t{1} << (i % 64); } // SM i's bit in its mask word
    Mask awake_{};
    std::array<core::Cycle, N> slept_from_{};
    std::array<core::Cycle, N> until_{};
    core::Cycle next_wake_ = never;
};

} // namespace detail

template <class SMVariant, unsigned NumSMs> class GPU {
    static_assert(NumSMs > 0, "a GPU needs at least one SM");
    static_assert(StreamingMultiprocessor<SMVariant>,
                  "GPU's core type must offer what GPU calls (gpuarch/core_interface.hpp): occupancy, bind, cycle, "
                  "receive, instruction counts, statistics, running_site, describe_state and l1()");

public:
    using SMType = SMVariant;
    using Frontend = typename SMVariant::Frontend;
    static constexpr unsigned sm_count = NumSMs;

    struct Config {
        typename SMVariant::L1::Config l1{};
        mem::MemorySystemConfig memory{};
    };

    explicit GPU(Config config = {}) : config_(std::move(config)) {
        config_.memory.sms = NumSMs;
        memory_ = std::make_unique<mem::MemorySystem>(config_.memory);
        sms_.reserve(NumSMs);
        for (unsigned i = 0; i < NumSMs; ++i) sms_.push_back(std::make_unique<SMVariant>(i, config_.l1));
    }

    static std::string variant_name() { return SMVariant::variant_name() + " x" + std::to_string(NumSMs); }
    // variant_name() plus, in brackets, every L1 field this GPU's configuration sets differently from the L1 type's
    // knobs (mem::l1_differences): the name of what actually runs.
    std::string description() const {
        std::string overrides;
        if constexpr (requires { SMVariant::L1::knob_config(); })
            overrides = mem::l1_differences(config_.l1, SMVariant::L1::knob_config());
        return overrides.empty() ? variant_name() : variant_name() + " [" + overrides + "]";
    }
    SMVariant& sm(unsigned i) { return *sms_[i]; }
    mem::MemorySystem& memory() { return *memory_; }

    // Runs one kernel launch to completion on a fresh machine state (caches warm from earlier launches on
    // this GPU object are kept: a multi-launch kernel such as BFS sees the cache contents it left).
    LaunchResult launch(func::Device& device, const func::Module& module, std::string_view entry,
                        const func::LaunchConfig& launch, const func::Args& args, const TimingOptions& options = {}) {
        func::LaunchOptions fopts;
        fopts.warp_width = Frontend::warp_width;
        fopts.cooperative = options.cooperative;
        // The functional engine's own limit is only a safety net behind this launch's, which is checked every cycle
        // and reported at a running warp: twice the timing limit, none when the timing limit is off.
        constexpr std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
        fopts.instruction_limit = options.instruction_limit == 0 || options.instruction_limit > unlimited / 2
                                      ? unlimited
                                      : options.instruction_limit * 2;
        func::KernelExecution execution(device, module, entry, launch, args, fopts);
        const ir::Kernel& kernel = execution.kernel();

        unsigned regs = options.registers_per_thread;
        if (regs == 0) {
            if (auto r = registers_from_resources(module.ir().file_name, entry)) regs = *r;
            else
                throw Error("no register count for kernel '" + std::string(entry) +
                            "': pass "
                            "TimingOptions::registers_per_thread, or keep the ptxas .resources file beside " +
                            module.ir().file_name + " (kernels/regen writes it)");
        }
        const unsigned threads = launch.block.x * launch.block.y * launch.block.z;
        CtaShape shape;
        shape.threads = threads;
        shape.warps = (threads + Frontend::warp_width - 1) / Frontend::warp_width;
        const unsigned unit = Frontend::register_allocation_unit;
        const unsigned per_warp = ((regs * Frontend::warp_width + unit - 1) / unit) * unit;
        shape.registers = per_warp * shape.warps;
        shape.shared_bytes = static_cast<unsigned>(kernel.shared_bytes) + launch.dynamic_shared_bytes;
        const unsigned per_sm = SMVariant::max_resident_ctas(shape);
        if (per_sm == 0)
            throw Error("kernel '" + std::string(entry) + "' cannot run on " + std::string(Frontend::name) +
                        ": one CTA of " + std::to_string(threads) + " threads, " + std::to_string(regs) +
                        " registers per thread and " + std::to_string(shape.shared_bytes) +
                        " bytes of shared memory exceeds an SM's limits");
        if (options.cooperative && execution.cta_count() > std::uint64_t{per_sm} * NumSMs)
            throw func::KernelError("cooperative launch of kernel '" + std::string(entry) + "' is too large: its " +
                                        std::to_string(execution.cta_count()) + " CTAs cannot all be resident on " +
                                        std::string(Frontend::name) + " (" + std::to_string(per_sm) +
                                        " CTAs per SM for this kernel x " + std::to_string(NumSMs) +
                                        " SMs = " + std::to_string(std::uint64_t{per_sm} * NumSMs) + ")",
                                    func::KernelErrorKind::cooperative_too_large);

        // L1 slots with a data cache that can be flushed (mem::L1Config::flush_between_kernels); IdealMemory has none.
        // Before a GPU's first launch the L1s hold no valid line, so flushing them then changes nothing.
        if constexpr (requires(SMVariant & sm) {
                          config_.l1.flush_between_kernels;
                          sm.l1().flush_data();
                      }) {
            if (config_.l1.flush_between_kernels)
                for (auto& sm : sms_) sm->l1().flush_data();
        }
        for (auto& sm : sms_) sm->bind(execution, shape);
        constexpr bool counts_lines = requires(SMVariant & sm) { sm.start_line_stats(true); };
        if constexpr (counts_lines) {
            for (auto& sm : sms_) sm->start_line_stats(options.line_stats);
        } else if (options.line_stats) {
            throw Error("per-line statistics (TimingOptions::line_stats) are not counted by " + variant_name());
        }
        const std::uint64_t total_ctas = execution.cta_count();
        // Sampled timing: the CTAs that run in detail, the batches measured between snapshots, and the thread
        // instructions of the CTAs skipped (run on the functional engine) so far.
        const sample::CtaSampler sampler(options.cta_sampling, std::uint64_t{per_sm} * NumSMs, total_ctas,
                                         options.cooperative);
        sample::BatchedStatistics batches;
        struct Snapshot {
            core::Cycle cycles = 0;
            std::uint64_t thread_instructions = 0;
            core::StatsTable stats;
        };
        std::optional<Snapshot> open_batch;
        std::uint64_t detailed_ctas = 0, skipped_warp_instructions = 0, skipped_thread_instructions = 0;
        std::uint64_t next_cta = 0;
        std::uint64_t ctas_done = 0, ctas_skipped = 0; // finished in detail; run functionally
        unsigned rr_sm = 0;
        std::vector<std::uint64_t> before_warp(NumSMs), before_thread(NumSMs);
        for (unsigned i = 0; i < NumSMs; ++i) {
            before_warp[i] = sms_[i]->warp_instructions();
            before_thread[i] = sms_[i]->thread_instructions();
        }

        // Cycles count on from earlier launches on this GPU object: components keep absolute cycle numbers.
        core::StatsTable stats_before = collect_stats();
        const core::Cycle start = now_;
        core::Cycle& cycle = now_;
        core::Cycle last_progress = cycle;
        std::uint64_t last_instructions = 0;
        if (options.launch_hint > 3)
            throw Error("launch hint " + std::to_string(options.launch_hint) +
                        " is not one of Gong 2020 Table 6.1's values 0-3");
        for (auto& sm : sms_)
            if constexpr (requires { sm->set_launch_hint(0U); }) sm->set_launch_hint(options.launch_hint);
        const bool clustered = options.placement == CtaPlacement::clustered || options.launch_hint != 0;
        // cluster_ctas == 0: the grid spread evenly, ceil(CTAs / SMs) consecutive CTAs per SM but no more than fit,
        // so clustering keeps every SM busy (filling each SM first would leave SMs idle on grids smaller than the
        // machine's capacity).
        const unsigned balanced_chunk =
            static_cast<unsigned>(std::clamp<std::uint64_t>((execution.cta_count() + NumSMs - 1) / NumSMs, 1, per_sm));
        // Each SM in turn, from where the last turn stopped, takes up to `chunk` consecutive CTAs. Round-robin
        // (GPGPU-Sim's and Multi2Sim's default) is chunk 1: CTA c starts on SM c mod N while every SM has room.
        // Clustered (Gong 2020 Sec. 6.3.2, Fig. 6.8) puts adjacent CTAs on one SM: at launch SM k gets CTAs
        // k*chunk ... (k+1)*chunk - 1, and later a freed slot takes the next CTA.
        const unsigned chunk = !clustered ? 1U : options.cluster_ctas != 0 ? options.cluster_ctas : balanced_chunk;
        auto snapshot = [&] {
            Snapshot now{cycle - start, 0, collect_stats()};
            for (unsigned i = 0; i < NumSMs; ++i) now.thread_instructions += sms_[i]->thread_instructions();
            return now;
        };
        auto measure = [&] {
            if (sampler.closes_batch(next_cta) && open_batch) {
                const Snapshot now = snapshot();
                batches.add_batch(double(now.thread_instructions - open_batch->thread_instructions),
                                  double(now.cycles - open_batch->cycles), now.stats.minus(open_batch->stats));
                open_batch.reset();
            }
            if (sampler.opens_batch(next_cta)) open_batch = snapshot();
        };
        // Before `next_cta` is dispatched: batches open and close, and skipped CTAs run functionally.
        auto sample_before_dispatch = [&] {
            measure();
            if (sampler.detailed(next_cta)) return;
            const std::uint64_t resume = sampler.next_detailed(next_cta);
            const std::uint64_t warp_before = execution.warp_instructions();
            const std::uint64_t thread_before = execution.thread_instructions();
            // Functional warming: the skipped CTAs' global accesses leave the L2 as they would (the L1s, a
            // fraction of the L2's size, are left alone).
            const std::uint64_t line = memory_->config().partition.l2.geometry.line_bytes;
            func::run_ctas(execution, next_cta, resume, sampler.wave_size(), [this, line](const func::StepResult& r) {
                if (!r.is_memory) return;
                const bool write = r.is_store || r.is_atomic;
                std::uint64_t last_line = ~std::uint64_t{0};
                for (unsigned lane = 0; lane < r.width(); ++lane) {
                    if (!r.accessed.test(lane) || r.lane_spaces[lane] != ir::StateSpace::global) continue;
                    const std::uint64_t l = r.addresses[lane] / line;
                    if (l == last_line) continue; // a warp's lanes mostly share lines
                    last_line = l;
                    memory_->warm(l * line, write);
                }
            });
            skipped_warp_instructions += execution.warp_instructions() - warp_before;
            skipped_thread_instructions += execution.thread_instructions() - thread_before;
            ctas_skipped += resume - next_cta;
            next_cta = resume;
            measure();
        };
        // Sleeping SMs (detail::SleepSchedule): an SM whose next cycles would only count as dormant
        // (SM::asleep_until) is not visited in them. Its cycles are handed over (SM::count_slept_cycles) before
        // anything else reaches it: a response, a CTA, a statistics read, a deadlock or limit report, the end of the
        // launch. The post-cycle pass reads only the SMs visited: only an SM's own cycle changes its finished CTAs,
        // idle() and instruction count, or dispatch() (resident CTAs), which rereads every SM.
        constexpr bool sms_sleep = requires(SMVariant & sm, const SMVariant& csm) {
            { csm.asleep_until() } -> std::convertible_to<core::Cycle>;
            sm.count_slept_cycles(std::uint64_t{}, core::Cycle{});
        };
        detail::SleepSchedule<NumSMs> sleepers;
        typename detail::SleepSchedule<NumSMs>::Mask visited = sleepers.awake_set(); // every SM, until one sleeps
        core::Cycle ticked_through = cycle; // the first cycle whose SMs have not ticked yet
        auto hand = [this](unsigned i, std::uint64_t n, core::Cycle last) {
            if constexpr (sms_sleep) sms_[i]->count_slept_cycles(n, last);
        };
        auto wake_all = [&] { sleepers.wake_all(ticked_through, hand); };
        // The SMs' idle() and instruction counts as of their last visit, and their totals.
        std::array<bool, NumSMs> sm_idle{};
        std::array<std::uint64_t, NumSMs> sm_instructions{};
        unsigned busy_sms = 0;
        std::uint64_t instructions = 0;
        auto reread = [&](unsigned i) {
            busy_sms -= sm_idle[i] ? 0U : 1U;
            instructions -= sm_instructions[i];
            sm_idle[i] = sms_[i]->idle();
            sm_instructions[i] = sms_[i]->warp_instructions();
            busy_sms += sm_idle[i] ? 0U : 1U;
            instructions += sm_instructions[i];
        };
        sm_idle.fill(true);
        // Whatever ends the launch, every SM has been handed its cycles (a caller may still read its statistics).
        struct WakeAllAtExit {
            decltype(wake_all)& f;
            ~WakeAllAtExit() {
                try {
                    f();
                } catch (...) { // only on a launch that already failed: its own error is the one reported
                }
            }
        } wake_all_at_exit{wake_all};
        auto dispatch = [&] {
            wake_all();
            bool placed = true;
            while (placed && next_cta < total_ctas) {
                placed = false;
                const unsigned first = rr_sm; // fixed for the pass, so no SM is skipped
                for (unsigned k = 0; k < NumSMs && next_cta < total_ctas; ++k) {
                    const unsigned i = (first + k) % NumSMs;
                    unsigned taken = 0;
                    for (; taken < chunk && next_cta < total_ctas && sms_[i]->can_accept_cta(); ++taken, ++next_cta) {
                        if (sampler.active()) {
                            sample_before_dispatch();
                            if (next_cta == total_ctas) break;
                        }
                        sms_[i]->start_cta(next_cta, next_cta);
                        ++detailed_ctas;
                    }
                    if (taken == 0) continue;
                    rr_sm = (i + 1) % NumSMs;
                    placed = true;
                }
            }
            for (unsigned i = 0; i < NumSMs; ++i) reread(i);
        };
        // Parallel tick. Serial when there is one thread, when the SM variant does not split its
        // cycle into phases, or when the L1s report to a GPU-wide duplicate-MSHR tracker (shared state that the
        // timing phase writes, in an order that affects its statistics).
        unsigned host_threads = detail::host_threads_for(options.host_threads, NumSMs);
        if constexpr (!requires(SMVariant & sm, mem::Downstream & down) {
                          sm.cycle_timing(core::Cycle{}, down);
                          sm.cycle_fetch_private();
                          sm.cycle_fetch_finish();
                          SMVariant::max_fetch_steps_per_cycle();
                      })
            host_threads = 1;
        if constexpr (requires { config_.l1.duplicate_tracker; })
            if (config_.l1.duplicate_tracker != nullptr) host_threads = 1;
        // The team and the adaptive choice live as long as the GPU: a program of many short launches (nw, bfs)
        // starts its threads once and keeps what it measured.
        if (host_threads > 1 && (!team_ || team_->threads() != host_threads))
            team_ = std::make_unique<detail::TickTeam>(host_threads);
        detail::TickTeam* const team = host_threads > 1 ? team_.get() : nullptr;
        memory_->set_concurrent_senders(team != nullptr);
        adaptive_.start_launch();
        // One parallel region per cycle: each SM's timing phase and the private part of its fetch stage (steps
        // that touch only their own CTA), then serially in SM index order the rest of every fetch stage (steps
        // that touch the Device, and all that follow them in that stage). An error stops its SM's part and is
        // rethrown in the serial pass when that SM's turn comes, after every lower SM finished its cycle: the
        // error SM-by-SM cycle() would have thrown first.
        std::vector<std::exception_ptr> sm_errors(team ? NumSMs : 0);
        const std::uint64_t limit = execution.options().instruction_limit;
        constexpr std::uint64_t steps_per_cycle = [] {
            if constexpr (requires { SMVariant::max_fetch_steps_per_cycle(); })
                return std::uint64_t{NumSMs} * SMVariant::max_fetch_steps_per_cycle();
            else return std::uint64_t{0};
        }();
        auto tick_sms = [&] {
            // A cycle with at most one SM holding CTAs has nothing to share out (the other SMs' ticks are a few
            // checks): it runs serially, which gives the same results and saves the barrier (nw, bfs and the
            // drain after the last CTA have many such cycles).
            unsigned busy_sms = 0;
            if (team)
                for (unsigned i = 0; i < NumSMs && busy_sms < 2; ++i) busy_sms += sms_[i]->idle() ? 0U : 1U;
            const bool shareable = team && busy_sms >= 2;
            const bool parallel = shareable && adaptive_.parallel();
            if (shareable) adaptive_.count_cycle();
            if (!parallel) {
                if constexpr (sms_sleep) {
                    sleepers.wake_due(cycle, hand);
                    visited = sleepers.awake_set();
                    sleepers.for_each(visited, [&](unsigned i) {
                        sms_[i]->cycle(cycle, memory_->downstream(i));
                        sleepers.after_visit(i, cycle, sms_[i]->asleep_until());
                    });
                } else {
                    for (unsigned i = 0; i < NumSMs; ++i) sms_[i]->cycle(cycle, memory_->downstream(i));
                }
                ticked_through = cycle + 1;
                return;
            }
            wake_all();
            visited = sleepers.awake_set();
            ticked_through = cycle + 1;
            if constexpr (requires(SMVariant & sm) { sm.cycle_fetch_finish(); }) {
                // Private steps check the instruction limit against the count of the previous cycle: allowed
                // only while no step of this cycle can reach the limit, so that no step faults on it.
                const std::uint64_t counted = execution.warp_instructions();
                const bool private_fetch = counted <= limit && limit - counted >= steps_per_cycle;
                auto phase = [&](unsigned i) {
                    try {
                        sms_[i]->cycle_timing(cycle, memory_->downstream(i));
                        if (private_fetch) sms_[i]->cycle_fetch_private();
                    } catch (...) {
                        sm_errors[i] = std::current_exception();
                    }
                };
                team->run(NumSMs, phase);
                for (unsigned i = 0; i < NumSMs; ++i) {
                    if (sm_errors[i]) std::rethrow_exception(sm_errors[i]);
                    sms_[i]->cycle_fetch_finish();
                }
            }
        };
        // Stops the launch with a KernelError at a running warp (the lowest SM's lowest running warp slot).
        auto stop = [&](const std::string& what, func::KernelErrorKind kind) {
            wake_all();
            for (const auto& sm : sms_)
                if (auto site = sm->running_site()) throw func::KernelError(what, *site, kind);
            throw func::KernelError("kernel '" + std::string(entry) + "': " + what, kind);
        };
        // The timeline: counters read at the start of the interval in progress, and now.
        struct Timeline {
            CounterReader sm_reader, mem_reader;
            std::vector<std::uint64_t> sm_before, sm_now, sm_delta, mem_before, mem_now, mem_delta, row;
            core::Cycle begin = 0;
        };
        std::optional<Timeline> timeline;
        auto read_counters = [&](Timeline& t, std::vector<std::uint64_t>& sm_values, std::vector<std::uint64_t>& mem) {
            wake_all();
            sm_values.clear();
            for (const auto& sm : sms_) {
                t.sm_reader.read(*sm, t.row);
                sm_values.insert(sm_values.end(), t.row.begin(), t.row.end());
            }
            t.mem_reader.read(*memory_, mem);
        };
        if (options.timeline_interval != 0 && options.timeline) {
            timeline.emplace();
            timeline->begin = cycle;
            read_counters(*timeline, timeline->sm_before, timeline->mem_before);
        }
        auto close_interval = [&] {
            Timeline& t = *timeline;
            if (cycle == t.begin) return;
            read_counters(t, t.sm_now, t.mem_now);
            auto increments = [](const std::vector<std::uint64_t>& now, const std::vector<std::uint64_t>& before,
                                 std::vector<std::uint64_t>& delta) {
                delta.resize(now.size());
                for (std::size_t k = 0; k < now.size(); ++k) delta[k] = now[k] - before[k];
            };
            increments(t.sm_now, t.sm_before, t.sm_delta);
            increments(t.mem_now, t.mem_before, t.mem_delta);
            options.timeline(TimelineInterval{entry, t.begin, cycle, NumSMs, t.sm_reader.names(), t.sm_delta,
                                              t.mem_reader.names(), t.mem_delta});
            std::swap(t.sm_before, t.sm_now);
            std::swap(t.mem_before, t.mem_now);
            t.begin = cycle;
        };
        // A response wakes its SM (SM::receive), which first gets the cycles it slept.
        auto deliver = [&](std::uint32_t sm, const mem::MemPacket& p) {
            sleepers.wake(sm, ticked_through, hand);
            sms_[sm]->receive(p, cycle);
        };
        // The next cycle at which progress is reported (a compare per cycle: the remainder by the interval was a
        // 64-bit division in every cycle). An interval of 0 reports none.
        const bool reports_progress = options.progress && options.progress_interval != 0;
        core::Cycle next_progress = start + options.progress_interval;
        core::Cycle livelock_window_start = cycle;
        bool livelock_digest_taken = false; // the device memory digest taken halfway through the window
        std::uint64_t livelock_digest = 0;
        dispatch();
        while (true) {
            const bool ctas_waiting = next_cta < total_ctas;
            tick_sms();
            memory_->cycle(cycle, deliver);
            ++cycle;
            // One pass over the SMs after the cycle. Only an SM's own cycle changes its resident CTAs, its finished
            // CTAs and its instruction count (a response reaches the L1 only, and dispatch() starts CTAs without
            // issuing anything), so these are the values the SMs' tick left.
            bool finished_any = false;
            sleepers.for_each(visited, [&](unsigned i) {
                const unsigned n = sms_[i]->take_finished_ctas();
                ctas_done += n;
                finished_any = finished_any || n > 0;
                reread(i);
            });
            const bool busy = ctas_waiting || busy_sms > 0;
            if (finished_any) dispatch();
            if (!busy) break;
            if (reports_progress && cycle == next_progress) {
                options.progress(cycle - start, ctas_done + ctas_skipped, total_ctas);
                next_progress += options.progress_interval;
            }
            if (timeline && (cycle - start) % options.timeline_interval == 0) close_interval();
            if (options.max_cycles != 0 && cycle - start >= options.max_cycles)
                stop("the launch reached its limit of " + std::to_string(options.max_cycles) +
                         " cycles (TimingOptions::max_cycles; gpuarch-run: max_cycles = 0 lifts it); the kernel may "
                         "not terminate",
                     func::KernelErrorKind::limit);
            if (options.livelock_cycles != 0) {
                if (finished_any) {
                    livelock_window_start = cycle;
                    livelock_digest_taken = false;
                } else if (cycle - livelock_window_start == options.livelock_cycles / 2) {
                    livelock_digest = memory_digest(device);
                    livelock_digest_taken = true;
                } else if (cycle - livelock_window_start >= options.livelock_cycles && livelock_digest_taken) {
                    if (memory_digest(device) == livelock_digest)
                        stop("livelock: warps kept issuing for " + std::to_string(options.livelock_cycles) +
                                 " cycles, but no CTA finished and device memory did not change (a spin loop "
                                 "waiting for something that never happens?; gpuarch-run: livelock_cycles = 0 "
                                 "turns the check off)",
                             func::KernelErrorKind::deadlock);
                    livelock_window_start = cycle;
                    livelock_digest_taken = false;
                }
            }
            if (instructions != last_instructions || finished_any) {
                last_instructions = instructions;
                last_progress = cycle;
            } else if (cycle - last_progress > options.deadlock_cycles) {
                wake_all();
                std::string state;
                for (const auto& sm : sms_)
                    if (!sm->idle() && state.size() < 4000) state += sm->describe_state();
                throw func::KernelError("kernel '" + std::string(entry) + "' made no progress for " +
                                            std::to_string(options.deadlock_cycles) + " cycles on " + variant_name() +
                                            " (a barrier some warps never reach, or a simulator bug); state:\n" + state,
                                        func::KernelErrorKind::deadlock);
            }
            if (options.instruction_limit != 0 && instructions > options.instruction_limit)
                stop("the launch exceeded its limit of " + std::to_string(options.instruction_limit) +
                         " warp instructions (TimingOptions::instruction_limit; gpuarch-run: max_warp_instructions "
                         "= 0 lifts it); the kernel may not terminate",
                     func::KernelErrorKind::limit);
        }
        // Let outstanding writes drain so the next launch starts from a quiet memory system.
        while (!memory_->idle()) {
            tick_sms();
            memory_->cycle(cycle, deliver);
            ++cycle;
        }
        wake_all();
        if (timeline) close_interval();

        LaunchResult result;
        result.kernel = std::string(entry);
        result.cycles = cycle - start;
        result.ctas = static_cast<unsigned>(total_ctas);
        result.resident_ctas_per_sm = per_sm;
        for (unsigned i = 0; i < NumSMs; ++i) {
            result.warp_instructions += sms_[i]->warp_instructions() - before_warp[i];
            result.thread_instructions += sms_[i]->thread_instructions() - before_thread[i];
        }
        result.stats = collect_stats().minus(stats_before);
        if constexpr (counts_lines) {
            if (options.line_stats) {
                result.lines.assign(execution.kernel().code.size(), timing::LineCounters{});
                for (const auto& sm : sms_) {
                    const auto& lines = sm->line_stats();
                    for (std::size_t pc = 0; pc < result.lines.size(); ++pc) result.lines[pc] += lines[pc];
                }
            }
        }
        result.detailed_ctas = detailed_ctas;
        if (detailed_ctas < total_ctas) {
            // Sampled: the skipped CTAs' share of cycles and statistics is extrapolated from the measured batches
            // by their thread instructions, which the functional engine counted exactly.
            result.warp_instructions += skipped_warp_instructions;
            result.thread_instructions += skipped_thread_instructions;
            const auto extra = batches.extrapolate(double(skipped_thread_instructions));
            result.cycles += static_cast<core::Cycle>(extra.cycles + 0.5);
            result.cycles_error = extra.cycles_error;
            result.stats.merge(extra.stats);
            result.stats_error = extra.stats_error;
        }
        return result;
    }

    // Every SM's statistics summed under "sm.", and the memory system's under "mem.", since construction.
    core::StatsTable collect_stats() const {
        core::StatsTable table;
        for (const auto& sm : sms_) table.collect("sm", *sm);
        table.collect("mem", *memory_);
        return table;
    }

private:
    // FNV-1a over every live device allocation: whether a kernel changed device memory between two moments.
    static std::uint64_t memory_digest(const func::Device& device) {
        std::uint64_t h = 14695981039346656037ULL;
        device.for_each_allocation([&](std::uint64_t base, std::span<const std::uint8_t> bytes) {
            h = (h ^ base) * 1099511628211ULL;
            for (std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ULL;
        });
        return h;
    }

    core::Cycle now_ = 0;
    Config config_;
    std::unique_ptr<mem::MemorySystem> memory_;
    std::vector<std::unique_ptr<SMVariant>> sms_;
    std::unique_ptr<detail::TickTeam> team_; // the parallel tick's host threads, made on first use
    detail::AdaptiveTick adaptive_;
};

} // namespace gpuarch
