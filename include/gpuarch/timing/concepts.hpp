#pragma once
// The five policy slots of an SM and the concepts that check them.
//
// Each concept has a prose block: minimal complete definition, laws, models. `gpuarch::SM<...>` calls the
// `check_*` functions below, whose `static_assert`s say in one sentence which slot lacks which member, instead
// of a wall of template text. Laws that a type system cannot state are run over every model in tests/laws/.
#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>
#include <gpuarch/timing/opcode_timing.hpp>

namespace gpuarch::timing {

template <class P>
concept Named = requires {
    { P::name } -> std::convertible_to<std::string_view>;
};

// ---------------------------------------------------------------------------------------------------------
// Frontend: the machine personality. A stateless type of constexpr knobs.
//
// Minimal complete definition:
//   name; warp_width (32, 64, or a multiple of 32 for large warps); schedulers (per SM);
//   dispatch_per_scheduler; issue_rule (IssueRule); max_warps, max_ctas, max_threads, max_registers,
//   max_shared_bytes (occupancy limits per SM); ibuffer_entries (decoded instructions per warp);
//   fetch_per_warp (instructions fetched per warp per cycle); units (an array of UnitSpec);
//   shared_unit_partitioning; unit_for(ir::OpClass) -> UnitKind; register_allocation_unit (registers are allocated
//   per warp in multiples of it; GPU's occupancy check uses it).
// Optional: opcode_timing (an OpcodeTimingTable, timing/opcode_timing.hpp): per-opcode latency and interval in
//   place of the units' (GPGPU-Sim's tables; the GTX480 frontend).
// Laws: every UnitKind returned by unit_for has a UnitSpec in `units`; max_threads <= max_warps * warp_width.
// Models: FermiFrontend, GTX480Frontend, KeplerFrontend, KeplerGK104Frontend, SouthernIslandsFrontend,
//   LargeWarpFrontend<...> (frontend/large_warp.hpp; the barrel core's frontends, barrel/concepts.hpp, add pipeline
//   positions).
template <class F>
concept Frontend = Named<F> && requires(ir::OpClass c) {
    { F::warp_width } -> std::convertible_to<unsigned>;
    { F::schedulers } -> std::convertible_to<unsigned>;
    { F::dispatch_per_scheduler } -> std::convertible_to<unsigned>;
    { F::issue_rule } -> std::convertible_to<IssueRule>;
    { F::max_warps } -> std::convertible_to<unsigned>;
    { F::max_ctas } -> std::convertible_to<unsigned>;
    { F::max_threads } -> std::convertible_to<unsigned>;
    { F::max_registers } -> std::convertible_to<unsigned>;
    { F::max_shared_bytes } -> std::convertible_to<unsigned>;
    { F::ibuffer_entries } -> std::convertible_to<unsigned>;
    { F::fetch_per_warp } -> std::convertible_to<unsigned>;
    { F::register_allocation_unit } -> std::convertible_to<unsigned>;
    { F::shared_unit_partitioning } -> std::convertible_to<SharedUnitPartitioning>;
    {std::span<const UnitSpec>(F::units)};
    { F::unit_for(c) } -> std::same_as<UnitKind>;
};

// ---------------------------------------------------------------------------------------------------------
// What a scheduler sees of its warp pool in one cycle (the SM implements it; tests use archetypes).
// Pool slot i is the scheduler's i-th warp slot; the SM maps it to an SM warp slot.
template <class V>
concept SchedulerView = requires(const V v, unsigned i) {
    { v.pool_size() } -> std::convertible_to<unsigned>;
    { v.occupied(i) } -> std::convertible_to<bool>; // a warp lives in slot i
    { v.ready(i) } -> std::convertible_to<bool>; // it can issue this cycle
    { v.age(i) } -> std::convertible_to<std::uint64_t>; // launch order: smaller is older
    { v.long_latency_pending(i) } -> std::convertible_to<bool>; // it waits on a pending global/local load
    { v.l1() } -> std::convertible_to<L1View>;
    { v.now() } -> std::convertible_to<core::Cycle>;
};

// The smallest type that models SchedulerView, used to check schedulers in isolation.
struct SchedulerViewArchetype {
    unsigned pool_size() const;
    bool occupied(unsigned) const;
    bool ready(unsigned) const;
    std::uint64_t age(unsigned) const;
    bool long_latency_pending(unsigned) const;
    L1View l1() const;
    core::Cycle now() const;
};
static_assert(SchedulerView<SchedulerViewArchetype>);

struct SchedulerConfig {
    unsigned pool_size = 0; // warp slots this scheduler owns
    unsigned index = 0; // which scheduler of the SM
};

// Scheduler: which ready warp issues, per scheduler, per cycle.
//
// Minimal complete definition: name; constructible from SchedulerConfig; `select(view)` returning a pool
// slot or `no_warp`; `on_issue(slot, cycle)`, `on_warp_start(slot)`, `on_warp_exit(slot)` notifications.
// Laws (tests/laws/scheduler_laws.cpp runs them over every model): select never returns a slot that is not
// ready; it returns no_warp only if no slot is ready (work conservation); a deterministic function of the
// notification history and the view.
// Optional hooks (attach, on_kernel_launch, on_memory_complete, ...) are named concepts in timing/hooks.hpp; a
// scheduler may name its fetch policy (timing/fetch.hpp).
// Models: LRR, GTO, TwoLevel<G>, TwoLevelActive<N>, LocalityTwoLevel<G>, SWL<K>, CCWS<...>, OAWSStatic<...>,
//   OAWSDynamic<...>, MASCAR<...>, HAWSScheduler<...> (sched/); tests/laws/scheduler_laws.cpp runs the laws over all
//   of them on a view that previews instructions.
template <class S>
concept Scheduler = Named<S> && std::constructible_from<S, const SchedulerConfig&> &&
    requires(S s, const SchedulerViewArchetype& view, unsigned slot, core::Cycle now) {
    { s.select(view) } -> std::convertible_to<unsigned>;
    s.on_issue(slot, now);
    s.on_warp_start(slot);
    s.on_warp_exit(slot);
};

// ---------------------------------------------------------------------------------------------------------
struct RegisterFileConfig {
    unsigned warp_slots = 0;
    unsigned schedulers = 1;
    unsigned warp_width = 32;
};

// RegisterFile: operand reads and result writes, with banks, collectors and conflicts.
//
// Minimal complete definition: name; constructible from RegisterFileConfig;
//   can_accept(read) / accept(read, cycle): take an instruction's operand reads into a collector;
//   cycle(now): arbitrate bank ports for this cycle;
//   dispatch_ready(try_dispatch): offer each collector whose operands are all read; try_dispatch(token)
//     returns true when the execution side took it, and the collector is then freed;
//   write(write, cycle) / drain_written(done): writes, done(token) once the bank port wrote them;
//   visit_stats(visitor).
// Laws: every accepted read is eventually offered; a collector is offered only after all its operands were
// read; every write eventually completes; with no conflicts IdealRF adds no cycle.
// Models: IdealRF, BankedRF<Banks, Collectors, BankMap>, KeplerBankedRF, CoalescingRF<...>, CORF<...>,
//   ZeroGatedRF<...> (regfile/); PerLaneBankedRF is the barrel core's (barrel/concepts.hpp).
template <class R>
concept RegisterFile = Named<R> && std::constructible_from<R, const RegisterFileConfig&> &&
    requires(R r, const R cr, const OperandRead& read, const RegisterWrite& write, core::Cycle now,
             bool (*try_dispatch)(std::uint64_t), void (*done)(std::uint64_t)) {
    { cr.can_accept(read) } -> std::convertible_to<bool>;
    r.accept(read, now);
    r.cycle(now);
    r.dispatch_ready(try_dispatch);
    r.write(write, now);
    r.drain_written(done);
};

// ---------------------------------------------------------------------------------------------------------
struct ExecConfig {
    std::span<const UnitSpec> units;
    unsigned schedulers = 1;
    SharedUnitPartitioning partitioning = SharedUnitPartitioning::even;
    unsigned warp_width = 32;
    // The frontend's per-opcode table (timing/opcode_timing.hpp), or null: every op takes its unit's latency and
    // interval. Not owned; a frontend's static constexpr table outlives every SM.
    const OpcodeTimingTable* opcode_timing = nullptr;
};

// Exec: the execution units, their occupancy and lane accounting.
//
// Minimal complete definition: name; constructible from ExecConfig;
//   can_dispatch(kind, scheduler, now): a unit of that kind usable by that scheduler is free this cycle;
//   dispatch(op, scheduler, now); drain_completed(now, done): done(token) for each op whose result is ready
//   at `now`; visit_stats(visitor).
// Laws (tests/laws/exec_laws.cpp runs them over every model and frontend): a unit of `lanes` lanes takes a W-thread
// warp for occupancy = ceil(W / lanes) * initiation_interval cycles and takes no new op before then; the result of an
// op dispatched at t is ready at t + latency + occupancy - 1 (with a frontend's opcode table: t + L + (groups - 1) * I,
// groups = ceil(W / lanes)).
// Models: SimdExec, ZeroGatedExec.
template <class E>
concept Exec = Named<E> && std::constructible_from<E, const ExecConfig&> &&
    requires(E e, const E ce, const ExecOp& op, UnitKind kind, unsigned scheduler, core::Cycle now,
             void (*done)(std::uint64_t)) {
    { ce.can_dispatch(kind, scheduler, now) } -> std::convertible_to<bool>;
    e.dispatch(op, scheduler, now);
    e.drain_completed(now, done);
};

// ---------------------------------------------------------------------------------------------------------
// L1: the LSU, coalescer, L1 data cache with MSHRs, shared and constant memory of one SM.
//
// Minimal complete definition: name; a nested Config and a constructor (const Config&, sm_id);
//   can_accept(), accept(access, now), cycle(now, downstream), receive(packet, now),
//   drain_completed(done), view() -> L1View, lsu_state(), visit_stats(visitor).
//   (Types of access/packet/downstream are in mem/; see mem/access.hpp.)
// Laws (tests/laws/l1_laws.cpp runs them over every model and preset): every accepted access completes; loads of
// one line complete in acceptance order; IdealMemory<L> completes every access exactly L cycles after acceptance.
// The SM checks the whole interface with the mem/ types (check_l1_interface below).
// Models: IdealMemory<Latency>, L1<MSHR<N>, ...> and its presets (mem/presets.hpp).
template <class L>
concept L1Slot = Named<L> && requires {
    typename L::Config;
} && std::constructible_from<L, const typename L::Config&, std::uint32_t> && requires(const L cl) {
    { cl.can_accept() } -> std::convertible_to<bool>;
    cl.view(); // a view with mshr_total, mshr_free, lsu_queue_depth and lsu_blocked (the SM narrows it to L1View)
};

// ---------------------------------------------------------------------------------------------------------
// Sentence-per-member checks used at composition boundaries. Each returns true or stops compilation with a
// message that names the slot and the missing member.
// Law: unit_for names only unit kinds the frontend's `units` list provides.
template <class F> constexpr bool every_op_class_has_a_unit() {
    for (int c = 0; c <= static_cast<int>(ir::OpClass::nop); ++c) {
        const UnitKind kind = F::unit_for(static_cast<ir::OpClass>(c));
        bool found = false;
        for (const auto& u : F::units) found = found || (u.kind == kind && u.count > 0);
        if (!found) return false;
    }
    return true;
}

template <class F> consteval bool check_frontend() {
    static_assert(Named<F>, "the Frontend policy must provide `static constexpr std::string_view name`");
    static_assert(
        requires {
            { F::warp_width } -> std::convertible_to<unsigned>;
        },
        "the Frontend policy must provide `static constexpr unsigned warp_width`");
    static_assert(
        requires {
            { F::schedulers } -> std::convertible_to<unsigned>;
        },
        "the Frontend policy must provide `static constexpr unsigned schedulers`");
    static_assert(
        requires { {std::span<const UnitSpec>(F::units)}; },
        "the Frontend policy must provide `static constexpr std::array<UnitSpec, N> units`");
    static_assert(
        requires(ir::OpClass c) {
            { F::unit_for(c) } -> std::same_as<UnitKind>;
        },
        "the Frontend policy must provide `static constexpr UnitKind unit_for(ir::OpClass)`");
    static_assert(
        !requires { F::opcode_timing; } ||
            requires {
                { F::opcode_timing } -> std::convertible_to<const OpcodeTimingTable&>;
            },
        "a Frontend's optional `opcode_timing` must be a `static constexpr timing::OpcodeTimingTable`");
    static_assert(Frontend<F>, "the Frontend policy must provide every knob listed in timing/concepts.hpp "
                               "(dispatch_per_scheduler, issue_rule, occupancy limits, register_allocation_unit, "
                               "ibuffer_entries, fetch_per_warp, shared_unit_partitioning)");
    static_assert(every_op_class_has_a_unit<F>(),
                  "the Frontend's unit_for must only name unit kinds that its `units` list provides");
    // Every per-warp lane mask (core::WarpMask) holds max_warp_lanes lanes, and the pipeline counts a warp's lanes in
    // the words below warp_width (LaneMask::popcount_below).
    static_assert(F::warp_width >= 1 && F::warp_width <= core::max_warp_lanes,
                  "the Frontend's warp_width must be between 1 and core::max_warp_lanes (512 lanes)");
    return true;
}

template <class S> consteval bool check_scheduler() {
    static_assert(Named<S>, "the Scheduler policy must provide `static constexpr std::string_view name`");
    static_assert(std::constructible_from<S, const SchedulerConfig&>,
                  "the Scheduler policy must be constructible from `const SchedulerConfig&`");
    static_assert(
        requires(S s, const SchedulerViewArchetype& v) {
            { s.select(v) } -> std::convertible_to<unsigned>;
        },
        "the Scheduler policy must provide `select(view)` returning a pool slot or no_warp");
    static_assert(
        requires(S s, unsigned i, core::Cycle t) {
            s.on_issue(i, t);
            s.on_warp_start(i);
            s.on_warp_exit(i);
        },
        "the Scheduler policy must provide `on_issue(slot, cycle)`, `on_warp_start(slot)` and "
        "`on_warp_exit(slot)`");
    return true;
}

template <class R> consteval bool check_register_file() {
    static_assert(Named<R>, "the RegisterFile policy must provide `static constexpr std::string_view name`");
    static_assert(std::constructible_from<R, const RegisterFileConfig&>,
                  "the RegisterFile policy must be constructible from `const RegisterFileConfig&`");
    static_assert(
        requires(const R r, const OperandRead& read) {
            { r.can_accept(read) } -> std::convertible_to<bool>;
        },
        "the RegisterFile policy must provide `can_accept(const OperandRead&) const`");
    static_assert(RegisterFile<R>, "the RegisterFile policy must provide `accept`, `cycle`, `dispatch_ready`, "
                                   "`write` and `drain_written` (see timing/concepts.hpp)");
    return true;
}

template <class E> consteval bool check_exec() {
    static_assert(Named<E>, "the Exec policy must provide `static constexpr std::string_view name`");
    static_assert(std::constructible_from<E, const ExecConfig&>,
                  "the Exec policy must be constructible from `const ExecConfig&`");
    static_assert(Exec<E>, "the Exec policy must provide `can_dispatch(kind, scheduler, cycle)`, "
                           "`dispatch(op, scheduler, cycle)` and `drain_completed(cycle, done)`");
    return true;
}

// The rest of the L1 slot, with the types of mem/ (which timing/ cannot name) as parameters: the SM instantiates it
// with mem::WarpAccess, mem::MemPacket and mem::Downstream.
template <class L, class Access, class Packet, class Downstream>
concept L1Interface = requires(L l, const L cl, const Access& access, const Packet& packet, Downstream& down,
                               core::Cycle now) {
    l.accept(access, now);
    l.cycle(now, down);
    l.receive(packet, now);
    l.drain_completed([](const auto&) {});
    cl.lsu_state();
    { cl.view() } -> std::convertible_to<L1View>;
};

template <class L, class Access, class Packet, class Downstream> consteval bool check_l1_interface() {
    static_assert(
        requires(const L cl) {
            { cl.view() } -> std::convertible_to<L1View>;
        },
        "the L1 policy's view() must return a timing::L1View");
    static_assert(L1Interface<L, Access, Packet, Downstream>,
                  "the L1 policy must provide `accept(access, cycle)`, `cycle(cycle, downstream)`, "
                  "`receive(packet, cycle)`, `drain_completed(done)` and `lsu_state()` (see timing/concepts.hpp)");
    return true;
}

template <class L> consteval bool check_l1() {
    static_assert(Named<L>, "the L1 policy must provide `static constexpr std::string_view name`");
    static_assert(
        requires { typename L::Config; }, "the L1 policy must provide a nested `Config` type");
    static_assert(L1Slot<L>, "the L1 policy must be constructible from `(const Config&, sm_id)` and provide "
                             "`can_accept()` and `view()` (see timing/concepts.hpp)");
    return true;
}

} // namespace gpuarch::timing
