#pragma once
// The L1 slot: load/store unit, coalescer, L1 data cache with MSHRs, banked shared memory and constant cache
// of one SM (the L1 slot contract, timing/concepts.hpp). `L1<Knobs...>` is the policy the SM composes, e.g.
//
//     using FermiL1 = L1<MSHR<32>, Merges<8>, Sets<32>, Ways<8>, LineBytes<128>, AllocOnFill, HashedIndex>;
//
// Knobs not given take the defaults in docs/memory.md; the runtime Config starts from the knobs and a machine
// preset (presets.hpp) may override any field.
//
// Timing contract (Wang 2016 Sec. 2.1-2.2):
//  * The LSU holds up to `lsu_queue` warp memory instructions and serves them in order. It serves one
//    coalesced access of the head instruction per cycle (one L1 port); shared accesses hold it for their
//    bank-conflict degree, constant accesses for one cycle per distinct address.
//  * A load access that hits completes `hit_latency` cycles later. A miss merges into the MSHR entry of its
//    line (up to `mshr_max_requests` requests per entry) or allocates a free entry and queues a line request
//    in the miss queue. When no entry / merge slot / reservable line exists (LDST_MSHR) or the miss queue is
//    full (LDST_ICNT), the head access is replayed the next cycle and every instruction behind it waits
//    (memory occlusion, Wang 2016 Sec. 2.2).
//  * Global stores are write-through with write-evict and no write-allocate and use no MSHR (Wang 2016 Sec.
//    2.1); local stores are write-through and keep a hit line. Global atomics evict the line and execute at
//    the L2; the instruction completes when their responses return.
//  * One packet leaves the miss queue per cycle when the interconnect port can take it.
//  * Cycle semantics: accept() only records the instruction; the LSU serves it from the next cycle() call on
//    (the SM calls cycle() before issuing, so an instruction accepted in cycle t is first served in t + 1).
//    A response given to receive() before cycle(t) is visible to cycle(t): an MSHR entry its fill frees can
//    be taken by the replaying head access in that same cycle. A completion produced by cycle(t) or by
//    receive() is handed out by the next drain_completed(). At most one instruction is accepted per cycle.
//  * Scheduler feedback (optional to consume; the SM drains both every cycle): drain_issued() reports each
//    memory instruction whose accesses have all been served (it left the LSU; Wang 2016 Sec. 4.2 releases
//    OAWS's Miss_inflight then), drain_locality_events() reports each data-cache miss to the warp that missed
//    and each replacement of a line to the warp whose miss brought it in (the warp id in the tag, Rogers 2012
//    Sec. 3.1, for CCWS's victim tag arrays). A report survives one further cycle() undrained and is dropped at
//    the next, so an L1 used on its own never accumulates them.
//  * Optional re-execution queue (ReexecutionQueue<N>, MASCAR, Sethia 2015 Sec. 4.2): when the head access of
//    a cached load finds no MSHR resource or miss-queue slot, the load's remaining accesses move to the queue
//    (if they fit and no other instruction of that warp is queued, Sethia 2015's ordering rule) and the LSU
//    goes on with the next instruction. While the MSHRs and the miss queue have room, the queue's head access
//    takes the L1 port before the LSU; the load finishes when its last queued access has been served.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/coalescer.hpp>
#include <gpuarch/mem/duplicate_tracker.hpp>
#include <gpuarch/mem/knobs.hpp>
#include <gpuarch/mem/mshr.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/mem/shared_memory.hpp>
#include <gpuarch/mem/tag_array.hpp>
#include <gpuarch/timing/interfaces.hpp>

namespace gpuarch::mem {

struct ConstantCacheConfig {
    // 8 KB with 64-byte lines (Wang 2016 Table 1). The table's "24-way" does not divide 128 lines into whole
    // sets, so the default keeps size and line and uses 2 ways x 64 sets (documented choice).
    CacheGeometry geometry{64, 2, 64, SetIndexing::linear};
    std::uint32_t mshr_entries = 8; // documented default; no source gives it
    std::uint32_t mshr_max_requests = 8; // documented default
    std::uint32_t hit_latency = 1; // documented default
};

struct L1Config {
    CacheGeometry geometry{32, 8, 128, SetIndexing::linear}; // 32 KB, 8-way, 128 B (Wang 2016 Table 1)
    std::uint32_t sector_bytes = 32; // uncached-load granularity and store byte-mask unit
    std::uint32_t mshr_entries = 32; // Wang 2016 Sec. 2.1
    std::uint32_t mshr_max_requests = 8; // Gong 2020 Table 6.3
    std::uint32_t miss_queue = 8; // documented default (Wang 2016 gives no memory-port depth)
    std::uint32_t hit_latency = 1; // documented default (Narasiman 2010 Table 1: single-cycle D-cache)
    std::uint32_t lsu_queue = 1; // documented default: one dispatch register in front of the LSU
    AllocationPolicy allocation = AllocationPolicy::on_fill; // Wang 2016 Sec. 5 runs allocate-on-fill
    bool cache_global_loads = true;
    bool cache_texture_loads =
        true; // texture fetches and surface loads allocate in the L1 (knobs.hpp, CacheTextureLoads)
    // Invalidate the L1 data cache's lines before every launch (a GPU's first finds none), as GPGPU-Sim's
    // -gpgpu_flush_l1_cache 1 does (its GTX480 configuration). Off: lines stay valid from one launch to the next.
    bool flush_between_kernels = false;
    std::uint32_t coherent_max_lines = 2; // Wang 2016 Sec. 2.1: coherent = 1-2 cache lines
    std::uint32_t reexecution_entries = 0; // MASCAR re-execution queue (line accesses); 0: none (Wang 2016 Sec. 5
        // gives MASCAR 32)
    SharedMemoryConfig shared{};
    ConstantCacheConfig constant{};
    // GPU-wide tracker of cross-SM duplicate MSHR allocations (Gong 2020 Sec. 6.1); optional, not owned.
    DuplicateMshrTracker* duplicate_tracker = nullptr;

