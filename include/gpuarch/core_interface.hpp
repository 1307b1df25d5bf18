#pragma once
// What GPU<Core, N> needs of a core: the interface SM and barrel::BarrelSM both offer, as one concept, so a third
// core (or a mistake in one of the two) is checked where GPU is composed instead of deep inside a launch.
//
// Minimal complete definition (StreamingMultiprocessor):
//   Frontend, L1 (types) and variant_name(); a constructor (sm_id, const L1::Config&);
//   occupancy: max_resident_ctas(shape) (static), can_accept_cta(), start_cta(linear_cta, launch_age), idle(),
//     take_finished_ctas();
//   a launch: bind(execution, shape), then one cycle(now, downstream) per core cycle, receive(packet, now) for each
//     memory response, warp_instructions() and thread_instructions() (running totals), visit_stats(visitor);
//   when a launch stops: running_site() (a warp to blame) and describe_state() (the deadlock report);
//   l1(): the L1 slot (GPU flushes its data between kernels).
// Optional, each probed by GPU: set_launch_hint(h) (Gong 2020 Table 6.1); the parallel tick's split of a cycle,
//   cycle_timing(now, downstream), cycle_fetch_private(), cycle_fetch_finish() and max_fetch_steps_per_cycle()
//   (static), which must together equal cycle() (sm.hpp states the argument); without them GPU ticks on one thread;
//   asleep_until() and count_slept_cycles(n, last), which let GPU skip the cycles of a sleeping core (sm.hpp).
// Models: SM<...> (sm.hpp), barrel::BarrelSM<...> (barrel/barrel_sm.hpp).
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/timing/cta_shape.hpp>

namespace gpuarch {

template <class C>
concept StreamingMultiprocessor = requires {
    typename C::Frontend;
    typename C::L1;
    typename C::L1::Config;
}
&&std::constructible_from<C, std::uint32_t, const typename C::L1::Config&>&& requires(
    C c, const C cc, func::KernelExecution& execution, const CtaShape& shape, core::Cycle now, mem::Downstream& down,
    const mem::MemPacket& packet, core::StatsTable& stats) {
    { C::variant_name() } -> std::convertible_to<std::string>;
    { C::max_resident_ctas(shape) } -> std::convertible_to<unsigned>;
    { cc.can_accept_cta() } -> std::convertible_to<bool>;
    c.start_cta(std::uint64_t{}, std::uint64_t{});
    { cc.idle() } -> std::convertible_to<bool>;
    { c.take_finished_ctas() } -> std::convertible_to<unsigned>;
    c.bind(execution, shape);
    c.cycle(now, down);
    c.receive(packet, now);
    { cc.warp_instructions() } -> std::convertible_to<std::uint64_t>;
    { cc.thread_instructions() } -> std::convertible_to<std::uint64_t>;
    stats.collect("", cc);
    { cc.running_site() } -> std::convertible_to<std::optional<func::FaultSite>>;
    { cc.describe_state() } -> std::convertible_to<std::string>;
    c.l1();
};

} // namespace gpuarch
