#pragma once
// HAWSScheduler<RCU<Depth>, Base, Trigger, HintSource, TraceIssues, Entry>: the hint-assisted warp scheduler of
// Gong 2020 Ch. 5.
//
// A warp that stalls on a long-latency load (its "stall point") switches to hint mode: the fetch stage follows the
// compiler's hint chain (ir/hints.hpp) and issues only the instructions the chain names, one at a time, while the
// load is outstanding ("HAWS will not attempt to access any instruction that is not pointed to by a hint", Sec.
// 5.3.3). Results go to the per-warp Result Collection Unit (sched/rcu.hpp), renamed destinations through a scalar
// and a vector rename table. When the long-latency flag clears, or the chain ends, or the RCU is full, the warp
// returns to in-order fetch at the stall point; in-order fetch skips the instructions already executed and issues
// a register copy (bypassing execution) for the renamed ones (Sec. 5.3.4, Fig. 5.8).
//
// Division of labour. This header holds the policy: the base scheduler that picks among ready warps, the trigger,
// the storage of the per-warp hint-mode state (one fetch::HintWarp per pool slot: RCU, rename tables, SIMT-stack
// copy, the run-ahead window), the statistics and the hardware cost. The mechanism is the fetch slot's policy
// fetch::HintAssisted (fetch/hint_assisted.hpp), which this scheduler names as its `fetch_policy`; the SM runs it
// through the fetch slot's hooks (timing/fetch.hpp) and names no part of HAWS. docs/haws.md describes the model
// and its deviations.
//
// Contract: with a hint source that gives no hints, HAWSScheduler<R, Base> issues exactly what Base issues, cycle
// for cycle (tests/haws/laws.cpp). Functional results never change: the functional engine still executes every
// warp in program order; hint mode reorders only the timing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/fetch/hint_assisted.hpp>
#include <gpuarch/ir/hint_pass.hpp>
#include <gpuarch/ir/hints.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/sched/gto.hpp>
#include <gpuarch/sched/rcu.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace gpuarch::sched {

// When a warp enters hint mode. The thesis states both: Sec. 5.3.3 and Fig. 5.3 trigger per warp ("When warps stall
// due to a long latency memory operation, the long latency operation flag of the scoreboard is set, which triggers
// HAWS"); the abstract and Ch. 1 trigger "when all warps are stalled". Default: the per-warp flag.
enum class HawsTrigger : std::uint8_t {
    long_latency_flag, // the warp's own stall point waits on a long-latency load
    all_warps_stalled, // and, in addition, every warp of its scheduler waits on a long-latency load
};

// When a stalled warp's long-latency flag counts as set, so that it may enter hint mode (at the next fetch stage).
// Sec. 5.2 ties it to the scheduler: "When the warp scheduler tries to issue instruction 3, from cycles 9 to 12, due
// to the dependency with instruction 1, the warp stalls ... and the long latency operation flag in the scoreboard is
// set to 1"; Sec. 5.3.3 says only "When warps stall due to a long latency memory operation, the long latency
// operation flag of the scoreboard is set, which triggers HAWS". Default: `fetch_check`, which reads Sec. 5.3.3 as
// the scoreboard check of the warp's instruction-buffer head (every cycle, for every warp), so a warp enters as soon
// as its stall point is blocked; the results of docs/haws.md's study were measured so. `failed_issue` is Sec. 5.2's
// reading: only a warp the base scheduler looked at in the issue stage and found blocked enters (a warp that a greedy
// or round-robin base never considers while other warps issue does not); with the figure's strict round-robin it
// reproduces Fig. 5.3 cycle for cycle (tests/haws/fig_5_3_toy.cpp).
enum class HawsEntry : std::uint8_t {
    fetch_check, // the fetch stage sees the warp's stall point blocked on a long-latency load
    failed_issue, // and the base scheduler tried to issue it in this cycle's issue stage and could not
};

