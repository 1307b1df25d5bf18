#pragma once
// SimdExec: pipelined SIMD execution units as a frontend lists them (UnitSpec), with private and shared units.
//
// Timing contract: a unit of `lanes` lanes takes a warp of W threads in occupancy = ceil(W / lanes) *
// initiation_interval cycles; it accepts its next op `occupancy` cycles after this one, and the result is
// ready at dispatch + latency + occupancy - 1 (the last lane group enters the pipeline occupancy - 1 cycles
// after the first).
// With a per-opcode table (ExecConfig::opcode_timing, GPGPU-Sim's model) the instruction's own latency L and
// interval I replace the unit's: the unit accepts its next op ceil(W / lanes) * I cycles later and the result is
// ready at dispatch + L + (ceil(W / lanes) - 1) * I, so a warp that fits the unit's lanes is ready after exactly L
// however long the unit stays busy (GPGPU-Sim's pipelined_simd_unit).
// Shared units follow the frontend's partitioning (Gong 2020, Sec. 4.4.2): `even` gives each scheduler a
// 1/schedulers slice of every shared unit's lanes; `lowest_index` lets any scheduler take the whole unit, and
// the SM asks schedulers in index order, so the lowest qualified index wins.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <queue>
#include <string_view>
#include <vector>

#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::exec {

class SimdExec {
public:
    static constexpr std::string_view name = "SimdExec";
    // Times operations by unit and opcode; never reads their values (timing::IgnoresResultValues).
    static constexpr bool ignores_result_values = true;

    explicit SimdExec(const timing::ExecConfig& config) : opcode_timing_(config.opcode_timing) {
        for (const auto& spec : config.units) {
            if (!spec.shared) {
                for (unsigned s = 0; s < config.schedulers; ++s)
                    for (unsigned k = 0; k < spec.count; ++k) add(spec, spec.lanes, static_cast<int>(s));
            } else if (config.partitioning == timing::SharedUnitPartitioning::even && config.schedulers > 1) {
                const unsigned slice = std::max(1U, spec.lanes / config.schedulers);
                for (unsigned k = 0; k < spec.count; ++k)
                    for (unsigned s = 0; s < config.schedulers; ++s) add(spec, slice, static_cast<int>(s));
            } else {
                for (unsigned k = 0; k < spec.count; ++k) add(spec, spec.lanes, -1);
            }
        }
    }

    // Index of a free unit of `kind` usable by `scheduler` at `now`, or -1.
    int find_free(timing::UnitKind kind, unsigned scheduler, core::Cycle now) const {
        for (const unsigned i : by_kind_[static_cast<std::size_t>(kind)]) {
            const Unit& u = units_[i];
            if ((u.owner < 0 || u.owner == static_cast<int>(scheduler)) && u.free_at <= now) return static_cast<int>(i);
        }
        return -1;
    }
    bool has_kind(timing::UnitKind kind) const { return !by_kind_[static_cast<std::size_t>(kind)].empty(); }
    bool can_dispatch(timing::UnitKind kind, unsigned scheduler, core::Cycle now) const {
        return find_free(kind, scheduler, now) >= 0;
    }
    // Occupies a free unit; returns the cycle at which the result is ready.
    core::Cycle dispatch(const timing::ExecOp& op, unsigned scheduler, core::Cycle now) {
        const int index = find_free(op.unit, scheduler, now);
        Unit& u = units_[static_cast<std::size_t>(index < 0 ? 0 : index)];
        const unsigned groups = (op.warp_width + u.lanes - 1) / u.lanes;
        unsigned occupancy = groups * u.initiation_interval;
        core::Cycle ready = now + u.latency + occupancy - 1;
        if (opcode_timing_ != nullptr && op.instruction != nullptr) {
            const timing::OpTiming t = timing::lookup(*opcode_timing_, *op.instruction);
            occupancy = groups * t.initiation_interval;
            ready = now + t.latency + core::Cycle{groups - 1} * t.initiation_interval;
        }
        u.free_at = now + occupancy;
        u.busy_cycles += occupancy;
        completions_.push({ready, op.token});
        auto& k = kind_stats_[static_cast<std::size_t>(op.unit)];
        ++k.ops;
        k.active_lane_ops += op.active_lanes;
        k.idle_lane_ops += op.warp_width - op.active_lanes;
        return ready;
    }
    template <class Done> void drain_completed(core::Cycle now, Done&& done) {
        while (!completions_.empty() && completions_.top().ready <= now) {
            done(completions_.top().token);
            completions_.pop();
        }
    }
    bool has_pending() const { return !completions_.empty(); }
    // The cycle at which the earliest instruction in flight completes (none: the largest cycle).
    core::Cycle next_completion() const {
        return completions_.empty() ? std::numeric_limits<core::Cycle>::max() : completions_.top().ready;
    }

    template <class V> void visit_stats(V& v) const {
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k) {
            if (by_kind_[k].empty()) continue;
            const auto kind = static_cast<timing::UnitKind>(k);
            std::uint64_t busy = 0;
            for (const unsigned i : by_kind_[k]) busy += units_[i].busy_cycles;
            const std::string prefix = std::string(timing::name(kind)) + ".";
            v.counter(prefix + "ops", kind_stats_[k].ops, "warp instructions executed");
            v.counter(prefix + "active_lane_ops", kind_stats_[k].active_lane_ops, "lane operations on active lanes");
            v.counter(prefix + "idle_lane_ops", kind_stats_[k].idle_lane_ops,
                      "lane slots left idle by inactive threads");
            v.counter(prefix + "busy_unit_cycles", busy, "sum over units of cycles the issue port was occupied");
            v.counter(prefix + "units", by_kind_[k].size(), "unit instances (slices under even partitioning)");
        }
    }

private:
    struct Unit {
        timing::UnitKind kind;
        unsigned lanes, latency, initiation_interval;
        int owner; // scheduler index, or -1 for any scheduler
        core::Cycle free_at = 0;
        std::uint64_t busy_cycles = 0;
    };
    struct Pending {
        core::Cycle ready;
        std::uint64_t token;
        bool operator>(const Pending& o) const { return ready != o.ready ? ready > o.ready : token > o.token; }
    };
    struct KindStats {
        std::uint64_t ops = 0, active_lane_ops = 0, idle_lane_ops = 0;
    };

    void add(const timing::UnitSpec& spec, unsigned lanes, int owner) {
        by_kind_[static_cast<std::size_t>(spec.kind)].push_back(static_cast<unsigned>(units_.size()));
        units_.push_back(Unit{spec.kind, lanes, spec.latency, spec.initiation_interval, owner});
    }

    const timing::OpcodeTimingTable* opcode_timing_ = nullptr;
    std::vector<Unit> units_;
    std::array<std::vector<unsigned>, timing::unit_kind_count> by_kind_{};
    std::array<KindStats, timing::unit_kind_count> kind_stats_{};
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> completions_;
};

} // namespace gpuarch::exec