    void validate() const {
        geometry.validate("the L1 data cache");
        constant.geometry.validate("the constant cache");
        shared.validate();
        if (sector_bytes < 4 || !std::has_single_bit(sector_bytes) || sector_bytes > geometry.line_bytes ||
            geometry.line_bytes / sector_bytes > 32)
            throw Error("the L1 sector size must be a power of two between 4 bytes and the line size with at most "
                        "32 sectors per line (got " +
                        std::to_string(sector_bytes) + ")");
        if (mshr_entries == 0) throw Error("an L1 needs at least one MSHR entry");
        if (mshr_max_requests == 0) throw Error("an L1 MSHR entry must hold at least one request");
        if (miss_queue == 0) throw Error("the L1 miss queue needs at least one slot");
        if (hit_latency == 0) throw Error("an L1 hit takes at least one cycle");
        if (lsu_queue == 0) throw Error("the LSU holds at least one memory instruction");
        if (constant.mshr_entries == 0 || constant.mshr_max_requests == 0 || constant.hit_latency == 0)
            throw Error("the constant cache needs at least one MSHR entry, one request per entry and a hit "
                        "latency of at least one cycle");
    }
};

// The fields of `effective` that differ from `declared` (the L1 type's knobs), as "l1.key=value" items joined by
// ", " with the run-time setting names of docs/cuda_runtime.md; empty when they agree. A variant's printed name
// appends these, so that it states what actually runs when a preset or a setting overrides a knob.
inline std::string l1_differences(const L1Config& effective, const L1Config& declared) {
    std::string out;
    auto add = [&](const char* key, const std::string& value) {
        (out += out.empty() ? "" : ", ") += std::string(key) + "=" + value;
    };
    auto num = [](std::uint64_t v) { return std::to_string(v); };
    if (effective.mshr_entries != declared.mshr_entries) add("l1.mshr_entries", num(effective.mshr_entries));
    if (effective.mshr_max_requests != declared.mshr_max_requests)
        add("l1.mshr_max_requests", num(effective.mshr_max_requests));
    if (effective.miss_queue != declared.miss_queue) add("l1.miss_queue", num(effective.miss_queue));
    if (effective.hit_latency != declared.hit_latency) add("l1.hit_latency", num(effective.hit_latency));
    if (effective.geometry.sets != declared.geometry.sets) add("l1.sets", num(effective.geometry.sets));
    if (effective.geometry.ways != declared.geometry.ways) add("l1.ways", num(effective.geometry.ways));
    if (effective.geometry.line_bytes != declared.geometry.line_bytes)
        add("l1.line_bytes", num(effective.geometry.line_bytes));
    if (effective.allocation != declared.allocation)
        add("l1.allocation", effective.allocation == AllocationPolicy::on_fill ? "on_fill" : "on_miss");
    if (effective.cache_global_loads != declared.cache_global_loads)
        add("l1.cache_global_loads", effective.cache_global_loads ? "true" : "false");
    if (effective.cache_texture_loads != declared.cache_texture_loads)
        add("l1.cache_texture_loads", effective.cache_texture_loads ? "true" : "false");
    if (effective.reexecution_entries != declared.reexecution_entries)
        add("l1.reexecution_entries", num(effective.reexecution_entries));
    if (effective.flush_between_kernels != declared.flush_between_kernels)
        add("l1.flush_between_kernels", effective.flush_between_kernels ? "true" : "false");
    return out;
}

// The runtime L1; L1<Knobs...> below is this with compile-time defaults and a name.
class L1Unit {
public:
    L1Unit(const L1Config& config, std::uint32_t sm_id)
        : config_((config.validate(), config)), sm_(sm_id), tags_(config.geometry),
          mshr_(config.mshr_entries, config.mshr_max_requests), reserved_way_(config.mshr_entries, 0),
          entry_owner_(config.mshr_entries, 0),
          line_owner_(std::size_t{config.geometry.sets} * config.geometry.ways, no_owner),
          const_tags_(config.constant.geometry),
          const_mshr_(config.constant.mshr_entries, config.constant.mshr_max_requests),
          classifier_(config.geometry, config.sector_bytes, config.coherent_max_lines), shared_(config.shared),
          miss_queue_(config.miss_queue), lsu_(config.lsu_queue), mshr_occupancy_(std::size_t{config.mshr_entries} + 1),
          requests_per_entry_(std::size_t{config.mshr_max_requests} + 1) {
        for (auto& slot : lsu_) slot.accesses.reserve(64);
        pending_.reserve(64);
        free_pending_.reserve(64);
        timed_.reserve(64);
        completed_.reserve(16);
        issued_.reserve(16);
        locality_.reserve(64);
        reexec_.reserve(config.reexecution_entries);
    }

    const L1Config& config() const { return config_; }
    std::uint32_t sm() const { return sm_; }

    // The LSU can take one more warp memory instruction this cycle (at most one per cycle).
    bool can_accept() const { return lsu_count_ < lsu_slots_ && !accepted_this_cycle_; }

    void accept(const WarpAccess& access, core::Cycle now) {
        if (!can_accept())
            throw Error("L1::accept was called while the LSU cannot take an instruction; test can_accept() first");
        accepted_this_cycle_ = true;
        const std::uint32_t index = new_pending();
        Pending& p = pending_[index];
        p.info = Completion{};
        p.texture = access.texture;
        p.info.warp = access.warp;
        p.info.token = access.token;
        p.info.pc = access.pc;
        p.info.kind = access.kind;
        p.info.space = access.space;
        p.info.accepted_at = now;
        // The first cycle() that can serve it: this one if cycle(now) has not run yet, else the next.
        p.eligible_at = (cycled_ && last_cycle_ == now) ? now + 1 : now;

        LsuSlot& slot = lsu_[lsu_wrap(lsu_head_ + lsu_count_)];
        slot.pending = index;
        slot.next = 0;
        slot.shared_cycles = 0;
        slot.accesses.clear();

        switch (access.space) {
        case ir::StateSpace::shared:
            slot.path = Path::shared;
            slot.shared_cycles = shared_.conflict_cycles(access);
            ++shared_accesses_;
            shared_bank_cycles_ += slot.shared_cycles;
            if (slot.shared_cycles == 0) slot.shared_cycles = 1;
            p.info.lines = slot.shared_cycles;
            break;
        case ir::StateSpace::constant:
        case ir::StateSpace::param:
            if (access.kind == WarpAccess::load) {
                // Kernel parameters live in a constant bank, so ld.param is timed as a constant load.
                slot.path = Path::constant;
                distinct_addresses(access, slot.accesses);
                ++constant_accesses_;
                p.info.lines = static_cast<std::uint32_t>(slot.accesses.size());
                break;
            }
            if (access.space == ir::StateSpace::constant || access.kind == WarpAccess::atomic)
                throw Error("the L1 cannot time a store or atomic to " + space_name(access.space) +
                            " space, which is read-only or has no atomics");
            // st.param (call frames) is per-thread memory: timed like a local store.
            [[fallthrough]];
        case ir::StateSpace::global:
        case ir::StateSpace::local: {
            const bool local = access.space != ir::StateSpace::global;
            if (access.kind == WarpAccess::load) {
                ++loads_;
                // A prefetch is a load whose data nobody waits for (no register); .L2 prefetches fetch their
                // sectors through the L2 without allocating in the L1, like an uncached global load.
                const bool l2_only = access.prefetch != ir::CacheLevel::none && access.prefetch != ir::CacheLevel::L1;
                if (access.prefetch != ir::CacheLevel::none) ++prefetches_;
                if (access.texture) ++texture_loads_;
                // A coherent load (ir::needs_coherent_load) never takes its data from the L1.
                const bool cached =
                    access.texture ? config_.cache_texture_loads : config_.cache_global_loads && !access.coherent;
                if (l2_only || (!local && !cached)) {
                    slot.path = Path::bypass_load;
                    coalesce(access, config_.sector_bytes, config_.sector_bytes, slot.accesses);
                } else {
                    slot.path = Path::data_load;
                    coalesce(access, config_.geometry.line_bytes, config_.sector_bytes, slot.accesses);
                }
                const AccessClass c =
                    classifier_.classify(slot.accesses, static_cast<std::uint32_t>(access.active.popcount()));
                p.info.lines = c.lines;
                p.info.sets = c.sets;
                p.info.coherent = c.coherent;
            } else if (access.kind == WarpAccess::store) {
                ++stores_;
                slot.path = local ? Path::store_local : Path::store_global;
                coalesce(access, config_.geometry.line_bytes, config_.sector_bytes, slot.accesses);
                p.info.lines = static_cast<std::uint32_t>(slot.accesses.size());
            } else {
                if (local) throw Error("the L1 cannot time an atomic to local memory; PTX has no local atomics");
                ++atomics_;
                slot.path = Path::atomic;
                coalesce(access, config_.geometry.line_bytes, config_.sector_bytes, slot.accesses);
                p.info.lines = static_cast<std::uint32_t>(slot.accesses.size());
            }
            break;
        }
        default:
            throw Error("the L1 cannot time an access to " + space_name(access.space) +
                        " space; generic addresses must be resolved to global, shared or local before accept()");
        }
        p.access_bytes = access.access_bytes == 0 ? 1 : access.access_bytes;
        ++lsu_count_;
    }

