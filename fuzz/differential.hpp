#pragma once
// Differential execution of one generated kernel (fuzz/ptx_generator.hpp): the functional engine at warp widths
// 32 and 64, and timed Fermi-, Kepler- and Southern-Islands-like GPUs (warp widths 32, 32, 64) on one and two
// host threads. Contract checked (issue 24, part 5): every run completes without an error, and all of them leave
// the same device memory (every buffer, the read-only input included) and execute the same thread-instructions;
// the two host-thread counts of one timed machine also agree on cycles and on every statistic (issue 11: the
// parallel tick is bit-identical to the serial one).
//
// The timed GPUs have 4 SMs rather than the machines' full counts: the generated grids (1 to 16 CTAs) then put
// several CTAs on one SM at a time, which is where shared-memory, barrier and scheduling interactions happen, and
// a launch costs a few milliseconds, so the fuzzer stays fast.
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gpuarch/func/host.hpp>
#include <gpuarch/gpu.hpp>
#include <gpuarch/machines.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/lrr.hpp>
#include <gpuarch/sched/two_level.hpp>

#include "ptx_generator.hpp"

namespace gpuarch::fuzz {

// What one run leaves behind.
struct Observation {
    std::string run; // which run, for messages
    std::string error; // what() of the exception that stopped it; empty when it completed
    std::vector<std::uint32_t> input, out, counters, exchange;
    std::uint64_t thread_instructions = 0;
    core::Cycle cycles = 0; // timed runs only
    core::StatsTable stats; // timed runs only
};

struct Verdict {
    bool agree = true;
    std::string report; // the first disagreement, with the runs it is between
};

namespace detail {

struct Buffers {
    func::DevPtr in = 0, out = 0, ctr = 0, xchg = 0;
};

inline Buffers allocate(func::Device& device, const GeneratedKernel& k) {
    Buffers b;
    b.in = device.upload(k.input);
    b.out = device.malloc(k.out_words * 4);
    b.ctr = device.upload(k.counter_init);
    b.xchg = device.malloc(k.exchange_words * 4);
    return b;
}

inline void read_back(const func::Device& device, const Buffers& b, const GeneratedKernel& k, Observation& o) {
    o.input = device.download<std::uint32_t>(b.in, k.input.size());
    o.out = device.download<std::uint32_t>(b.out, k.out_words);
    o.counters = device.download<std::uint32_t>(b.ctr, k.counter_init.size());
    o.exchange = device.download<std::uint32_t>(b.xchg, k.exchange_words);
}

inline func::Args arguments(const Buffers& b, const GeneratedKernel& k) {
    return func::Args(b.in, b.out, b.ctr, b.xchg, k.salt);
}

// Generated kernels are bounded (loops of at most 8 iterations, nested at most twice); these limits only stop a
// runaway launch quickly if that ever fails.
inline constexpr std::uint64_t instruction_limit = 20'000'000;
inline constexpr core::Cycle max_cycles = 20'000'000;
inline constexpr core::Cycle deadlock_cycles = 200'000;

inline Observation run_functional(const func::Module& module, const GeneratedKernel& k, std::uint32_t warp_width) {
    Observation o;
    o.run = "functional, warp width " + std::to_string(warp_width);
    func::Device device;
    const Buffers b = allocate(device, k);
    func::LaunchOptions options;
    options.warp_width = warp_width;
    options.instruction_limit = instruction_limit;
    try {
        const func::FunctionalStats s = func::launch(device, module, k.entry, k.config, arguments(b, k), options);
        o.thread_instructions = s.thread_instructions;
    } catch (const std::exception& e) {
        o.error = e.what();
    }
    read_back(device, b, k, o);
    return o;
}

// One timed machine on one and on two host threads. The GPU objects live across kernels (building one is most of
// a small launch's cost); caches stay warm between launches, which changes cycles but never values. After a run
// that failed, both are rebuilt so their histories, and so their cycle counts, stay comparable.
template <class Machine, class Scheduler> class TimedPair {
public:
    using Gpu = typename Machine::template gpu<Scheduler, 4>;

    explicit TimedPair(std::string name) : name_(std::move(name)) { rebuild(); }

    void run(const func::Module& module, const GeneratedKernel& k, std::vector<Observation>& into) {
        into.push_back(run_on(*serial_, 1, module, k));
        into.push_back(run_on(*parallel_, 2, module, k));
        if (!into[into.size() - 1].error.empty() || !into[into.size() - 2].error.empty()) rebuild();
    }

private:
    void rebuild() {
        serial_ = std::make_unique<Gpu>(Machine::template config<Gpu>());
        parallel_ = std::make_unique<Gpu>(Machine::template config<Gpu>());
    }

    Observation run_on(Gpu& gpu, unsigned threads, const func::Module& module, const GeneratedKernel& k) {
        Observation o;
        o.run = name_ + " (warp width " + std::to_string(Gpu::Frontend::warp_width) + "), " + std::to_string(threads) +
                " host thread" + (threads > 1 ? "s" : "");
        func::Device device;
        const Buffers b = allocate(device, k);
        TimingOptions options;
        options.registers_per_thread = k.registers_per_thread;
        options.host_threads = threads;
        options.instruction_limit = instruction_limit;
        options.max_cycles = max_cycles;
        options.deadlock_cycles = deadlock_cycles;
        try {
            const LaunchResult r = gpu.launch(device, module, k.entry, k.config, arguments(b, k), options);
            o.thread_instructions = r.thread_instructions;
            o.cycles = r.cycles;
            o.stats = r.stats;
        } catch (const std::exception& e) {
            o.error = e.what();
        }
        read_back(device, b, k, o);
        return o;
    }

    std::string name_;
    std::unique_ptr<Gpu> serial_, parallel_;
};

// The first index where two buffers differ, as a sentence; empty when equal.
inline std::string first_difference(const char* what, const std::vector<std::uint32_t>& a,
                                    const std::vector<std::uint32_t>& b, std::size_t words_per_thread = 0) {
    if (a.size() != b.size()) return std::string(what) + " sizes differ";
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i]) continue;
        std::ostringstream s;
        s << what << "[" << i << "]";
        if (words_per_thread != 0)
            s << " (global thread " << i / words_per_thread << ", slot " << i % words_per_thread << ")";
        s << ": 0x" << std::hex << a[i] << " vs 0x" << b[i];
        return s.str();
    }
    return {};
}

} // namespace detail

