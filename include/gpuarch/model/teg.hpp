#pragma once
// TEG-style trace-driven timing model of one SM (Lai 2013 Ch. 3, "Timing Estimation tool for
// GPU"; Lai, Seznec, RAPIDO 2012).
//
// Model (Lai 2013 Sec. 3.2.1, 3.2.2): the SM is an issue engine in front of functional units
// (SP, SFU, DPU, LD/ST). Every `issue_period` cycles (2 on GT200) the engine issues at most one
// warp instruction from the active warps, picked by the warp-selection policy among warps whose
// next instruction
//   - has all source registers ready (scoreboard; a warp issues in program order, so a
//     stalled instruction stalls everything behind it in that warp),
//   - belongs to a warp that is not inactive: after issuing, a warp stays inactive for the
//     instruction's *same-warp issue latency*,
//   - targets a unit that accepts work: after accepting one, a unit accepts the next only
//     after the instruction's *multiple-warp issue latency* (and, optionally, while fewer than
//     `max_in_flight` instructions execute in it).
// An issued instruction is active in its unit for its *execution latency*; its destination
// registers become ready when it finishes. Pipeline stages, caches and the DRAM system are not
// modelled, as in TEG.
//
// Degradation is latency substitution (Sec. 3.2.1): an arithmetic instruction with a shared-
// memory operand takes the shared-operand latency, 74 cycles conflict-free and 266 with a
// 16-way conflict (Sec. 3.2.3.3); intermediate conflict degrees interpolate linearly between
// those two measurements (our inference: the accesses serialise). `model_shared_conflicts =
// false` is TEG's what-if switch "all shared memory accesses are conflict-free" (Sec. 3.4).
//
// Choices where the thesis is silent (documented in docs/models.md):
//   - only source registers are checked (the thesis: "issued when all the source operands are
//     ready"); a write-after-write on a register does not stall;
//   - a barrier takes an issue slot but no unit; a warp waits at it until every unfinished warp
//     of its CTA has arrived, and all of them may issue again from the next issue slot;
//   - global stores use the GLD.U32 issue latencies and the global latency;
//   - the SFU class has no timing in Table 3.1, so the GT200 set leaves it unknown and a trace
//     that uses it is rejected with a message.

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpuarch/model/trace_record.hpp"

namespace gpuarch::model {

enum class TegUnit : std::uint8_t { sp, sfu, dpu, ldst, none };

inline constexpr std::size_t teg_unit_count = 4; // `none` (barriers) is not a unit

constexpr std::string_view teg_unit_name(TegUnit u) {
    switch (u) {
    case TegUnit::sp: return "SP";
    case TegUnit::sfu: return "SFU";
    case TegUnit::dpu: return "DPU";
    case TegUnit::ldst: return "LD/ST";
    case TegUnit::none: return "none";
    }
    return "?";
}

// The three latency properties of a warp instruction (Lai 2013 Sec. 3.2.2.1).
struct ClassTiming {
    TegUnit unit = TegUnit::sp;
    std::uint32_t execution_latency = 0;
    std::uint32_t issue_latency_multi_warp = 0;
    std::uint32_t issue_latency_same_warp = 0;
    bool known = false; // false: no published numbers; a trace using the class is rejected
};

enum class WarpSelection : std::uint8_t {
    // Lai 2013 Sec. 3.5: next_wc = (current_wc + 1) % WARP_NUM, i.e. start looking at the warp
    // after the one that issued last and take the first ready one.
    round_robin,
    // Always prefer the lowest-numbered ready warp.
    lowest_index_first,
};

struct TegParams {
    std::string_view name;
    std::uint32_t issue_period = 2;
    std::array<ClassTiming, instr_class_count> classes{};
    std::uint32_t shared_operand_latency = 0;
    std::uint32_t shared_operand_full_conflict_latency = 0;
    std::uint8_t shared_full_conflict_ways = 16;
    bool model_shared_conflicts = true;
    std::array<std::uint32_t, teg_unit_count> max_in_flight{}; // 0 = unlimited
    std::uint32_t sp_active_cycles_per_issue = 4; // Sec. 3.5: "SP is active for 4 cycles"
    WarpSelection selection = WarpSelection::round_robin;