    void cycle(core::Cycle now, Downstream& down) {
        accepted_this_cycle_ = false;
        cycled_ = true;
        last_cycle_ = now;
        // Nothing to forget, release, serve or send: only the per-cycle counters move, as in
        // busy_cycle with every step finding nothing (an empty report list has no stale entries, and an empty
        // miss queue is not full). Kept small so that the SM can inline it.
        if (lsu_count_ == 0 && miss_queue_.empty() && reexec_.empty() && issued_.empty() && locality_.empty() &&
            (timed_.empty() || timed_.front().at > now)) {
            state_ = LsuState::idle;
            ++cycles_;
            mshr_occupancy_.add(mshr_.busy());
            if (mshr_.full()) ++mshr_full_cycles_;
            return;
        }
        busy_cycle(now, down);
    }

    // `count` cycles of a quiet() L1, the last at `last`: what as many cycle() calls would do (their quiet path).
    void quiet_cycles(std::uint64_t count, core::Cycle last) {
        count_bulk_cycles(count, last);
        state_ = LsuState::idle;
    }

    // Whether the next cycle() repeats the last one's stall and does nothing else (repeated_stall names which):
    // a cached load retries an access that the stall memo answers (no MSHR, no merge slot or no reservable way, with
    // its set's tags and what the stall reads of the MSHRs unchanged since: stall_answers), or the re-execution
    // queue's head waits for an MSHR; and nothing else is to be sent, completed or drained. Only a response (receive,
    // which changes the MSHRs and may end it) or a hit's completion coming due (next_timed_completion) can end it;
    // until then each cycle() changes only what stalled_cycles() counts.
    bool repeats_stall() const { return repeated_stall() != RepeatedStall::none; }
    // Whether the next cycle() takes its quiet path and leaves nothing to drain, and every later one does too until a
    // response arrives (receive) or a hit's completion comes due (next_timed_completion): no instruction in the LSU,
    // nothing to send, re-execute, complete or drain. Misses may be outstanding: only their fills change the MSHRs.
    // Until then each cycle() changes only what quiet_cycles() counts.
    bool waits_for_responses() const {
        return lsu_count_ == 0 && miss_queue_.empty() && reexec_.empty() && issued_.empty() && locality_.empty() &&
               completed_.empty();
    }
    // The cycle at which the earliest hit now waiting completes (none: the largest cycle).
    core::Cycle next_timed_completion() const {
        return timed_.empty() ? std::numeric_limits<core::Cycle>::max() : timed_.front().at;
    }
    // The LSU holds as many instructions as it can: can_accept() is false in the next cycle.
    bool lsu_full() const { return lsu_count_ == lsu_slots_; }
    // Drops the stall memo (stall_answers): the next retry of a stalled load searches the tags and the MSHRs again.
    // It changes nothing else, since the memo only ever answers what that search would find; tests compare an L1
    // that forgets it in every cycle with one that keeps it (tests/mem/l1_stall_memo_test.cpp).
    void forget_stall_memo() { stall_ = LoadStall{}; }
    // `count` cycles of an L1 that repeats_stall(), the last at `last`: what as many cycle() calls would do (busy_cycle
    // with serve_reexecution and serve_head taking the stall memo's answer or waiting, the miss queue empty, so not
    // full).
    void stalled_cycles(std::uint64_t count, core::Cycle last) {
        const RepeatedStall stall = repeated_stall();
        if (stall == RepeatedStall::none)
            throw Error("internal error: an L1 was handed stalled cycles that it does not repeat");
        count_bulk_cycles(count, last);
        if (stall != RepeatedStall::lsu_head) { // serve_reexecution's replay of the queue's head
            reexec_replay_cycles_ += count;
            pending_[reexec_.front().pending].info.occlusion_cycles += count;
        }
        if (stall == RepeatedStall::queue_waits) {
            state_ = LsuState::idle;
            return;
        }
        stall_cycles(stall_.reason) += count;
        if (stall != RepeatedStall::queue_retries) { // serve_head's stall of the LSU head
            pending_[lsu_[lsu_head_].pending].info.occlusion_cycles += count;
            if (config_.reexecution_entries != 0) reexec_full_cycles_ += count; // divert_to_reexecution refused
        }
        state_ = LsuState::stalled_mshr;
        lsu_active_cycles_ += count;
        ldst_mshr_cycles_ += count;
    }

    void receive(const MemPacket& packet, core::Cycle now) {
        if (!packet.is_response) throw Error("the L1 received a packet that is not a response");
        const auto cls = static_cast<IdClass>(packet.id >> id_class_shift);
        const std::uint64_t index = packet.id & id_index_mask;
        switch (cls) {
        case IdClass::data_fill: fill_data(static_cast<std::uint32_t>(index), packet, now); return;
        case IdClass::const_fill: fill_constant(static_cast<std::uint32_t>(index), packet, now); return;
        case IdClass::bypass:
        case IdClass::atomic: resolve(checked_pending(index), now); return;
        case IdClass::write_ack:
            if (outstanding_writes_ == 0) throw Error("the L1 received a write acknowledgement it did not expect");
            --outstanding_writes_;
            return;
        }
        throw Error("the L1 received a response with an id it never issued");
    }

    template <class F> void drain_completed(F&& done) {
        for (const Completion& c : completed_) done(c);
        completed_.clear();
    }
    // done(const Completion&) for each memory instruction whose accesses have all been served since the last
    // cycle() (loads: `misses` is final; the data may still be on its way).
    template <class F> void drain_issued(F&& done) {
        for (const Completion& c : issued_) done(c);
        issued_.clear();
        issued_stale_ = 0;
    }
    // Whether misses and replacements are recorded for drain_locality_events (on unless turned off). An SM whose
    // scheduler observes no locality events turns it off: nothing would read them.
    void report_locality(bool on) { report_locality_ = on; }
    // f(warp, const timing::LocalityEvent&) for each data-cache miss (to the warp that missed) and each valid line
    // replaced by a fill or a reservation (to the warp whose miss brought the line in).
    template <class F> void drain_locality_events(F&& f) {
        for (const auto& [warp, event] : locality_) f(warp, event);
        locality_.clear();
        locality_stale_ = 0;
    }

    L1View view() const {
        L1View v;
        v.mshr_total = mshr_.entries();
        v.mshr_free = mshr_.free();
        v.lsu_queue_depth = lsu_count_;
        v.lsu_blocked = !can_accept();
        v.miss_queue_total = static_cast<std::uint32_t>(miss_queue_.capacity());
        v.miss_queue_free = static_cast<std::uint32_t>(miss_queue_.free_slots());
        v.lsu_state = state_;
        return v;
    }
    LsuState lsu_state() const { return state_; }

    // {lines, sets, coherent} of an access against this L1's geometry (for a classifier at issue time).
    AccessClass classify(const WarpAccess& access) { return classifier_.classify(access); }

    // Global/local stores whose write acknowledgement has not come back (for fences).
    std::uint64_t outstanding_writes() const { return outstanding_writes_; }
    // Nothing in the LSU, the MSHRs, the miss queue, or waiting to complete.
    bool idle() const {
        return lsu_count_ == 0 && reexec_.empty() && mshr_.busy() == 0 && const_mshr_.busy() == 0 &&
               miss_queue_.empty() && timed_.empty() && completed_.empty() && free_pending_.size() == pending_.size();
    }
    // idle(), and nothing left for the SM to drain (issue reports, locality events): cycle() then takes its quiet
    // path, which moves only the per-cycle counters, and every drain finds nothing (SM::dormant).
    bool quiet() const { return idle() && issued_.empty() && locality_.empty(); }
    const TagArray& tags() const { return tags_; }
    // Drops every valid line of the data cache (L1Config::flush_between_kernels); the constant cache keeps its
    // lines. The L1 writes through, so no line holds data the L2 lacks. Returns how many lines were dropped.
    std::uint64_t flush_data() { return tags_.invalidate_all(); }