// ---------------------------------------------------------------------------------------------------------
// Hardware cost (Gong 2020 Sec. 5.3.6). Field widths are the thesis's; the function reproduces its arithmetic.
struct HawsHardwareCost {
    std::uint64_t rcu_bits = 0; // per SM
    std::uint64_t simt_copy_bits = 0; // per SM
    std::uint64_t rename_bits = 0; // per SM (scalar + vector tables)
    constexpr std::uint64_t total_bits() const { return rcu_bits + simt_copy_bits + rename_bits; }
    constexpr std::uint64_t total_bytes() const { return (rcu_bits + simt_copy_bits + rename_bits) / 8; }
    // KiB with two decimals, rounded down, as an integer count of hundredths (7.34 KB -> 734).
    constexpr std::uint64_t total_kib_hundredths() const { return total_bytes() * 100 / 1024; }
};

struct HawsCostParams {
    unsigned warps_per_sm = 40; // Gong 2020 Sec. 5.3.6: "up to 40 warps per SM"
    unsigned rcu_depth = 8; // Sec. 5.3.3
    unsigned simt_entries = 8; // Sec. 5.3.6: "128 bits per entry, with eight entries"
    unsigned active_mask_bits = 64; // Sec. 5.3.6 (64-wide AMD wavefront)
    unsigned pc_bits = 32; // Sec. 5.3.6: current pc and reconvergence pc, 32 bits each
    unsigned register_bits = 8; // Sec. 5.3.6: 8-bit original and renamed register numbers
};

constexpr HawsHardwareCost haws_hardware_cost(const HawsCostParams& p = {}) {
    HawsHardwareCost c;
    c.rcu_bits = std::uint64_t{p.warps_per_sm} * p.rcu_depth * RcuEntry::bits;
    c.simt_copy_bits = std::uint64_t{p.warps_per_sm} * p.simt_entries * (p.active_mask_bits + 2ULL * p.pc_bits);
    // Two tables (scalar, vector), each sized to the RCU ("we also set the renaming tables to 8 entries").
    c.rename_bits = std::uint64_t{p.warps_per_sm} * 2ULL * p.rcu_depth * (2ULL * p.register_bits);
    return c;
}
static_assert(haws_hardware_cost().rcu_bits == 8960, "Gong 2020 Sec. 5.3.6: the RCU is 8960 bits per SM");
static_assert(haws_hardware_cost().simt_copy_bits == 40960, "Gong 2020 Sec. 5.3.6: the SIMT-stack copy is 40,960 bits");
static_assert(haws_hardware_cost().rename_bits == 10240, "Gong 2020 Sec. 5.3.6: the rename tables are 10,240 bits");
static_assert(haws_hardware_cost().total_kib_hundredths() == 734, "Gong 2020 Sec. 5.3.6: 7.34 KBytes/SM");

// ---------------------------------------------------------------------------------------------------------
// Static scheduling vs HAWS (Sec. 5.3.5, Fig. 5.9), in time units t. A code of `work` units meets stalls s_k; f_k
// units of independent work run during stall k (moved there from later in the code, so they add no time). The
// exposed time is work + sum_k max(0, s_k - f_k).
template <std::size_t N>
constexpr std::uint64_t overlapped_time(std::uint64_t work, const std::array<std::uint64_t, N>& stalls,
                                        const std::array<std::uint64_t, N>& fills) {
    std::uint64_t t = work;
    for (std::size_t k = 0; k < N; ++k) t += stalls[k] > fills[k] ? stalls[k] - fills[k] : 0;
    return t;
}
// What HAWS runs during stall k: the independent work of that stall's own hint group, until the flag clears
// ("HAWS returns to in-order execution whenever a long latency operation is resolved", Sec. 5.2).
template <std::size_t N>
constexpr std::array<std::uint64_t, N> haws_fills(const std::array<std::uint64_t, N>& stalls,
                                                  const std::array<std::uint64_t, N>& independent) {
    std::array<std::uint64_t, N> f{};
    for (std::size_t k = 0; k < N; ++k) f[k] = independent[k] < stalls[k] ? independent[k] : stalls[k];
    return f;
}