    constexpr const ClassTiming& timing(InstrClass c) const { return classes[static_cast<std::size_t>(c)]; }
    constexpr ClassTiming& timing(InstrClass c) { return classes[static_cast<std::size_t>(c)]; }
};

// GT200 parameters.
constexpr TegParams teg_gt200() {
    TegParams p{};
    p.name = "TEG GT200";
    p.issue_period = 2; // Lai 2013 Sec. 3.2.1: "Every 2 cycles, the issue engine selects one ..."
    auto set = [&p](InstrClass c, TegUnit u, std::uint32_t exec, std::uint32_t multi, std::uint32_t same) {
        p.timing(c) = ClassTiming{u, exec, multi, same, true};
    };
    // Lai 2013 Table 3.1 (execution and multi-warp columns from Wong et al., ISPASS 2010).
    // FMUL issues every 2 cycles because it can go to the SPs or the SFUs; we keep it on the SP
    // unit with that 2-cycle interval, which gives the combined rate.
    set(InstrClass::int_alu, TegUnit::sp, 24, 4, 8);
    set(InstrClass::int_mul16, TegUnit::sp, 24, 4, 8);
    set(InstrClass::int_mad16, TegUnit::sp, 24, 4, 8);
    set(InstrClass::fp32_add, TegUnit::sp, 24, 4, 8);
    set(InstrClass::fp32_mul, TegUnit::sp, 24, 2, 8);
    set(InstrClass::fp32_mad, TegUnit::sp, 24, 4, 8);
    set(InstrClass::fp64_add, TegUnit::dpu, 48, 32, 32);
    set(InstrClass::fp64_mul, TegUnit::dpu, 48, 32, 32);
    set(InstrClass::fp64_fma, TegUnit::dpu, 48, 32, 32);
    // Lai 2013 Sec. 3.2.2.2: GLD.U32 same-warp issue latency ~60, multi-warp 4 "we use 4 cycles
    // in TEG"; Sec. 3.2.2.4: global latency 436-443 cycles without TLB miss (lower end taken).
    set(InstrClass::global_load, TegUnit::ldst, 436, 4, 60);
    set(InstrClass::global_store, TegUnit::ldst, 436, 4, 60); // assumption: as GLD.U32
    set(InstrClass::barrier, TegUnit::none, 0, 0, 0); // semantics in teg_estimate
    // Lai 2013 Sec. 3.2.3.3: FADD32 with a shared-memory operand, 74 cycles conflict-free,
    // ~266 cycles when all 16 threads of a half-warp hit one bank.
    p.shared_operand_latency = 74;
    p.shared_operand_full_conflict_latency = 266;
    p.shared_full_conflict_ways = 16;
    return p;
}

// Latency of an arithmetic instruction with a shared-memory operand at a conflict degree.
constexpr std::uint32_t teg_shared_operand_latency(const TegParams& p, unsigned ways) {
    if (ways < 1 || ways > p.shared_full_conflict_ways) {
        throw std::invalid_argument("teg: shared_conflict_ways must lie in [1, shared_full_conflict_ways]");
    }
    if (!p.model_shared_conflicts || ways == 1 || p.shared_full_conflict_ways == 1) return p.shared_operand_latency;
    const std::uint64_t extra = p.shared_operand_full_conflict_latency - p.shared_operand_latency;
    const std::uint64_t steps = p.shared_full_conflict_ways - 1u;
    return p.shared_operand_latency + static_cast<std::uint32_t>((extra * (ways - 1u) + steps - 1u) / steps);
}

// Lai 2013 Sec. 3.2.2.1: clock() costs the S2R -> SHL dependence (execution latency of an
// integer instruction) plus the SHL's issue latency: 24 + 4 = 28 cycles on GT200.
constexpr std::uint32_t teg_clock_overhead(const TegParams& p) {
    const ClassTiming& t = p.timing(InstrClass::int_alu);
    return t.execution_latency + t.issue_latency_multi_warp;
}

// Lai 2013 Sec. 3.2.2.1: execution latency from a clock() measurement around n dependent
// instructions: (measured - overhead - same_warp_issue) / (n - 1).
constexpr double latency_from_clock_measurement(double measured_cycles, int dependent_instructions,
                                                double clock_overhead, double same_warp_issue_latency) {
    if (dependent_instructions < 2)
        throw std::invalid_argument("latency_from_clock_measurement: need at least 2 instructions");
    return (measured_cycles - clock_overhead - same_warp_issue_latency) / (dependent_instructions - 1);
}

// Lai 2013 Sec. 3.5: the most instructions of one class a unit holds at once when it is fed
// back to back ("issued ... every 4 cycles ... latency of 24 cycles ... maximum ... is 6").
constexpr std::uint32_t teg_max_in_flight(const TegParams& p, InstrClass c) {
    const ClassTiming& t = p.timing(c);
    const std::uint32_t interval = std::max(t.issue_latency_multi_warp, p.issue_period);
    if (interval == 0) throw std::invalid_argument("teg_max_in_flight: zero issue interval");
    return (t.execution_latency + interval - 1) / interval;
}

// Error convention of Lai 2013 Tables 3.2-3.6: (predicted - measured) / predicted.
constexpr double teg_relative_error(double predicted, double measured) {
    if (!(predicted > 0.0)) throw std::invalid_argument("teg_relative_error: predicted must be positive");
    return (predicted - measured) / predicted;
}

struct TegUnitStats {
    std::uint64_t issued = 0;
    std::uint32_t max_in_flight = 0; // Sec. 3.5 "workload" peak
    std::uint64_t busy_cycles = 0; // sum of execution latencies: integral of the workload
};

struct TegResult {
    std::uint64_t cycles = 0; // completion of the last instruction
    std::uint64_t last_issue_cycle = 0;
    std::uint64_t instructions = 0;
    std::array<TegUnitStats, teg_unit_count> units{};
    std::uint64_t sp_active_cycles = 0;
    std::vector<std::uint64_t> issue_cycle; // per input record, in input order
    std::vector<std::uint32_t> warp_ids; // distinct warp ids, ascending
    std::vector<std::uint64_t> warp_finish; // per warp_ids entry: completion of its last instruction