    template <class V> void visit_stats(V& v) const {
        v.counter("cycles", cycles_, "core cycles simulated");
        v.counter("loads", loads_, "global and local warp loads");
        v.counter("prefetches", prefetches_, "of those loads, prefetch/prefetchu instructions (no register written)");
        v.counter("texture_loads", texture_loads_, "of those loads, tex fetches and suld surface loads");
        v.counter("texture_misses", texture_misses_, "line accesses of texture loads that allocated an MSHR entry");
        v.counter("stores", stores_, "global and local warp stores");
        v.counter("atomics", atomics_, "global warp atomics");
        v.counter("shared_accesses", shared_accesses_, "shared-memory warp accesses");
        v.counter("shared_bank_cycles", shared_bank_cycles_, "bank cycles of shared accesses (conflict degrees)");
        v.counter("constant_accesses", constant_accesses_, "constant and parameter warp loads");
        v.counter("accesses", accesses_, "line accesses of loads to the L1 data cache");
        v.counter("hits", hits_, "line accesses that found their line");
        v.counter("misses", misses_, "line accesses that allocated an MSHR entry");
        v.counter("mshr_merges", merges_, "line accesses merged into an existing MSHR entry");
        v.counter("evictions", evictions_, "valid lines replaced by fills or reservations");
        v.counter("write_evictions", write_evictions_, "lines evicted by global stores and atomics (write-evict)");
        v.counter("bypass_requests", bypass_requests_, "sector requests of loads that bypass the L1");
        v.counter("write_requests", write_requests_, "write-through packets (one per line a store touches)");
        v.counter("store_hits", store_hits_, "of those, stores that found their line valid in the L1");
        v.counter("atomic_requests", atomic_requests_, "atomic packets sent to the L2");
        v.counter("packets_sent", packets_sent_, "packets moved from the miss queue into the interconnect");
        v.counter("constant_hits", constant_hits_, "constant-cache accesses that hit");
        v.counter("constant_misses", constant_misses_, "constant-cache accesses that missed");
        v.counter("lsu_active_cycles", lsu_active_cycles_, "cycles the LSU held a memory instruction");
        v.counter("ldst_coal_cycles", ldst_coal_cycles_, "LDST_COAL: served one access, more remain (Wang 2016)");
        v.counter("ldst_mshr_cycles", ldst_mshr_cycles_, "LDST_MSHR: head miss found no MSHR resource (Wang 2016)");
        v.counter("ldst_icnt_cycles", ldst_icnt_cycles_, "LDST_ICNT: head miss found the miss queue full (Wang 2016)");
        v.counter("mshr_full_stall_cycles", mshr_full_stall_cycles_, "replays because every MSHR entry was busy");
        v.counter("merge_full_stall_cycles", merge_full_stall_cycles_, "replays because the line's entry was full");
        v.counter("reservation_fail_cycles", reservation_fail_cycles_,
                  "replays because every way of the set was reserved (allocate-on-miss)");
        v.counter("mshr_full_cycles", mshr_full_cycles_, "cycles with every MSHR entry busy");
        v.counter("miss_queue_full_cycles", miss_queue_full_cycles_, "cycles with the miss queue full");
        v.histogram("mshr_occupancy", mshr_occupancy_.buckets(), "cycles with k MSHR entries busy");
        v.histogram("mshr_requests_per_entry", requests_per_entry_.buckets(),
                    "MSHR entries that served k requests when their fill returned");
        v.counter("coherent_loads", coherent_loads_, "completed loads of 1-2 lines");
        v.counter("divergent_loads", divergent_loads_, "completed loads of more lines");
        v.counter("coherent_load_occlusion_cycles", coherent_occlusion_,
                  "coherent loads: cycles waiting behind other instructions or replaying (Wang 2016 Fig. 3)");
        v.counter("coherent_load_access_cycles", coherent_access_, "coherent loads: the rest of their L1 latency");
        v.counter("divergent_load_occlusion_cycles", divergent_occlusion_,
                  "divergent loads: cycles waiting behind other instructions or replaying (Wang 2016 Fig. 3)");
        v.counter("divergent_load_access_cycles", divergent_access_, "divergent loads: the rest of their L1 latency");
        v.counter("fully_cached_coherent_loads", fully_cached_coherent_,
                  "coherent loads with no miss (Wang 2016 Fig. 11)");
        v.counter("fully_cached_divergent_loads", fully_cached_divergent_,
                  "divergent loads with no miss (Wang 2016 Fig. 10)");
        if (config_.reexecution_entries > 0) {
            v.counter("reexec_loads", reexec_loads_, "loads whose remaining accesses moved to the re-execution queue");
            v.counter("reexec_accesses", reexec_accesses_, "line accesses served from the re-execution queue");
            v.counter("reexec_replay_cycles", reexec_replay_cycles_,
                      "MASCAR_Replay: cycles the re-execution queue's head could not be sent out (Wang 2016 Fig. 9)");
            v.counter("reexec_full_cycles", reexec_full_cycles_,
                      "cycles a stalled load stayed in the LSU because the queue had no room or held its warp");
        }
    }

private:
    // A ring index below 2 x lsu_slots_ brought into range.
    std::uint32_t lsu_wrap(std::uint32_t index) const { return index >= lsu_slots_ ? index - lsu_slots_ : index; }
    enum class Path : std::uint8_t { data_load, bypass_load, store_global, store_local, atomic, shared, constant };
    enum class IdClass : std::uint64_t { data_fill = 1, const_fill = 2, bypass = 3, write_ack = 4, atomic = 5 };
    static constexpr unsigned id_class_shift = 56;
    static constexpr std::uint64_t id_index_mask = (std::uint64_t{1} << id_class_shift) - 1;
    static std::uint64_t make_id(IdClass c, std::uint64_t index) {
        return (static_cast<std::uint64_t>(c) << id_class_shift) | index;
    }

    struct LsuSlot {
        std::uint32_t pending = 0;
        Path path = Path::data_load;
        std::uint32_t next = 0;
        std::uint32_t shared_cycles = 0;
        std::vector<LineTransaction> accesses;
    };
    struct Pending {
        Completion info;
        std::uint32_t outstanding = 0;
        core::Cycle ready_at = 0;
        core::Cycle started_at = 0;
        core::Cycle eligible_at = 0;
        bool started = false;
        bool issue_done = false;
        bool live = false;
        Path path = Path::data_load;
        std::uint32_t access_bytes = 4;
        bool texture = false; // a texture-unit load (WarpAccess::texture)
    };
    struct Timed {
        core::Cycle at;
        std::uint64_t seq;
        std::uint32_t pending;
        bool operator>(const Timed& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };

    static std::string space_name(ir::StateSpace s) {
        switch (s) {
        case ir::StateSpace::none: return "no";
        case ir::StateSpace::reg: return "register";
        case ir::StateSpace::sreg: return "special-register";
        case ir::StateSpace::global: return "global";
        case ir::StateSpace::shared: return "shared";
        case ir::StateSpace::local: return "local";
        case ir::StateSpace::constant: return "constant";
        case ir::StateSpace::param: return "parameter";
        case ir::StateSpace::generic: return "generic";
        case ir::StateSpace::tex: return "texture";
        }
        return "unknown";
    }