// The runs of one kernel, for reports and tests.
class DifferentialRunner {
public:
    DifferentialRunner()
        : fermi_("Fermi LRR x4"), kepler_("Kepler GTO x4"), southern_islands_("Southern Islands TwoLevel<8> x4") {}

    std::vector<Observation> run_all(const GeneratedKernel& k) {
        std::vector<Observation> runs;
        std::optional<func::Module> parsed;
        try {
            parsed.emplace(func::Module::from_string(k.ptx, "generated.ptx"));
        } catch (const std::exception& e) {
            runs.push_back(Observation{"parse", e.what(), {}, {}, {}, {}, 0, 0, {}});
            return runs;
        }
        const func::Module& module = *parsed;
        runs.push_back(detail::run_functional(module, k, 32));
        runs.push_back(detail::run_functional(module, k, 64));
        fermi_.run(module, k, runs);
        kepler_.run(module, k, runs);
        southern_islands_.run(module, k, runs);
        return runs;
    }

    // Runs `k` everywhere and compares.
    Verdict check(const GeneratedKernel& k) { return compare(k, run_all(k)); }

    static Verdict compare(const GeneratedKernel& k, const std::vector<Observation>& runs) {
        Verdict v;
        auto fail = [&v](const std::string& what) {
            v.agree = false;
            v.report = what;
            return v;
        };
        for (const Observation& o : runs)
            if (!o.error.empty()) return fail(o.run + " failed: " + o.error);
        const Observation& ref = runs.front();
        const std::size_t words_per_thread =
            k.out_words / (std::size_t{k.config.grid.count()} * k.config.block.count());
        for (std::size_t i = 1; i < runs.size(); ++i) {
            const Observation& o = runs[i];
            const std::string between = " between " + ref.run + " and " + o.run;
            for (auto diff : {detail::first_difference("in", ref.input, o.input),
                              detail::first_difference("out", ref.out, o.out, words_per_thread),
                              detail::first_difference("ctr", ref.counters, o.counters),
                              detail::first_difference("xchg", ref.exchange, o.exchange)})
                if (!diff.empty()) return fail(diff + between);
            if (o.thread_instructions != ref.thread_instructions)
                return fail("thread-instructions " + std::to_string(ref.thread_instructions) + " vs " +
                            std::to_string(o.thread_instructions) + between);
        }
        // Timed runs come in (1 host thread, 2 host threads) pairs after the two functional ones.
        for (std::size_t i = 2; i + 1 < runs.size(); i += 2) {
            const Observation& a = runs[i];
            const Observation& b = runs[i + 1];
            if (a.cycles != b.cycles)
                return fail("cycles " + std::to_string(a.cycles) + " vs " + std::to_string(b.cycles) + " between " +
                            a.run + " and " + b.run);
            if (!(a.stats == b.stats)) return fail("statistics differ between " + a.run + " and " + b.run);
        }
        return v;
    }

private:
    detail::TimedPair<machines::Fermi, sched::LRR> fermi_;
    detail::TimedPair<machines::Kepler, sched::GTO> kepler_;
    detail::TimedPair<machines::SouthernIslands, sched::TwoLevel<8>> southern_islands_;
};

} // namespace gpuarch::fuzz
