#pragma once
// Source operands: registers, immediates, and the special registers (%tid, %ctaid, %laneid, %clock, ...) with
// the values a launch gives them.

#include <algorithm>
#include <cstdint>
#include <string>

#include <gpuarch/func/semantics/context.hpp>

namespace gpuarch::func::semantics {

// Writes special register `r`'s value for each of the warp's lanes into `row`.
inline void fill_special(const LaunchState& launch, const CtaState& cta, const WarpState& w, ir::SpecialReg r,
                         std::uint64_t* row) {
    using S = ir::SpecialReg;
    const unsigned n = launch.width;
    auto fill = [&](std::uint64_t v) { std::fill(row, row + n, v); };
    switch (r) {
    case S::tid_x:
        for (unsigned l = 0; l < n; ++l) row[l] = w.tid_x[l];
        break;
    case S::tid_y:
        for (unsigned l = 0; l < n; ++l) row[l] = w.tid_y[l];
        break;
    case S::tid_z:
        for (unsigned l = 0; l < n; ++l) row[l] = w.tid_z[l];
        break;
    case S::ntid_x: fill(launch.config.block.x); break;
    case S::ntid_y: fill(launch.config.block.y); break;
    case S::ntid_z: fill(launch.config.block.z); break;
    case S::ctaid_x: fill(cta.id.x); break;
    case S::ctaid_y: fill(cta.id.y); break;
    case S::ctaid_z: fill(cta.id.z); break;
    case S::nctaid_x: fill(launch.config.grid.x); break;
    case S::nctaid_y: fill(launch.config.grid.y); break;
    case S::nctaid_z: fill(launch.config.grid.z); break;
    case S::laneid:
        for (unsigned l = 0; l < n; ++l) row[l] = l & 31U;
        break;
    // %warpid: the 32-thread warp of the thread within its CTA, so %warpid * 32 + %laneid is the thread's
    // linear index on every warp width.
    case S::warpid:
        for (unsigned l = 0; l < n; ++l) row[l] = (w.first_thread + l) / 32;
        break;
    case S::nwarpid: fill((launch.threads_per_cta + 31) / 32); break;
    case S::smid: fill(cta.sm_id); break;
    case S::nsmid: fill(launch.options.num_sms); break;
    case S::gridid: fill(0); break;
    case S::lanemask_eq:
        for (unsigned l = 0; l < n; ++l) row[l] = std::uint64_t{1} << (l & 31U);
        break;
    case S::lanemask_lt:
        for (unsigned l = 0; l < n; ++l) row[l] = (std::uint64_t{1} << (l & 31U)) - 1;
        break;
    case S::lanemask_le:
        for (unsigned l = 0; l < n; ++l) row[l] = (std::uint64_t{2} << (l & 31U)) - 1;
        break;
    case S::lanemask_gt:
        for (unsigned l = 0; l < n; ++l) row[l] = ~((std::uint64_t{2} << (l & 31U)) - 1) & 0xffffffffU;
        break;
    case S::lanemask_ge:
        for (unsigned l = 0; l < n; ++l) row[l] = ~((std::uint64_t{1} << (l & 31U)) - 1) & 0xffffffffU;
        break;
    case S::clock: fill(w.clock & 0xffffffffU); break;
    case S::clock_hi: fill(w.clock >> 32); break;
    case S::clock64: fill(w.clock); break;
    case S::globaltimer: fill(w.clock); break; // nanoseconds = warp instructions (see WarpState::clock)
    case S::globaltimer_lo: fill(w.clock & 0xffffffffU); break;
    case S::globaltimer_hi: fill(w.clock >> 32); break;
    case S::dynamic_smem_size: fill(launch.config.dynamic_shared_bytes); break;
    case S::total_smem_size: fill(launch.shared_bytes); break;
    // The launch's warp width, unlike the 32-lane groups of %laneid/%warpid: warpSize is the hardware width.
    case S::warp_sz: fill(launch.width); break;
    case S::envreg1: fill(launch.workspace.address() >> 32); break;
    case S::envreg2: fill(launch.workspace.address() & 0xffffffffU); break;
    }
}

// source() for a special register (or a missing operand), out of line so that the register and immediate cases
// inline into every instruction.
[[gnu::noinline]] inline detail::Source special_source(const Context& c, unsigned i) {
    const DecodedSource& s = c.d.sources[i];
    if (s.kind == SourceKind::special) {
        std::uint64_t* row = c.cta.scratch[i].data();
        fill_special(c.launch, c.cta, c.w, s.special, row);
        return {row, ~0U, s.negated};
    }
    fault(c.launch, c.cta, c.w, static_cast<ir::Pc>(c.d.inst - c.launch.kernel->code.data()), -1,
          "operand " + std::to_string(i) + " has no value");
}

// Source operand `i` as the lane loop reads it. A special register is materialised into the CTA's scratch row `i`,
// so the operands of one instruction never share a row.
inline detail::Source source(const Context& c, unsigned i) {
    const DecodedSource& s = c.d.sources[i];
    if (s.kind == SourceKind::reg) return {c.w.row(s.reg), ~0U, s.negated};
    if (s.kind == SourceKind::imm) return {&s.imm, 0U, s.negated};
    return special_source(c, i);
}

} // namespace gpuarch::func::semantics