    std::uint32_t new_pending() {
        std::uint32_t index;
        if (!free_pending_.empty()) {
            index = free_pending_.back();
            free_pending_.pop_back();
        } else {
            index = static_cast<std::uint32_t>(pending_.size());
            pending_.emplace_back();
        }
        Pending& p = pending_[index];
        p.outstanding = 0;
        p.ready_at = 0;
        p.started = false;
        p.issue_done = false;
        p.live = true;
        return index;
    }
    std::uint32_t checked_pending(std::uint64_t index) const {
        if (index >= pending_.size() || !pending_[index].live)
            throw Error("the L1 received a response for an instruction that is not in flight");
        return static_cast<std::uint32_t>(index);
    }

    // cycle() when something is to be done (the steps in order; each one tests for its own work).
    void busy_cycle(core::Cycle now, Downstream& down) {
        if (!issued_.empty()) forget_undrained(issued_, issued_stale_);
        if (!locality_.empty()) forget_undrained(locality_, locality_stale_);
        if (!timed_.empty() && timed_.front().at <= now) release_timed(now);
        state_ = LsuState::idle;
        const bool port_used = !reexec_.empty() && serve_reexecution(now);
        if (lsu_count_ > 0 && !port_used) serve_head(now);
        if (!miss_queue_.empty() && down.can_send()) {
            down.send(miss_queue_.front());
            miss_queue_.pop();
            ++packets_sent_;
        }
        ++cycles_;
        mshr_occupancy_.add(mshr_.busy());
        if (mshr_.full()) ++mshr_full_cycles_;
        if (miss_queue_.full()) ++miss_queue_full_cycles_;
        switch (state_) {
        case LsuState::idle: break;
        case LsuState::busy: ++lsu_active_cycles_; break;
        case LsuState::stalled_coalesce:
            ++lsu_active_cycles_;
            ++ldst_coal_cycles_;
            break;
        case LsuState::stalled_mshr:
            ++lsu_active_cycles_;
            ++ldst_mshr_cycles_;
            break;
        case LsuState::stalled_icnt:
            ++lsu_active_cycles_;
            ++ldst_icnt_cycles_;
            break;
        }
    }

    void serve_head(core::Cycle now) {
        LsuSlot& slot = lsu_[lsu_head_];
        Pending& p = pending_[slot.pending];
        p.path = slot.path;
        if (!p.started) {
            p.started = true;
            p.started_at = now;
        }
        if (slot.path == Path::shared) {
            if (slot.shared_cycles > 1) {
                --slot.shared_cycles;
                state_ = LsuState::stalled_coalesce;
                return;
            }
            p.ready_at = now + config_.shared.latency;
            finish_issue(now);
            state_ = LsuState::busy;
            return;
        }
        if (slot.next < slot.accesses.size()) {
            const LsuState result = serve_access(slot.path, slot.accesses[slot.next], slot.pending, now);
            if (result != LsuState::busy) {
                ++pending_[slot.pending].info.occlusion_cycles;
                state_ = result;
                if (config_.reexecution_entries > 0 && slot.path == Path::data_load) divert_to_reexecution();
                return;
            }
            ++slot.next;
        }
        if (slot.next < slot.accesses.size()) {
            state_ = LsuState::stalled_coalesce;
            return;
        }
        finish_issue(now);
        state_ = LsuState::busy;
    }

    // The head instruction has had all its accesses served: it leaves the LSU.
    void finish_issue(core::Cycle now) {
        const std::uint32_t index = lsu_[lsu_head_].pending;
        lsu_head_ = lsu_wrap(lsu_head_ + 1);
        --lsu_count_;
        Pending& p = pending_[index];
        p.info.occlusion_cycles += p.started_at - p.eligible_at;
        all_accesses_served(index, now);
    }
    // Drops the reports that were already there when the previous cycle() began (undrained for a whole cycle).
    template <class T> static void forget_undrained(std::vector<T>& reports, std::size_t& stale) {
        reports.erase(reports.begin(), reports.begin() + static_cast<std::ptrdiff_t>(std::min(stale, reports.size())));
        stale = reports.size();
    }
    void all_accesses_served(std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        p.issue_done = true;
        issued_.push_back(p.info);
        if (p.outstanding == 0) schedule_completion(index, std::max(p.ready_at, now), now);
    }

    // ---- re-execution queue (MASCAR, Sethia 2015 Sec. 4.2) ----
    // Whether the remaining accesses of `slot`'s load fit in the queue and no other instruction of its warp is queued.
    bool can_divert(const LsuSlot& slot) const {
        const std::uint32_t warp = pending_[slot.pending].info.warp;
        const bool warp_queued = warp < reexec_per_warp_.size() && reexec_per_warp_[warp] != 0;
        return !warp_queued && reexec_.size() + (slot.accesses.size() - slot.next) <= config_.reexecution_entries;
    }
    // The LSU head load just stalled: move its remaining accesses to the queue when they all fit and no other
    // instruction of its warp is queued; the LSU is then free for the next instruction from the next cycle on.
    void divert_to_reexecution() {
        LsuSlot& slot = lsu_[lsu_head_];
        if (!can_divert(slot)) {
            ++reexec_full_cycles_;
            return;
        }
        const std::uint32_t warp = pending_[slot.pending].info.warp;
        const std::size_t remaining = slot.accesses.size() - slot.next;
        for (std::size_t k = slot.next; k < slot.accesses.size(); ++k)
            reexec_.push_back(Reexec{slot.pending, slot.accesses[k].address, k + 1 == slot.accesses.size()});
        if (warp >= reexec_per_warp_.size()) reexec_per_warp_.resize(std::size_t{warp} + 1, 0);
        reexec_per_warp_[warp] += static_cast<std::uint32_t>(remaining);
        ++reexec_loads_;
        Pending& p = pending_[slot.pending];
        p.info.occlusion_cycles += p.started_at - p.eligible_at;
        lsu_head_ = lsu_wrap(lsu_head_ + 1);
        --lsu_count_;
    }
    // Re-executes the queue's head access when the MSHRs and the miss queue have room (the saturation that put it
    // there has cleared). Returns whether it used the L1 port this cycle.
    bool serve_reexecution(core::Cycle now) {
        const Reexec head = reexec_.front();
        if (mshr_.full() || miss_queue_.full()) {
            ++reexec_replay_cycles_;
            ++pending_[head.pending].info.occlusion_cycles;
            return false;
        }
        const LsuState result = serve_cached_load(head.address, head.pending, now);
        if (result != LsuState::busy) {
            // A merge slot or a reservable way was missing: the port was spent on the attempt.
            ++reexec_replay_cycles_;
            ++pending_[head.pending].info.occlusion_cycles;
            state_ = result;
            return true;
        }
        ++reexec_accesses_;
        --reexec_per_warp_[pending_[head.pending].info.warp];
        reexec_.erase(reexec_.begin());
        state_ = LsuState::busy;
        if (head.last) all_accesses_served(head.pending, now);
        return true;
    }