// The per-warp state and statistics types live with the mechanism (fetch/hint_assisted.hpp); these names keep
// the scheduler's vocabulary.
template <unsigned Entries> using RenameTable = fetch::RenameTable<Entries>;
template <unsigned Entries> using SimtStackCopy = fetch::SimtStackCopy<Entries>;

// ---------------------------------------------------------------------------------------------------------
// Hint sources: where the scheduler's hints come from (a policy, so tests can hand-build hints).
struct CompilerHints {
    static constexpr std::string_view name = "compiler";
    static ir::KernelHints hints(const ir::Kernel& kernel) { return ir::compute_hints(kernel); }
};
// No instruction carries a hint: HAWS never enters hint mode (the equivalence law with the base scheduler).
struct NoHints {
    static constexpr std::string_view name = "none";
    static ir::KernelHints hints(const ir::Kernel& kernel) { return ir::KernelHints::none(kernel.code.size()); }
};

// The offset, from the stall point, of the next chain instruction after the one at `pc`, given where that
// instruction went (`next_pc`: for a Format 2 hint, the path the branch actually took). 0: the chain ends.
inline std::uint16_t next_hint_offset(const ir::InstructionHint& h, ir::Pc pc, ir::Pc next_pc) {
    switch (h.format) {
    case ir::InstructionHint::Format::format1: return h.f1.target_offset;
    case ir::InstructionHint::Format::format2: return next_pc == pc + 1 ? h.f2.not_taken_offset : h.f2.taken_offset;
    case ir::InstructionHint::Format::none: break;
    }
    return 0;
}

using HawsWindowEntry = fetch::WindowEntry;
using HawsRecordState = fetch::HintRecordState;
template <class Rcu> using HawsWarp = fetch::HintWarp<Rcu>;
using HawsStats = fetch::HintStats;
using HawsIssueEvent = fetch::HintIssueEvent;

namespace detail {
template <std::size_t N> struct HawsName {
    std::array<char, N> chars{};
    std::size_t size = 0;
    constexpr void append(std::string_view s) {
        for (char c : s) chars[size++] = c;
    }
};
} // namespace detail

template <class Rcu = RCU<8>, class Base = GTO, HawsTrigger Trigger = HawsTrigger::long_latency_flag,
          class HintSource = CompilerHints, bool TraceIssues = false, HawsEntry Entry = HawsEntry::fetch_check>
class HAWSScheduler {
    static_assert(timing::Scheduler<Base>, "HAWSScheduler's Base must be a Scheduler (timing/concepts.hpp)");
    static_assert(
        requires { Rcu::depth; }, "HAWSScheduler's first argument must be an RCU<Depth>");
    static_assert(
        requires(const ir::Kernel& k) {
            { HintSource::hints(k) } -> std::convertible_to<ir::KernelHints>;
        },
        "HAWSScheduler's HintSource must provide `static ir::KernelHints hints(const ir::Kernel&)`");