    constexpr const TegUnitStats& unit(TegUnit u) const {
        if (u == TegUnit::none) throw std::invalid_argument("teg: 'none' is not a functional unit");
        return units[static_cast<std::size_t>(u)];
    }
    // Sec. 3.5 "active percentage" of the SP.
    constexpr double sp_active_fraction() const {
        return cycles == 0 ? 0.0 : static_cast<double>(sp_active_cycles) / static_cast<double>(cycles);
    }
    // Time-averaged number of instructions executing in a unit.
    constexpr double mean_in_flight(TegUnit u) const {
        return cycles == 0 ? 0.0 : static_cast<double>(unit(u).busy_cycles) / static_cast<double>(cycles);
    }
};

namespace detail {

struct TegWarpState {
    std::vector<std::size_t> order; // record indices in program order
    std::size_t cursor = 0;
    std::uint64_t inactive_until = 0;
    bool at_barrier = false;
    bool done = false;
    std::uint32_t cta = 0;
    std::vector<std::uint64_t> ready; // per register: cycle its pending value is available
};

[[noreturn]] inline void teg_unknown_class(std::string_view params, InstrClass c) {
    std::string msg = "teg: parameter set '";
    msg.append(params);
    msg.append("' has no timing for instruction class '");
    msg.append(instr_class_name(c));
    msg.append("' (set TegParams::classes for it)");
    throw std::invalid_argument(msg);
}

} // namespace detail

constexpr TegResult teg_estimate(std::span<const TraceRecord> trace, const TegParams& p) {
    if (p.issue_period == 0) throw std::invalid_argument("teg: issue_period must be positive");
    TegResult r{};
    r.issue_cycle.assign(trace.size(), 0);

    // Warps, in ascending id order; per-warp program order and register file size.
    for (const TraceRecord& rec : trace) r.warp_ids.push_back(rec.warp);
    std::sort(r.warp_ids.begin(), r.warp_ids.end());
    r.warp_ids.erase(std::unique(r.warp_ids.begin(), r.warp_ids.end()), r.warp_ids.end());
    const std::size_t warp_count = r.warp_ids.size();
    r.warp_finish.assign(warp_count, 0);
    if (warp_count == 0) return r;

    std::vector<detail::TegWarpState> warps(warp_count);
    std::size_t register_count = 1;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const TraceRecord& rec = trace[i];
        const ClassTiming& tm = p.timing(rec.cls);
        if (!tm.known) {
            if (std::is_constant_evaluated()) throw std::invalid_argument("teg: instruction class without timing");
            detail::teg_unknown_class(p.name, rec.cls);
        }
        if (rec.cls != InstrClass::barrier && tm.unit == TegUnit::none) {
            throw std::invalid_argument("teg: only barriers may use TegUnit::none");
        }
        if (is_global_access(rec.cls) && !rec.memory) {
            throw std::invalid_argument("teg: a global_load/global_store record must carry the memory flag");
        }
        if (rec.cls == InstrClass::barrier && (rec.memory || !rec.dst.empty())) {
            throw std::invalid_argument("teg: a barrier record has no memory operand and no destination");
        }
        if (rec.memory && !is_global_access(rec.cls) &&
            (rec.shared_conflict_ways < 1 || rec.shared_conflict_ways > p.shared_full_conflict_ways)) {
            throw std::invalid_argument("teg: shared_conflict_ways must lie in [1, shared_full_conflict_ways]");
        }
        for (RegisterId d : rec.dst) register_count = std::max<std::size_t>(register_count, std::size_t{d} + 1);
        for (RegisterId s : rec.src) register_count = std::max<std::size_t>(register_count, std::size_t{s} + 1);
        const auto w = static_cast<std::size_t>(std::lower_bound(r.warp_ids.begin(), r.warp_ids.end(), rec.warp) -
                                                r.warp_ids.begin());
        if (warps[w].order.empty()) {
            warps[w].cta = rec.cta;
        } else if (warps[w].cta != rec.cta) {
            throw std::invalid_argument("teg: records of one warp carry different CTA ids");
        }
        warps[w].order.push_back(i);
    }
    for (auto& w : warps) w.ready.assign(register_count, 0);