    // Serves one coalesced access; returns busy on success, else the stall state (the access is replayed).
    LsuState serve_access(Path path, const LineTransaction& t, std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        switch (path) {
        case Path::data_load: return serve_cached_load(t.address, index, now);
        case Path::constant: return serve_constant(t.address, index, now);
        case Path::bypass_load:
            if (miss_queue_.full()) return LsuState::stalled_icnt;
            miss_queue_.push(MemPacket{t.address, config_.sector_bytes, MemPacket::read, sm_,
                                       make_id(IdClass::bypass, index), false, 0});
            ++bypass_requests_;
            ++p.outstanding;
            ++p.info.misses;
            return LsuState::busy;
        case Path::store_global:
        case Path::store_local: {
            if (miss_queue_.full()) return LsuState::stalled_icnt;
            const auto probe = tags_.probe(t.address);
            if (probe.state == LineState::valid) {
                ++store_hits_;
                if (path == Path::store_global) {
                    tags_.invalidate(t.address); // L1D "evicts cache blocks on stores to global memory"
                    ++write_evictions_;
                } else {
                    tags_.touch(probe.set, probe.way);
                }
            }
            const auto bytes = core::count_bits(t.sector_mask) * config_.sector_bytes;
            miss_queue_.push(
                MemPacket{t.address, bytes, MemPacket::write, sm_, make_id(IdClass::write_ack, 0), false, 0});
            ++write_requests_;
            ++outstanding_writes_;
            return LsuState::busy;
        }
        case Path::atomic: {
            if (miss_queue_.full()) return LsuState::stalled_icnt;
            if (tags_.invalidate(t.address)) ++write_evictions_;
            // The packet carries the touched sectors of one line; several lanes may update the same word, so the
            // lane count (which times the L2's atomic unit) can exceed what fits in the line.
            const auto bytes = core::count_bits(t.sector_mask) * config_.sector_bytes;
            miss_queue_.push(
                MemPacket{t.address, bytes, MemPacket::atomic, sm_, make_id(IdClass::atomic, index), false, t.lanes});
            ++atomic_requests_;
            ++p.outstanding;
            return LsuState::busy;
        }
        case Path::shared: break;
        }
        throw Error("internal error: an LSU access took an unknown path");
    }

    LsuState serve_cached_load(std::uint64_t address, std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        const std::uint64_t line = config_.geometry.line_of(address);
        // A load that cannot start (no MSHR, no room to merge, every way of its set reserved) is retried every
        // cycle. While its set's tags and the MSHRs are unchanged the retry gives the same answer, so it is counted
        // without the searches. A reservation failure comes after the miss-queue check, so that check still runs.
        if (stall_answers(line)) {
            if (stall_.reason == LoadStall::no_way && miss_queue_.full()) return LsuState::stalled_icnt;
            ++stall_cycles(stall_.reason);
            return LsuState::stalled_mshr;
        }
        const auto probe = tags_.probe(line);
        if (probe.state == LineState::valid) {
            ++accesses_;
            ++hits_;
            tags_.touch(probe.set, probe.way);
            p.ready_at = std::max(p.ready_at, now + config_.hit_latency);
            return LsuState::busy;
        }
        const std::uint32_t found = mshr_.find(line);
        if (found != mshr_.none) {
            if (!mshr_.can_add(found)) {
                ++merge_full_stall_cycles_;
                note_stall(line, probe.set, LoadStall::merge_full);
                return LsuState::stalled_mshr;
            }
            ++accesses_;
            mshr_.add(found, index);
            ++merges_;
            ++p.outstanding;
            ++p.info.misses;
            record_locality(p.info.warp, timing::LocalityEvent::miss, line);
            return LsuState::busy;
        }
        if (mshr_.full()) {
            ++mshr_full_stall_cycles_;
            note_stall(line, probe.set, LoadStall::mshr_full);
            return LsuState::stalled_mshr;
        }
        if (miss_queue_.full()) return LsuState::stalled_icnt;
        std::uint32_t way = 0;
        if (config_.allocation == AllocationPolicy::on_miss) {
            way = tags_.victim(probe.set);
            if (way == TagArray::no_way) {
                ++reservation_fail_cycles_;
                note_stall(line, probe.set, LoadStall::no_way);
                return LsuState::stalled_mshr;
            }
            install_line(probe.set, way, line, LineState::reserved, p.info.warp);
        }
        ++accesses_;
        const std::uint32_t entry = mshr_.allocate(line);
        reserved_way_[entry] = way;
        entry_owner_[entry] = p.info.warp;
        record_locality(p.info.warp, timing::LocalityEvent::miss, line);
        mshr_.add(entry, index);
        miss_queue_.push(MemPacket{line, config_.geometry.line_bytes, MemPacket::read, sm_,
                                   make_id(IdClass::data_fill, entry), false, 0});
        ++misses_;
        if (p.texture) ++texture_misses_;
        ++p.outstanding;
        ++p.info.misses;
        if (config_.duplicate_tracker != nullptr) config_.duplicate_tracker->record(sm_, line, now);
        return LsuState::busy;
    }

    LsuState serve_constant(std::uint64_t address, std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        const std::uint64_t line = config_.constant.geometry.line_of(address);
        const auto probe = const_tags_.probe(line);
        if (probe.state == LineState::valid) {
            ++constant_hits_;
            const_tags_.touch(probe.set, probe.way);
            p.ready_at = std::max(p.ready_at, now + config_.constant.hit_latency);
            return LsuState::busy;
        }
        const std::uint32_t found = const_mshr_.find(line);
        if (found != const_mshr_.none) {
            if (!const_mshr_.can_add(found)) return LsuState::stalled_mshr;
            const_mshr_.add(found, index);
            ++constant_misses_;
            ++p.outstanding;
            ++p.info.misses;
            return LsuState::busy;
        }
        if (const_mshr_.full()) return LsuState::stalled_mshr;
        if (miss_queue_.full()) return LsuState::stalled_icnt;
        const std::uint32_t entry = const_mshr_.allocate(line);
        const_mshr_.add(entry, index);
        miss_queue_.push(MemPacket{line, config_.constant.geometry.line_bytes, MemPacket::read, sm_,
                                   make_id(IdClass::const_fill, entry), false, 0});
        ++constant_misses_;
        ++p.outstanding;
        ++p.info.misses;
        return LsuState::busy;
    }

    void fill_data(std::uint32_t entry, const MemPacket& packet, core::Cycle now) {
        if (!mshr_.valid(entry) || mshr_.line(entry) != config_.geometry.line_of(packet.address))
            throw Error("the L1 received a fill that matches no outstanding MSHR entry");
        const std::uint64_t line = mshr_.line(entry);
        if (config_.allocation == AllocationPolicy::on_miss) {
            tags_.validate_reserved(config_.geometry.set_of(line), reserved_way_[entry]);
        } else if (const auto present = tags_.probe(line); present.state == LineState::valid) {
            tags_.touch(present.set, present.way);
        } else {
            const std::uint32_t way = tags_.victim(present.set);
            install_line(present.set, way, line, LineState::valid, entry_owner_[entry]);
        }
        requests_per_entry_.add(mshr_.request_count(entry));
        for (std::uint32_t waiter : mshr_.requests(entry)) resolve(waiter, now);
        mshr_.release(entry);
    }

    // Installs a line for `owner`'s miss; a valid line it replaces is reported to the warp that brought it in.
    void install_line(std::uint32_t set, std::uint32_t way, std::uint64_t line, LineState state, std::uint32_t owner) {
        const std::size_t slot = std::size_t{set} * config_.geometry.ways + way;
        const TagArray::Eviction e = tags_.install(set, way, line, state);
        if (e.evicted) {
            ++evictions_;
            if (line_owner_[slot] != no_owner)
                record_locality(line_owner_[slot], timing::LocalityEvent::eviction, e.line);
        }
        line_owner_[slot] = owner;
    }
    void record_locality(std::uint32_t warp, timing::LocalityEvent::Kind kind, std::uint64_t line) {
        if (!report_locality_) return;
        timing::LocalityEvent event;
        event.kind = kind;
        event.line = line;
        locality_.emplace_back(warp, event);
    }