    static constexpr auto name_storage = [] {
        detail::HawsName<128> n;
        n.append("HAWS<RCU<");
        unsigned d = Rcu::depth;
        char digits[4] = {};
        int k = 0;
        do {
            digits[k++] = static_cast<char>('0' + d % 10);
            d /= 10;
        } while (d > 0);
        while (k > 0) n.chars[n.size++] = digits[--k];
        n.append(">,");
        n.append(Base::name);
        if (Trigger == HawsTrigger::all_warps_stalled) n.append(",all-stalled");
        if (Entry == HawsEntry::failed_issue) n.append(",failed-issue");
        if (HintSource::name != CompilerHints::name) {
            n.append(",hints=");
            n.append(HintSource::name);
        }
        n.append(">");
        return n;
    }();

public:
    static constexpr std::string_view name{name_storage.chars.data(), name_storage.size};
    // The fetch slot's policy that runs hint mode (timing/fetch.hpp): this scheduler and it are one design.
    using fetch_policy = fetch::HintAssisted;
    static constexpr HawsTrigger trigger = Trigger;
    static constexpr HawsEntry entry = Entry;
    static constexpr bool trace_issues = TraceIssues;
    // Run-ahead bound per warp: a chain offset has 9 bits (Sec. 5.3.1), so no chain instruction lies further.
    static constexpr unsigned window_limit = 1U << ir::Format1Hint::offset_bits;
    using RcuType = Rcu;
    using Hints = HintSource;
    using Warp = HawsWarp<Rcu>;
    using IssueEvent = HawsIssueEvent;
    static constexpr bool trigger_all_stalled = Trigger == HawsTrigger::all_warps_stalled;
    static constexpr bool enter_on_failed_issue = Entry == HawsEntry::failed_issue;
    static std::uint16_t next_offset(const ir::InstructionHint& h, ir::Pc pc, ir::Pc next_pc) {
        return next_hint_offset(h, pc, next_pc);
    }
    // The register a Format 1 hint renames the destination to (no_reg: not renamed).
    static ir::RegId rename_target(const ir::InstructionHint& h) {
        return h.format == ir::InstructionHint::Format::format1 && h.f1.rename ? h.f1.dst : ir::no_reg;
    }

    explicit HAWSScheduler(const timing::SchedulerConfig& config) : base_(config), warps_(config.pool_size) {}

    // The base picks among ready warps. With HawsEntry::failed_issue, every warp the base asks about and finds not
    // ready is a failed issue attempt (Sec. 5.2), which the SM's next fetch stage reads (failed_issue_at).
    // A failed_issue entry notes every failed attempt, so its select changes the scheduler; otherwise select is
    // the base's, const when the base's is (which lets an SM without warps skip its cycles, SM::skips_vacant_cycles).
    template <timing::SchedulerView View>
        requires(Entry == HawsEntry::failed_issue || !timing::ConstSelect<Base, View>)
    unsigned select(const View& view) {
        if constexpr (Entry == HawsEntry::failed_issue) {
            const AttemptView<View> attempts{view, this};
            return base_.select(attempts);
        } else {
            return base_.select(view);
        }
    }
    template <timing::SchedulerView View>
        requires(Entry != HawsEntry::failed_issue && timing::ConstSelect<Base, View>)
    unsigned select(const View& view) const { return base_.select(view); }
    void on_issue(unsigned slot, core::Cycle now) {
        if constexpr (Entry == HawsEntry::failed_issue) warps_[slot].issued_at = now;
        base_.on_issue(slot, now);
    }
    void on_warp_start(unsigned slot) {
        warps_[slot] = Warp{};
        base_.on_warp_start(slot);
    }
    void on_warp_exit(unsigned slot) { base_.on_warp_exit(slot); }

    Warp& warp(unsigned slot) { return warps_[slot]; }
    const Warp& warp(unsigned slot) const { return warps_[slot]; }
    HawsStats& stats() { return stats_; }
    const HawsStats& stats() const { return stats_; }
    const Base& base() const { return base_; }