    constexpr std::uint64_t never = std::numeric_limits<std::uint64_t>::max();
    std::array<std::uint64_t, teg_unit_count> next_accept{};
    std::array<std::vector<std::uint64_t>, teg_unit_count> in_flight{}; // min-heaps of completions
    const std::greater<std::uint64_t> later{};

    auto retire = [&](std::size_t u, std::uint64_t now) {
        auto& h = in_flight[u];
        while (!h.empty() && h.front() <= now) {
            std::pop_heap(h.begin(), h.end(), later);
            h.pop_back();
        }
    };

    // Earliest cycle at which warp w's next instruction satisfies every condition except the
    // issue slot itself; `never` while the warp waits at a barrier or has finished.
    auto earliest = [&](std::size_t w) -> std::uint64_t {
        const detail::TegWarpState& ws = warps[w];
        if (ws.done || ws.at_barrier) return never;
        const TraceRecord& rec = trace[ws.order[ws.cursor]];
        std::uint64_t e = ws.inactive_until;
        for (RegisterId s : rec.src) e = std::max(e, ws.ready[s]);
        const ClassTiming& tm = p.timing(rec.cls);
        if (tm.unit != TegUnit::none) {
            const auto u = static_cast<std::size_t>(tm.unit);
            e = std::max(e, next_accept[u]);
            const std::uint32_t cap = p.max_in_flight[u];
            if (cap != 0 && in_flight[u].size() >= cap) e = std::max(e, in_flight[u].front());
        }
        return e;
    };