    void fill_constant(std::uint32_t entry, const MemPacket& packet, core::Cycle now) {
        if (!const_mshr_.valid(entry) || const_mshr_.line(entry) != config_.constant.geometry.line_of(packet.address))
            throw Error("the L1 received a constant fill that matches no outstanding constant MSHR entry");
        const std::uint64_t line = const_mshr_.line(entry);
        const std::uint32_t set = config_.constant.geometry.set_of(line);
        const_tags_.install(set, const_tags_.victim(set), line, LineState::valid);
        for (std::uint32_t waiter : const_mshr_.requests(entry)) resolve(waiter, now);
        const_mshr_.release(entry);
    }

    void resolve(std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        if (p.outstanding == 0) throw Error("the L1 received more responses for an instruction than it sent requests");
        --p.outstanding;
        if (p.outstanding == 0 && p.issue_done) schedule_completion(index, std::max(p.ready_at, now), now);
    }

    void schedule_completion(std::uint32_t index, core::Cycle at, core::Cycle now) {
        if (at <= now) {
            complete(index, now);
            return;
        }
        timed_.push_back(Timed{at, seq_++, index});
        std::push_heap(timed_.begin(), timed_.end(), std::greater<>{});
    }
    void release_timed(core::Cycle now) {
        while (!timed_.empty() && timed_.front().at <= now) {
            std::pop_heap(timed_.begin(), timed_.end(), std::greater<>{});
            const std::uint32_t index = timed_.back().pending;
            timed_.pop_back();
            complete(index, now);
        }
    }
    void complete(std::uint32_t index, core::Cycle now) {
        Pending& p = pending_[index];
        if (p.path == Path::data_load && p.info.kind == WarpAccess::load) {
            const core::Cycle total = now >= p.eligible_at ? now - p.eligible_at : 0;
            const core::Cycle occluded = std::min(total, p.info.occlusion_cycles);
            const bool cached = p.info.misses == 0;
            if (p.info.coherent) {
                ++coherent_loads_;
                coherent_occlusion_ += occluded;
                coherent_access_ += total - occluded;
                if (cached) ++fully_cached_coherent_;
            } else {
                ++divergent_loads_;
                divergent_occlusion_ += occluded;
                divergent_access_ += total - occluded;
                if (cached) ++fully_cached_divergent_;
            }
        }
        completed_.push_back(p.info);
        p.live = false;
        free_pending_.push_back(index);
    }

    // The last load that could not start, and why: serve_cached_load's answer while `tags` (its set's version)
    // and `mshr` (what of the MSHRs that answer reads: mshr_key) stand. No line is ~0.
    struct LoadStall {
        enum Reason : std::uint8_t { merge_full, mshr_full, no_way };
        std::uint64_t line = ~std::uint64_t{0};
        std::uint32_t set = 0; // the line's set
        std::uint64_t tags = 0;
        std::uint64_t mshr = 0;
        Reason reason = merge_full;
    };
    LoadStall stall_;
    // What of the MSHRs a stall for `reason` depends on. A full merge slot or a full table can end with any release,
    // so those watch every change (version). "Every way reserved" was reached with the line untracked and the table
    // not full; releases keep both true, and what they free in the line's set (a fill validating a reserved way)
    // changes the set's version. So it watches allocations only: a fill elsewhere (most of a memory-bound run's MSHR
    // changes) leaves it answered.
    std::uint64_t mshr_key(LoadStall::Reason reason) const {
        return reason == LoadStall::no_way ? mshr_.allocations() : mshr_.version();
    }
    // Whether the stall memo answers a retry of `line`: its set's tags and what its reason reads of the MSHRs are
    // unchanged since. The memo keeps the line's set, so a retry computes no set index.
    bool stall_answers(std::uint64_t line) const {
        return stall_.line == line && stall_.tags == tags_.set_version(stall_.set) &&
               stall_.mshr == mshr_key(stall_.reason);
    }
    // What the next cycle() repeats, when it repeats a stall (repeats_stall), and so what stalled_cycles counts:
    //  - lsu_head: the LSU head's load retries its access and the stall memo answers (and, with a re-execution
    //    queue, divert_to_reexecution refuses it again: the warp has queued accesses or they do not fit);
    //  - queue_waits: the queue's head waits for an MSHR (serve_reexecution), the LSU being empty;
    //  - queue_waits_lsu_head: both of the above in one cycle (the waiting head leaves the port to the LSU);
    //  - queue_retries: the MSHRs have room, the queue's head takes the port and the stall memo answers its retry.
    // The miss queue is empty in each (so never full), and with a full MSHR table only a fill can change what the
    // queue's head or a memo-answered retry finds.
    enum class RepeatedStall : std::uint8_t { none, lsu_head, queue_waits, queue_waits_lsu_head, queue_retries };
    RepeatedStall repeated_stall() const {
        if (!miss_queue_.empty() || !issued_.empty() || !locality_.empty() || !completed_.empty())
            return RepeatedStall::none;
        bool queue_waits = false;
        if (!reexec_.empty()) {
            if (!mshr_.full())
                return stall_answers(config_.geometry.line_of(reexec_.front().address)) ? RepeatedStall::queue_retries
                                                                                        : RepeatedStall::none;
            if (lsu_count_ == 0) return RepeatedStall::queue_waits;
            queue_waits = true;
        } else if (lsu_count_ == 0) {
            return RepeatedStall::none;
        }
        const LsuSlot& slot = lsu_[lsu_head_];
        if (slot.path != Path::data_load || slot.next >= slot.accesses.size() || !pending_[slot.pending].started ||
            !stall_answers(config_.geometry.line_of(slot.accesses[slot.next].address)))
            return RepeatedStall::none;
        if (config_.reexecution_entries != 0 && can_divert(slot)) return RepeatedStall::none;
        return queue_waits ? RepeatedStall::queue_waits_lsu_head : RepeatedStall::lsu_head;
    }
    // Remembers that a load of `line` (in `set`) could not start for `reason`, with the versions stall_answers reads.
    void note_stall(std::uint64_t line, std::uint32_t set, LoadStall::Reason reason) {
        stall_ = LoadStall{line, set, tags_.set_version(set), mshr_key(reason), reason};
    }
    // The counter of the cycles a load stalled for `reason`.
    std::uint64_t& stall_cycles(LoadStall::Reason reason) {
        switch (reason) {
        case LoadStall::merge_full: return merge_full_stall_cycles_;
        case LoadStall::mshr_full: return mshr_full_stall_cycles_;
        case LoadStall::no_way: break;
        }
        return reservation_fail_cycles_;
    }
    // What every one of `count` cycles ending at `last` counts whatever the LSU does (quiet_cycles, stalled_cycles).
    // The miss queue is empty in both, so no cycle counts it full.
    void count_bulk_cycles(std::uint64_t count, core::Cycle last) {
        accepted_this_cycle_ = false;
        cycled_ = true;
        last_cycle_ = last;
        cycles_ += count;
        mshr_occupancy_.add(mshr_.busy(), count);
        if (mshr_.full()) mshr_full_cycles_ += count;
    }

