#pragma once
// The slots of a barrel-processing core (barrel::BarrelSM) that differ from gpuarch::SM's: the frontend carries
// the sub-warping logic and the pipeline shape, and the register file is addressed per lane with row IDs. The
// Scheduler and L1 slots are gpuarch::SM's own (timing/concepts.hpp), so LRR, TwoLevel<G> and every L1 compose
// with a barrel core unchanged.
#include <concepts>
#include <cstdint>
#include <span>

#include <gpuarch/frontend/large_warp.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/regfile/per_lane_banked_rf.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::barrel {

// BarrelFrontend: the machine personality of a barrel core.
//
// Minimal complete definition: name; warp_width (threads per (large) warp = the functional warp width);
// simd_width; rows (= warp_width / simd_width); occupancy limits max_warps, max_ctas, max_threads, max_registers,
// max_shared_bytes, register_allocation_unit; the pipeline: backend_stages and the positions of the
// register-read, execute, memory and writeback stages inside it, pipeline_depth (fetch + decode + back end);
// register_file_bytes; private_memory_bytes_per_thread (0: none, local data goes through the L1); a `Former`
// (frontend::SubWarpFormer) and `mode_for(instruction, space)`.
// Laws: simd_width * rows == warp_width; register_read_stage < execute_stage < memory_stage < writeback_stage
// == backend_stages - 1.
// Models: frontend::LargeWarpFrontend<Size, Simd, Knobs...>.
template <class F>
concept BarrelFrontend = timing::Named<F> && requires(const ir::Instruction& inst, ir::StateSpace space) {
    { F::warp_width } -> std::convertible_to<unsigned>;
    { F::simd_width } -> std::convertible_to<unsigned>;
    { F::rows } -> std::convertible_to<unsigned>;
    { F::max_warps } -> std::convertible_to<unsigned>;
    { F::max_ctas } -> std::convertible_to<unsigned>;
    { F::max_threads } -> std::convertible_to<unsigned>;
    { F::max_registers } -> std::convertible_to<unsigned>;
    { F::max_shared_bytes } -> std::convertible_to<unsigned>;
    { F::register_allocation_unit } -> std::convertible_to<unsigned>;
    { F::backend_stages } -> std::convertible_to<unsigned>;
    { F::register_read_stage } -> std::convertible_to<unsigned>;
    { F::execute_stage } -> std::convertible_to<unsigned>;
    { F::memory_stage } -> std::convertible_to<unsigned>;
    { F::writeback_stage } -> std::convertible_to<unsigned>;
    { F::pipeline_depth } -> std::convertible_to<unsigned>;
    { F::register_file_bytes } -> std::convertible_to<unsigned>;
    { F::private_memory_bytes_per_thread } -> std::convertible_to<unsigned>;
    typename F::Former;
    { F::mode_for(inst, space) } -> std::same_as<frontend::SubWarpMode>;
};

// BarrelRegisterFile: per-lane register banks read and written one sub-warp at a time.
//
// Minimal complete definition: name; constructible from regfile::LaneBankConfig;
//   no_row (the row ID of an idle lane); read(warp, rows, sources) -> register-read cycles for one sub-warp
//   (rows[c]: row of lane c's thread, or no_row); write(warp, rows, dests).
// Laws: read returns at least 1; a thread is only ever addressed in the bank of its own lane.
// Models: regfile::PerLaneBankedRF<AddressDecoders::per_lane>, regfile::PerLaneBankedRF<AddressDecoders::shared>.
template <class R>
concept BarrelRegisterFile = timing::Named<R> && std::constructible_from<R, const regfile::LaneBankConfig&> &&
    requires(R r, unsigned warp, std::span<const std::uint16_t> rows, unsigned count) {
    { R::no_row } -> std::convertible_to<std::uint16_t>;
    { r.read(warp, rows, count) } -> std::convertible_to<unsigned>;
    r.write(warp, rows, count);
};

template <class F> consteval bool check_frontend() {
    static_assert(timing::Named<F>, "the barrel Frontend must provide `static constexpr std::string_view name`");
    static_assert(
        requires { typename F::Former; },
        "the barrel Frontend must provide a sub-warping logic `Former` (frontend::SubWarpFormer)");
    static_assert(
        requires(const ir::Instruction& i, ir::StateSpace s) {
            { F::mode_for(i, s) } -> std::same_as<frontend::SubWarpMode>;
        },
        "the barrel Frontend must provide `static constexpr SubWarpMode mode_for(const ir::Instruction&, "
        "ir::StateSpace)`");
    static_assert(BarrelFrontend<F>, "the barrel Frontend must provide every knob listed in barrel/concepts.hpp "
                                     "(warp and SIMD widths, rows, occupancy limits, pipeline stages)");
    static_assert(F::simd_width * F::rows == F::warp_width,
                  "the barrel Frontend's rows x SIMD width must be its warp width");
    static_assert(F::register_read_stage < F::execute_stage && F::execute_stage < F::memory_stage &&
                      F::memory_stage < F::writeback_stage && F::writeback_stage + 1 == F::backend_stages,
                  "the barrel Frontend's back end must read registers, execute, access memory and write back, in "
                  "that order, with writeback its last stage");
    static_assert(F::simd_width <= 64, "a barrel core has at most 64 SIMD lanes");
    return true;
}

template <class R> consteval bool check_register_file() {
    static_assert(timing::Named<R>, "the barrel RegisterFile must provide `static constexpr std::string_view name`");
    static_assert(std::constructible_from<R, const regfile::LaneBankConfig&>,
                  "the barrel RegisterFile must be constructible from `const regfile::LaneBankConfig&`");
    static_assert(BarrelRegisterFile<R>, "the barrel RegisterFile must provide `read(warp, rows, sources)` returning "
                                         "cycles, `write(warp, rows, dests)` and `no_row` (see barrel/concepts.hpp)");
    return true;
}

} // namespace gpuarch::barrel