    // A barrier opens when no unfinished warp of the CTA is still running towards it.
    auto try_release = [&](std::uint32_t cta, std::uint64_t now) {
        bool waiting = false;
        for (const auto& ws : warps) {
            if (ws.cta != cta || ws.done) continue;
            if (!ws.at_barrier) return;
            waiting = true;
        }
        if (!waiting) return;
        for (auto& ws : warps) {
            if (ws.cta == cta && ws.at_barrier) {
                ws.at_barrier = false;
                ws.inactive_until = std::max(ws.inactive_until, now + p.issue_period);
            }
        }
    };

    std::size_t finished = 0;
    std::size_t last = warp_count - 1;
    std::uint64_t t = 0;
    while (finished < warp_count) {
        for (std::size_t u = 0; u < teg_unit_count; ++u) retire(u, t);

        const std::size_t start = p.selection == WarpSelection::round_robin ? (last + 1) % warp_count : 0;
        std::size_t pick = warp_count;
        for (std::size_t k = 0; k < warp_count; ++k) {
            const std::size_t w = (start + k) % warp_count;
            if (earliest(w) <= t) {
                pick = w;
                break;
            }
        }

        if (pick == warp_count) {
            std::uint64_t next = never;
            for (std::size_t w = 0; w < warp_count; ++w) next = std::min(next, earliest(w));
            if (next == never) throw std::logic_error("teg: every remaining warp waits at a barrier that cannot open");
            next = std::max(next, t + p.issue_period);
            t = (next + p.issue_period - 1) / p.issue_period * p.issue_period; // next issue slot
            continue;
        }

        detail::TegWarpState& ws = warps[pick];
        const std::size_t index = ws.order[ws.cursor];
        const TraceRecord& rec = trace[index];
        const ClassTiming& tm = p.timing(rec.cls);
        r.issue_cycle[index] = t;
        r.last_issue_cycle = t;
        ++r.instructions;
        std::uint64_t completion = t;

        if (rec.cls == InstrClass::barrier) {
            ws.inactive_until = t + tm.issue_latency_same_warp;
            ++ws.cursor;
            if (ws.cursor == ws.order.size()) {
                ws.done = true;
                ++finished;
            } else {
                ws.at_barrier = true;
            }
            try_release(ws.cta, t);
        } else {
            const std::uint32_t latency = (rec.memory && !is_global_access(rec.cls))
                                              ? teg_shared_operand_latency(p, rec.shared_conflict_ways)
                                              : tm.execution_latency;
            const auto u = static_cast<std::size_t>(tm.unit);
            next_accept[u] = t + tm.issue_latency_multi_warp;
            ws.inactive_until = t + tm.issue_latency_same_warp;
            completion = t + latency;
            for (RegisterId d : rec.dst) ws.ready[d] = completion;
            in_flight[u].push_back(completion);
            std::push_heap(in_flight[u].begin(), in_flight[u].end(), later);
            TegUnitStats& us = r.units[u];
            ++us.issued;
            us.busy_cycles += latency;
            us.max_in_flight = std::max(us.max_in_flight, static_cast<std::uint32_t>(in_flight[u].size()));
            if (tm.unit == TegUnit::sp) r.sp_active_cycles += p.sp_active_cycles_per_issue;
            ++ws.cursor;
            if (ws.cursor == ws.order.size()) {
                ws.done = true;
                ++finished;
                try_release(ws.cta, t);
            }
        }
        r.warp_finish[pick] = std::max(r.warp_finish[pick], completion);
        r.cycles = std::max(r.cycles, completion);
        last = pick;
        t += p.issue_period;
    }
    return r;
}

// Any range of TraceRecord (a vector, an array, a view over an executor's output).
template <std::ranges::input_range R>
    requires std::same_as<std::remove_cvref_t<std::ranges::range_reference_t<R>>, TraceRecord>
constexpr TegResult teg_estimate(R&& trace, const TegParams& p) {
    if constexpr (std::ranges::contiguous_range<R> && std::ranges::sized_range<R>) {
        return teg_estimate(std::span<const TraceRecord>(std::ranges::data(trace), std::ranges::size(trace)), p);
    } else {
        std::vector<TraceRecord> copy;
        for (auto&& rec : trace) copy.push_back(rec);
        return teg_estimate(std::span<const TraceRecord>(copy), p);
    }
}

} // namespace gpuarch::model
