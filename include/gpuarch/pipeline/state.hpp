#pragma once
// The state SM's pipeline stages share (include/gpuarch/pipeline/): one record per fetched warp instruction, one
// WarpState per warp slot, and the SM's own counters. The stages and the fetch policy's mechanism read and write
// these through the SM that owns them; nothing here has behaviour beyond keeping its own invariants.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <gpuarch/func/step_result.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::pipeline {

// WarpState::head_hazard before the head instruction's hazard is known.
inline constexpr std::uint8_t hazard_unknown = 0xff;

// The low n bits set (every bit for n >= 64): the slots of a pool of n warps in a per-pool bit mask.
constexpr std::uint64_t low_bits(unsigned n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

// One fetched warp instruction, from fetch until it retires. FetchRecordState is the fetch policy's per-record
// marks (empty for in-order fetch). Reused through timing::detail::RecordPool, which owns index and generation.
template <class FetchRecordState> struct InFlight {
    explicit InFlight(unsigned width) : result(width) {}
    // The timing fields come first and the functional result last: a record is looked up by its token (alive,
    // generation) and then read for its warp, unit and sources, which then share the record's first cache lines
    // instead of following the result's four 64-byte lane masks.
    std::uint32_t index = 0; // position in the record pool
    std::uint32_t generation = 0; // bumped on every reuse: the token is (generation << 32) | index, so a late
        // notification for a retired instruction (an execution-unit completion of a
        // load the L1 already finished) can never touch the record's next user
    std::uint32_t warp = 0;
    timing::UnitKind unit = timing::UnitKind::sp;
    // The state space the L1 times a memory instruction in: its own, or for a generic access the space every
    // executed lane's address fell in (StepResult::lane_spaces).
    ir::StateSpace space = ir::StateSpace::none;
    bool is_memory = false, is_control = false, long_latency = false, alive = false;
    unsigned active_lanes = 0;
    std::uint8_t source_count = 0; // distinct non-predicate source registers, found once at fetch
    std::array<ir::RegId, 12> sources{};
    [[no_unique_address]] FetchRecordState fetch_state{}; // the fetch policy's marks (none for in-order fetch)
    // cp.async: a cp.async's group, or a wait's threshold (every group below it must be complete);
    // async_counted while the record still has to be accounted for at completion (FetchStage::note_async_fetch).
    std::uint32_t async_group = 0;
    bool async_counted = false;
    func::StepResult result;
};

// One warp slot of the SM: its instruction buffer (record indices), its fetch and barrier state, and what is in
// flight for it.
struct WarpState {
    bool occupied = false;
    bool functional_done = false; // the warp's last instruction has been fetched
    bool fetch_blocked = false; // a control instruction is in flight
    bool at_barrier = false;
    unsigned scheduler = 0, pool_index = 0, cta_slot = 0, warp_in_cta = 0;
    std::uint64_t age = 0;
    unsigned in_flight = 0; // fetched or issued, not yet retired
    std::array<std::uint32_t, 8> ibuffer{};
    unsigned ib_head = 0, ib_count = 0;
    unsigned long_pending = 0; // destination registers of pending long-latency loads
    // Per-line statistics only (timing/line_stats.hpp): the instruction this warp last issued, where a stall with
    // no decoded instruction is charged; the kernel's first before it issued any.
    ir::Pc last_issued_pc = 0;
    // The head instruction's scoreboard hazard, valid until the head or this warp's scoreboard changes
    // (both change only through this warp's own fetch, issue and write-back, which reset it).
    mutable std::uint8_t head_hazard = hazard_unknown;
    // cp.async groups (PTX ISA 9.0, Sec. 9.7.9.25.3): async_open_group counts the commits fetched so
    // far, so it names the group the next cp.async joins; async_pending holds (group, copies in flight) for
    // every group with copies in flight, oldest first. A wait that completes before its groups do is parked
    // in async_waiting_token until they have (WritebackStage::async_copy_done).
    std::uint32_t async_open_group = 0;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> async_pending;
    bool async_waiting = false;
    std::uint64_t async_waiting_token = 0;

    // Appends record r to the instruction buffer; a first entry becomes the head, whose hazard is not known yet.
    void push(std::uint32_t r) {
        ibuffer[(ib_head + ib_count) % ibuffer.size()] = r;
        if (ib_count == 0) head_hazard = hazard_unknown;
        ++ib_count;
    }
    // Removes and returns the head record; the next entry, if any, becomes the head.
    std::uint32_t pop_head() {
        const std::uint32_t r = ibuffer[ib_head];
        ib_head = (ib_head + 1) % ibuffer.size();
        --ib_count;
        head_hazard = hazard_unknown;
        return r;
    }
};

// The SM's own counters (SM::visit_stats names and describes each).
struct SmStats {
    std::uint64_t cycles = 0, active_cycles = 0, warp_instructions = 0, thread_instructions = 0;
    std::uint64_t dual_issues = 0, issue_slots = 0, ctas = 0, resident_warp_cycles = 0, ready_warp_cycles = 0;
    std::array<std::uint64_t, timing::issue_outcome_count> outcomes{};
    std::array<std::uint64_t, 3> cycle_class{}; // Gong 2020 Fig. 1.2: issued, all on memory, otherwise
    std::array<std::uint64_t, 4> lsu{};
    // device-side malloc/free calls (threads) and cp.async warp instructions issued
    std::uint64_t device_mallocs = 0, device_frees = 0, async_copies = 0;
};

} // namespace gpuarch::pipeline