    // Warp `slot` returned to in-order fetch: its episode's statistics (and, when tracing, its RCU as it was then).
    void end_episode(unsigned slot, const Warp& warp) {
        const unsigned issued = warp.episode_issued;
        if (stats_.per_episode.size() <= issued) stats_.per_episode.resize(issued + 1, 0);
        ++stats_.per_episode[issued];
        if constexpr (TraceIssues) episode_rcus_.push_back(EpisodeSnapshot{slot, warp.stall_pc, warp.rcu});
    }
    struct EpisodeSnapshot {
        unsigned slot = 0;
        ir::Pc stall_pc = ir::no_pc;
        Rcu rcu;
    };
    const std::vector<EpisodeSnapshot>& episode_snapshots() const { return episode_rcus_; }
    void record_issue(unsigned slot, ir::Pc pc, core::Cycle now, HawsIssueEvent::Kind kind) {
        if constexpr (TraceIssues) trace_.push_back(HawsIssueEvent{now, slot, pc, kind});
    }
    const std::vector<HawsIssueEvent>& trace() const { return trace_; }

    template <class V> void visit_stats(V& v) const {
        if constexpr (requires { base_.visit_stats(v); }) base_.visit_stats(v);
        v.counter("haws.episodes", stats_.episodes, "switches to hint mode (Gong 2020 Fig. 5.13)");
        v.counter("haws.stalls_without_chain", stats_.stalls_without_chain,
                  "long-latency stalls (dynamic stall points) whose instruction carries no hint chain");
        v.counter("haws.hint_issued", stats_.hint_issued, "instructions issued in hint mode");
        v.counter("haws.hint_alu", stats_.hint_alu, "ALU instructions issued in hint mode (Fig. 5.14)");
        v.counter("haws.hint_memory", stats_.hint_memory,
                  "long-latency memory instructions issued in hint mode (Fig. 5.15)");
        v.counter("haws.total_alu", stats_.total_alu, "ALU instructions issued");
        v.counter("haws.total_memory", stats_.total_memory, "long-latency memory instructions issued");
        v.counter("haws.copies", stats_.copies, "register copies issued on return to in-order (renamed results)");
        v.counter("haws.skipped", stats_.skipped, "instructions skipped by in-order fetch (results in place)");
        v.counter("haws.rcu_full", stats_.rcu_full, "episodes stopped by a full RCU");
        v.counter("haws.flushed", stats_.flushed, "hinted instructions fetched but flushed on return");
        v.counter("haws.returns_on_flag", stats_.returns_on_flag, "episodes ended by the long-latency flag clearing");
        v.counter("haws.returns_on_chain_end", stats_.returns_on_chain_end,
                  "episodes ended at the end of the hint chain");
        v.counter("haws.chain_guard_stops", stats_.chain_guard_stops,
                  "chains cut: a hinted instruction depended on a skipped one");
        v.counter("haws.run_ahead_steps", stats_.run_ahead_steps, "instructions executed functionally ahead of fetch");
        v.counter("haws.run_ahead_blocked", stats_.run_ahead_blocked,
                  "chains cut at a barrier, the warp's exit or the window limit");
        v.counter("haws.simt_entries_copied", stats_.simt_entries_copied, "SIMT-stack entries copied on entry");
        v.counter("haws.simt_copy_overflows", stats_.simt_copy_overflows,
                  "stall points whose SIMT stack was deeper than its copy");
        v.histogram("haws.issued_per_episode", stats_.per_episode, "episodes that issued k instructions");
    }

private:
    // The SM's view, except that `ready` also notes the warps found not ready (the base's failed issue attempts).
    // A warp that already issued in this cycle (a machine that selects several times per cycle marks it not ready)
    // made no failed attempt.
    template <class View> struct AttemptView : View {
        // The base must ask ready() slot by slot (timing::NotesReadyAsks): each refusal is noted below.
        static constexpr bool notes_ready_asks = true;
        HAWSScheduler* self;
        bool ready(unsigned i) const {
            const bool r = View::ready(i);
            Warp& w = self->warps_[i];
            if (!r && w.issued_at != View::now()) w.failed_issue_at = View::now();
            return r;
        }
    };

    Base base_;
    std::vector<Warp> warps_;
    HawsStats stats_;
    std::vector<HawsIssueEvent> trace_;
    std::vector<EpisodeSnapshot> episode_rcus_;
};

} // namespace gpuarch::sched