    L1Config config_;
    std::uint32_t sm_;
    TagArray tags_;
    MshrTable<std::uint32_t> mshr_;
    std::vector<std::uint32_t> reserved_way_; // allocate-on-miss: the way each entry reserved
    static constexpr std::uint32_t no_owner = ~std::uint32_t{0};
    std::vector<std::uint32_t> entry_owner_; // the warp whose miss allocated each MSHR entry
    std::vector<std::uint32_t> line_owner_; // per (set, way): the warp whose miss brought the line in
    TagArray const_tags_;
    MshrTable<std::uint32_t> const_mshr_;
    Coalescer classifier_;
    SharedMemoryBanks shared_;
    BoundedQueue<MemPacket> miss_queue_;
    std::vector<LsuSlot> lsu_;
    // lsu_.size(), kept: the vector's size divides by the slot's size, and a ring index taken modulo it divides again.
    std::uint32_t lsu_slots_ = static_cast<std::uint32_t>(lsu_.size());
    std::uint32_t lsu_head_ = 0;
    std::uint32_t lsu_count_ = 0;
    bool accepted_this_cycle_ = false;
    LsuState state_ = LsuState::idle;
    std::vector<Pending> pending_;
    std::vector<std::uint32_t> free_pending_;
    std::vector<Timed> timed_;
    std::uint64_t seq_ = 0;
    std::vector<Completion> completed_;
    std::vector<Completion> issued_;
    std::vector<std::pair<std::uint32_t, timing::LocalityEvent>> locality_;
    bool report_locality_ = true;
    std::size_t issued_stale_ = 0, locality_stale_ = 0;
    struct Reexec {
        std::uint32_t pending;
        std::uint64_t address;
        bool last; // the load's last access: serving it finishes the load's issue
    };
    std::vector<Reexec> reexec_; // FIFO, at most config_.reexecution_entries
    // reexec_'s entries per warp (of their loads), so that divert_to_reexecution tells whether a warp has entries
    // without a scan of the queue: the scan, in every cycle of a stalled head, was 6% of MASCAR's atax on GTX480.
    std::vector<std::uint32_t> reexec_per_warp_;
    std::uint64_t reexec_loads_ = 0, reexec_accesses_ = 0, reexec_replay_cycles_ = 0, reexec_full_cycles_ = 0;
    std::uint64_t outstanding_writes_ = 0;
    bool cycled_ = false;
    core::Cycle last_cycle_ = 0;

    std::uint64_t prefetches_ = 0;
    std::uint64_t texture_loads_ = 0, texture_misses_ = 0;
    std::uint64_t cycles_ = 0, loads_ = 0, stores_ = 0, atomics_ = 0, shared_accesses_ = 0, shared_bank_cycles_ = 0,
                  constant_accesses_ = 0, accesses_ = 0, hits_ = 0, misses_ = 0, merges_ = 0, evictions_ = 0,
                  write_evictions_ = 0, bypass_requests_ = 0, write_requests_ = 0, store_hits_ = 0,
                  atomic_requests_ = 0, packets_sent_ = 0, constant_hits_ = 0, constant_misses_ = 0,
                  lsu_active_cycles_ = 0, ldst_coal_cycles_ = 0, ldst_mshr_cycles_ = 0, ldst_icnt_cycles_ = 0,
                  mshr_full_stall_cycles_ = 0, merge_full_stall_cycles_ = 0, reservation_fail_cycles_ = 0,
                  mshr_full_cycles_ = 0, miss_queue_full_cycles_ = 0, coherent_loads_ = 0, divergent_loads_ = 0,
                  coherent_occlusion_ = 0, coherent_access_ = 0, divergent_occlusion_ = 0, divergent_access_ = 0,
                  fully_cached_coherent_ = 0, fully_cached_divergent_ = 0;
    core::Histogram mshr_occupancy_;
    core::Histogram requests_per_entry_;
};

// L1<Knobs...>: the L1 slot policy. Omitted knobs take L1Config's defaults (docs/memory.md).
template <class... Knobs> class L1 : public L1Unit {
    static_assert((L1Knob<Knobs> && ...),
                  "every argument of L1<...> must be an L1 knob: MSHR<N>, Merges<N>, Sets<N>, Ways<N>, LineBytes<N>, "
                  "SectorBytes<N>, MissQueue<N>, HitLatency<N>, LsuQueue<N>, SharedBanks<N>, SharedLanesPerCycle<N>, "
                  "AllocOnFill or AllocOnMiss, HashedIndex or LinearIndex, CacheGlobalLoads or BypassL1ForGlobalLoads, "
                  "ReexecutionQueue<N>, CacheTextureLoads or BypassL1ForTextureLoads");
    static_assert(detail::knob_kinds_unique<Knobs...>(), "each kind of L1 knob may be given at most once");

    template <KnobKind Kind, auto Fallback>
    static constexpr auto knob = detail::KnobValue<Kind, Fallback, Knobs...>::value;
    static constexpr L1Config defaults{};

public:
    static constexpr std::uint32_t mshr_entries = knob<KnobKind::mshr_entries, defaults.mshr_entries>;
    static_assert(mshr_entries > 0, "an L1 needs at least one MSHR entry");
    static constexpr std::uint32_t mshr_max_requests = knob<KnobKind::mshr_merges, defaults.mshr_max_requests>;
    static constexpr std::uint32_t sets = knob<KnobKind::sets, defaults.geometry.sets>;
    static constexpr std::uint32_t ways = knob<KnobKind::ways, defaults.geometry.ways>;
    static constexpr std::uint32_t line_bytes = knob<KnobKind::line_bytes, defaults.geometry.line_bytes>;
    static_assert(std::has_single_bit(line_bytes), "the L1 line size must be a power of two");
    static constexpr std::uint32_t sector_bytes = knob<KnobKind::sector_bytes, defaults.sector_bytes>;
    static constexpr std::uint32_t miss_queue = knob<KnobKind::miss_queue, defaults.miss_queue>;
    static constexpr std::uint32_t hit_latency = knob<KnobKind::hit_latency, defaults.hit_latency>;
    static constexpr std::uint32_t lsu_queue = knob<KnobKind::lsu_queue, defaults.lsu_queue>;
    static constexpr std::uint32_t shared_banks = knob<KnobKind::shared_banks, defaults.shared.banks>;
    static constexpr std::uint32_t shared_lanes_per_cycle =
        knob<KnobKind::shared_lanes_per_cycle, defaults.shared.lanes_per_cycle>;
    static constexpr AllocationPolicy allocation = knob<KnobKind::allocation, defaults.allocation>;
    static constexpr SetIndexing indexing = knob<KnobKind::indexing, defaults.geometry.indexing>;
    static_assert(indexing != SetIndexing::fermi_hash || sets == 32 || sets == 64,
                  "the Fermi hashed set index (HashedIndex) is defined for 32 or 64 sets only");
    static constexpr bool cache_global_loads = knob<KnobKind::global_load_caching, defaults.cache_global_loads>;
    static constexpr bool cache_texture_loads = knob<KnobKind::texture_load_caching, defaults.cache_texture_loads>;
    static constexpr std::uint32_t reexecution_entries =
        knob<KnobKind::reexecution_queue, defaults.reexecution_entries>;

    static constexpr auto name_storage =
        detail::FixedString("L1<") + detail::JoinNames<Knobs...>::value + detail::FixedString(">");
    static constexpr std::string_view name = name_storage.view();

    // The configuration the knobs describe.
    static L1Config knob_config() {
        L1Config c;
        c.geometry = CacheGeometry{sets, ways, line_bytes, indexing};
        c.sector_bytes = sector_bytes;
        c.mshr_entries = mshr_entries;
        c.mshr_max_requests = mshr_max_requests;
        c.miss_queue = miss_queue;
        c.hit_latency = hit_latency;
        c.lsu_queue = lsu_queue;
        c.allocation = allocation;
        c.cache_global_loads = cache_global_loads;
        c.cache_texture_loads = cache_texture_loads;
        c.reexecution_entries = reexecution_entries;
        c.shared.banks = shared_banks;
        c.shared.lanes_per_cycle = shared_lanes_per_cycle;
        return c;
    }
    // Defaults to the knobs; converts from any L1Config (a machine preset overrides the knobs).
    struct Config : L1Config {
        Config() : L1Config(knob_config()) {}
        Config(const L1Config& c) : L1Config(c) {}
    };

    L1(const Config& config, std::uint32_t sm_id) : L1Unit(config, sm_id) {}
};

} // namespace gpuarch::mem
