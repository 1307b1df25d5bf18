#pragma once
// The vocabulary between the SM and its memory slot: a warp's memory instruction after functional execution
// (WarpAccess), what the L1 hands back when the instruction is done (Completion), the packets that travel
// between an SM and the memory partitions (MemPacket), and the narrow read-only view a scheduler may take of
// the L1 (L1View, LsuState).
//
// Contract (binding names, see the L1 slot contract): the SM builds a WarpAccess per warp memory instruction
// and passes it to L1Type::accept(); `addresses` is read only during accept(). Completions come back through
// drain_completed() carrying the same `token`.
#include <cstdint>
#include <string_view>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::mem {

struct WarpAccess {
    std::uint32_t warp = 0; // SM-local warp slot
    std::uint64_t token = 0; // opaque id of the instruction instance (returned in Completion)
    ir::Pc pc = ir::no_pc;
    ir::StateSpace space = ir::StateSpace::global; // global / shared / local / constant / param (generic resolved)
    enum Kind : std::uint8_t { load, store, atomic } kind = load;
    std::uint32_t access_bytes = 4; // per lane (vector width x element size)
    std::uint32_t width = 32; // warp width in lanes
    core::WarpMask active; // lanes that access
    const std::uint64_t* addresses = nullptr; // per lane, valid for active lanes, valid only during accept()
    // A prefetch (kind load, no register written): CacheLevel::L1 fills the L1 as a load does; L2 and the L2
    // eviction priorities fetch the lines through the L2 without allocating them in the L1. none: not a prefetch.
    ir::CacheLevel prefetch = ir::CacheLevel::none;
    // A load that must see other SMs' writes (ir::needs_coherent_load: volatile, or relaxed/acquire at .gpu/.sys
    // scope): served by the L2 like an uncached global load, never by the L1.
    bool coherent = false;
    // A texture-unit access (tex, suld, sust; op class texture): loads follow L1Config::cache_texture_loads and are
    // counted as texture loads; the addresses are the texels' device addresses in global space.
    bool texture = false;
};

// A finished warp memory instruction. The fields after `pc` describe how the L1 served it; a scheduler that
// learns from loads (the OAWS divergent-load classifier, Wang 2016 Sec. 4.2) reads them, others ignore them.
struct Completion {
    std::uint32_t warp = 0;
    std::uint64_t token = 0;
    ir::Pc pc = ir::no_pc;
    WarpAccess::Kind kind = WarpAccess::load;
    ir::StateSpace space = ir::StateSpace::global;
    std::uint32_t lines = 0; // coalesced accesses (cache lines, sectors for uncached loads)
    std::uint32_t sets = 0; // distinct L1 sets those lines map to (Wang 2016 Sec. 4.2, DLC #sets)
    std::uint32_t misses = 0; // accesses that did not find their line (new MSHR entries and merges)
    bool coherent = true; // at most `coherent_max_lines` lines (Wang 2016 Sec. 2.1: 1-2 lines)
    core::Cycle accepted_at = 0; // cycle accept() took it
    core::Cycle occlusion_cycles = 0; // cycles it waited behind other instructions or replayed its head access
};

struct MemPacket {
    std::uint64_t address = 0; // line/sector-aligned
    std::uint32_t bytes = 0; // data bytes the request reads or writes
    enum Kind : std::uint8_t { read, write, atomic } kind = read;
    std::uint32_t sm = 0; // source SM
    std::uint64_t id = 0; // requester's id (e.g. MSHR index) echoed in the response
    bool is_response = false;
    std::uint32_t lanes = 0; // atomics: lane operations the L2 performs (timing only, values are functional)
};

// The LSU's state and the scheduler's view of the L1 are the slot's vocabulary (timing/interfaces.hpp): one type
// each, which the L1 produces and a scheduler reads without a copy.
using timing::L1View;
using timing::LsuState;
using timing::to_string;

} // namespace gpuarch::mem
