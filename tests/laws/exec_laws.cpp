// Laws every Exec obeys (timing/concepts.hpp, docs/concepts.md), run over every model of the slot on every
// frontend's unit list: a unit of `lanes` lanes takes a W-thread warp for occupancy = ceil(W / lanes) *
// initiation_interval cycles, and the result is ready latency + occupancy - 1 cycles after dispatch; with a
// frontend's per-opcode table, ready L + (groups - 1) * I cycles after dispatch.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/exec/zero_gated_exec.hpp>
#include <gpuarch/frontend/fermi.hpp>
#include <gpuarch/frontend/gtx480.hpp>
#include <gpuarch/frontend/kepler.hpp>
#include <gpuarch/frontend/southern_islands.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace {
using namespace gpuarch;

// The unit instances of `kind` that each scheduler may use, as the slot's contract describes them (ExecConfig):
// private units per scheduler, shared units split evenly (a lanes / schedulers slice each) or pooled.
template <class F> std::vector<timing::UnitSpec> instances(timing::UnitKind kind) {
    std::vector<timing::UnitSpec> out;
    for (const auto& spec : F::units) {
        if (spec.kind != kind) continue;
        timing::UnitSpec u = spec;
        if (spec.shared && F::shared_unit_partitioning == timing::SharedUnitPartitioning::even && F::schedulers > 1)
            u.lanes = std::max(1U, spec.lanes / F::schedulers);
        for (unsigned k = 0; k < spec.count; ++k) out.push_back(u);
    }
    return out;
}

template <class E, class F> E make_exec(bool with_table) {
    const timing::OpcodeTimingTable* table = nullptr;
    if constexpr (requires { F::opcode_timing; })
        if (with_table) table = &F::opcode_timing;
    return E(timing::ExecConfig{std::span<const timing::UnitSpec>(F::units), F::schedulers, F::shared_unit_partitioning,
                                F::warp_width, table});
}

timing::ExecOp full_warp_op(std::uint64_t token, timing::UnitKind kind, unsigned width,
                            const ir::Instruction* inst = nullptr) {
    timing::ExecOp op;
    op.token = token;
    op.warp = 0;
    op.unit = kind;
    op.active_lanes = width;
    op.warp_width = width;
    op.instruction = inst;
    op.active = core::WarpMask::first(width);
    return op;
}

// The cycle at which `token` is first reported complete, polling every cycle from `from` (none: ~0).
template <class E> core::Cycle completion_cycle(E& exec, std::uint64_t token, core::Cycle from, core::Cycle limit) {
    for (core::Cycle c = from; c <= limit; ++c) {
        bool seen = false;
        exec.drain_completed(c, [&](std::uint64_t t) { seen = seen || t == token; });
        if (seen) return c;
    }
    return ~core::Cycle{0};
}

template <class E, class F> void check_unit_laws() {
    CAPTURE(E::name);
    CAPTURE(F::name);
    for (std::size_t k = 0; k < timing::unit_kind_count; ++k) {
        const auto kind = static_cast<timing::UnitKind>(k);
        for (unsigned s = 0; s < F::schedulers; ++s) {
            const auto units = instances<F>(kind);
            if (units.empty()) continue;
            CAPTURE(timing::name(kind));
            CAPTURE(s);
            // One op alone: the first usable instance takes it (private units come in the order of F::units), and
            // its result is ready exactly latency + occupancy - 1 cycles later.
            {
                E exec = make_exec<E, F>(false);
                const core::Cycle t0 = 100;
                REQUIRE(exec.can_dispatch(kind, s, t0));
                exec.dispatch(full_warp_op(1, kind, F::warp_width), s, t0);
                const auto& u = units.front();
                const unsigned occupancy = (F::warp_width + u.lanes - 1) / u.lanes * u.initiation_interval;
                CHECK(completion_cycle(exec, 1, t0, t0 + 4096) == t0 + u.latency + occupancy - 1);
            }
            // Every instance busy: no dispatch until the earliest occupancy has passed, then one.
            E exec = make_exec<E, F>(false);
            const core::Cycle t0 = 50;
            unsigned dispatched = 0;
            while (exec.can_dispatch(kind, s, t0))
                exec.dispatch(full_warp_op(++dispatched, kind, F::warp_width), s, t0);
            CHECK(dispatched >= 1);
            unsigned min_occupancy = ~0U;
            for (const auto& u : units)
                min_occupancy =
                    std::min(min_occupancy, (F::warp_width + u.lanes - 1) / u.lanes * u.initiation_interval);
            for (core::Cycle c = t0; c < t0 + min_occupancy; ++c) CHECK_FALSE(exec.can_dispatch(kind, s, c));
            CHECK(exec.can_dispatch(kind, s, t0 + min_occupancy));
        }
    }
}

} // namespace

TEST_CASE_TEMPLATE("an Exec unit is busy for its occupancy and its result is ready latency + occupancy - 1 cycles "
                   "after dispatch",
                   E, exec::SimdExec, exec::ZeroGatedExec) {
    static_assert(timing::check_exec<E>());
    check_unit_laws<E, frontend::FermiFrontend>();
    check_unit_laws<E, frontend::GTX480Frontend>();
    check_unit_laws<E, frontend::KeplerFrontend>();
    check_unit_laws<E, frontend::SouthernIslandsFrontend>();
}

TEST_CASE_TEMPLATE("with a frontend's opcode table, an Exec result is ready L + (groups - 1) * I cycles after "
                   "dispatch and the unit is busy groups * I cycles",
                   E, exec::SimdExec, exec::ZeroGatedExec) {
    using F = frontend::GTX480Frontend;
    for (const ir::Opcode opcode : {ir::Opcode::add, ir::Opcode::mul, ir::Opcode::div, ir::Opcode::mad}) {
        for (const ir::ScalarType type : {ir::ScalarType::s32, ir::ScalarType::f32, ir::ScalarType::f64}) {
            ir::Instruction inst;
            inst.op = opcode;
            inst.type = type;
            const timing::OpTiming t = timing::lookup(F::opcode_timing, inst);
            CAPTURE(static_cast<int>(opcode));
            CAPTURE(static_cast<int>(type));
            E exec = make_exec<E, F>(true);
            const core::Cycle t0 = 10;
            const timing::UnitKind kind = timing::UnitKind::sp;
            exec.dispatch(full_warp_op(7, kind, F::warp_width, &inst), 0, t0);
            const unsigned lanes = instances<F>(kind).front().lanes;
            const unsigned groups = (F::warp_width + lanes - 1) / lanes;
            CHECK(completion_cycle(exec, 7, t0, t0 + 4096) == t0 + t.latency + (groups - 1) * t.initiation_interval);
            // The unit of scheduler 0 that took it is free again after groups * I cycles: the SP units of the GTX480
            // are shared by both schedulers, so fill the others first.
            while (exec.can_dispatch(kind, 0, t0)) exec.dispatch(full_warp_op(8, kind, F::warp_width, &inst), 0, t0);
            CHECK(exec.can_dispatch(kind, 0, t0 + groups * t.initiation_interval));
        }
    }
}
