#pragma once
// A memory partition: one L2 slice in front of one DRAM channel (Wang 2016 Table 1: 6 partitions, unified
// 768 KB 16-way 128 B L2). Packets from the request crossbar enter a fixed delay line (the minimum L2 latency,
// 120 core cycles in Wang 2016 Table 1), are served by the L2 slice one per L2 cycle, and L2 misses enter a
// second fixed delay line (the minimum DRAM latency, 100 core cycles in Wang 2016 Table 1) before the DRAM
// request queue. This is how GPGPU-Sim 3.x applies those two table rows (its ROP and DRAM latency queues).
//
// L2 slice contract:
//  * write-back, allocate-on-fill for reads; writes allocate without fetching the line (the write carries its
//    bytes) and mark it dirty; dirty victims are written back to DRAM;
//  * MSHRs per line with a cap on merged requests; a write to a line whose fill is pending marks the fill dirty;
//  * atomics execute at the L2: the data is computed functionally, the L2 times it as a read of the line
//    followed by `atomic_cycles_per_lane` L2 cycles per lane operation, during which the slice serves nothing
//    else, and leaves the line dirty;
//  * write acknowledgements go back to the SM when `write_acks` is set;
//  * with the L2 disabled (`enabled = false`, for machines whose source gives no L2, e.g. Narasiman 2010),
//    requests go straight to DRAM and DRAM completions straight back.
// A request the slice cannot serve this cycle (no MSHR, no response slot, DRAM path full) stays at the head of
// the delay line, which backs up into the interconnect.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/dram.hpp>
#include <gpuarch/mem/mshr.hpp>
#include <gpuarch/mem/queue.hpp>
#include <gpuarch/mem/tag_array.hpp>

namespace gpuarch::mem {

struct L2Config {
    bool enabled = true;
    // One slice: 768 KB / 6 partitions = 128 KB, 16-way, 128 B lines -> 64 sets (Wang 2016 Table 1).
    CacheGeometry geometry{64, 16, 128, SetIndexing::linear};
    std::uint32_t mshr_entries = 32; // documented default (no source gives L2 MSHRs)
    std::uint32_t mshr_max_requests = 8; // documented default
    std::uint32_t atomic_cycles_per_lane = 1; // documented default
    bool write_acks = true;
};

struct PartitionConfig {
    L2Config l2{};
    DramConfig dram{};
    std::uint32_t l2_latency = 120; // core cycles; Wang 2016 Table 1 "Min. L2 Latency: 120 cycles (core clock)"
    std::uint32_t dram_latency = 100; // core cycles; Wang 2016 Table 1 "Global Memory ... min latency: 100 cycles"
    std::uint32_t delay_slack = 64; // delay lines hold latency + slack packets (documented default)

    void validate() const {
        if (l2.enabled) {
            l2.geometry.validate("an L2 slice");
            if (l2.mshr_entries == 0 || l2.mshr_max_requests == 0)
                throw Error("an L2 slice needs at least one MSHR entry holding at least one request");
        }
        dram.validate();
    }
};

class MemoryPartition {
public:
    MemoryPartition(const PartitionConfig& config, std::uint32_t id)
        : config_((config.validate(), config)), id_(id),
          tags_(config.l2.enabled ? config.l2.geometry : CacheGeometry{1, 1, 128, SetIndexing::linear}),
          mshr_(config.l2.enabled ? config.l2.mshr_entries : 1, config.l2.enabled ? config.l2.mshr_max_requests : 1),
          fill_dirty_(config.l2.enabled ? config.l2.mshr_entries : 1, 0),
          rop_(std::size_t{config.l2_latency} + config.delay_slack),
          to_dram_(std::size_t{config.dram_latency} + config.delay_slack), dram_(config.dram) {
        const std::size_t passthrough = config.l2.enabled ? 0 : to_dram_.capacity() + config.dram.queue_capacity;
        passthrough_.resize(passthrough);
        for (std::size_t i = passthrough; i > 0; --i) free_passthrough_.push_back(static_cast<std::uint32_t>(i - 1));
    }

    std::uint32_t id() const { return id_; }
    const PartitionConfig& config() const { return config_; }

    bool can_accept() const { return !rop_.full(); }
    // Functional warming (sampled timing, docs/sampling.md): the line holding `local` becomes the slice's most
    // recently used, dirty for a write, as the access would leave it, in no time and with no traffic. A dirty
    // victim is dropped rather than written back: the write-back belongs to the skipped work whose cycles are
    // extrapolated. Statistics do not count warming.
    void warm(std::uint64_t local, bool write) {
        if (!config_.l2.enabled) return;
        // A head refused for want of a response slot may be a miss after this (its line evicted): no longer known.
        head_waits_ = false;
        const std::uint64_t line = line_of(local);
        const auto probe = tags_.probe(line);
        if (probe.state == LineState::valid) {
            tags_.touch(probe.set, probe.way);
            if (write) tags_.set_dirty(probe.set, probe.way);
            return;
        }
        if (mshr_.find(line) != mshr_.none) return; // its fill is on the way
        const std::uint32_t way = tags_.victim(probe.set);
        if (way != TagArray::no_way) tags_.install(probe.set, way, line, LineState::valid, write);
    }
    // A request arrives from the interconnect; `local` is its address inside this partition. Returns the core cycle
    // from which the slice may serve it (the end of its delay line).
    core::Cycle accept(const MemPacket& packet, std::uint64_t local, core::Cycle core_now) {
        const core::Cycle ready_at = core_now + config_.l2_latency;
        rop_.push(Delayed{ready_at, packet, local});
        return ready_at;
    }

    // One L2 clock. Responses go into `out` (the partition's port into the response crossbar).
    void l2_cycle(core::Cycle core_now, Downstream& out) {
        ++l2_cycles_;
        core_now_ = core_now;
        fill_waits_ = head_waits_ = false;
        if (atomic_busy_until_ > l2_cycles_) {
            ++atomic_busy_cycles_;
            return;
        }
        if (dram_.has_completed()) {
            refused_for_output_ = false;
            if (config_.l2.enabled ? fill(out) : pass_back(out)) return;
            fill_waits_ = refused_for_output_;
        }
        if (rop_.empty() || rop_.front().ready_at > core_now) return;
        const Delayed d = rop_.front();
        refused_for_output_ = false;
        const bool served = config_.l2.enabled ? serve(d, out) : pass_down(d);
        if (served) {
            rop_.pop();
        } else {
            ++stalled_cycles_;
            head_waits_ = refused_for_output_;
        }
    }
    // Whether the last l2_cycle left work that waits only for room in `out` (its port into the response network):
    // a due DRAM completion, or the due head request, refused because `out` was full, and `out` still full. Until
    // the network takes a packet from `out`, every l2_cycle refuses them again, and changes nothing but its counts
    // (next_event() does not count them as events; skip_quiet_cycles() counts those cycles). The memory system
    // ticks such a partition again when `out` has room (or at next_event()).
    bool waits_for_output(const Downstream& out) const { return (fill_waits_ || head_waits_) && !out.can_send(); }

    // One DRAM clock.
    void dram_cycle(core::Cycle dram_now, core::Cycle core_now) {
        while (!to_dram_.empty() && to_dram_.front().ready_at <= core_now && dram_.can_accept()) {
            dram_.push(to_dram_.front().request);
            to_dram_.pop();
        }
        dram_.cycle(dram_now);
    }

    bool idle() const { return rop_.empty() && to_dram_.empty() && dram_.idle() && mshr_.busy() == 0; }
    static constexpr core::Cycle never = DramChannel::never; // one sentinel for both clock domains
    // The first core cycle after `core_now` in which l2_cycle or dram_cycle may do more than count itself, from the
    // state after core cycle `core_now` (core_now + 1 when that may be the next one): the head of either delay line
    // comes due, or the DRAM channel's next event (DramChannel::next_event, a DRAM cycle, which
    // `core_cycle_of_dram(t)` turns into the core cycle whose DRAM ticks include t). `never` with nothing in flight
    // and no atomic in the slice; an accept() can only bring it forward, to the cycle it returns. The memory system
    // skips the cycles before it.
    // Work that waits for room in `out` (waits_for_output) is no event: the memory system wakes the partition when
    // the response network frees a slot.
    template <class CoreCycleOfDram>
    core::Cycle next_event(core::Cycle core_now, CoreCycleOfDram&& core_cycle_of_dram, const Downstream& out) const {
        const core::Cycle soon = core_now + 1;
        if (atomic_busy_until_ > l2_cycles_) return soon; // counted per L2 cycle; short, so not skipped
        const bool out_full = !out.can_send();
        core::Cycle at = never;
        // A head that is due but still waiting (a refused serve, a full DRAM queue) retries in every cycle.
        if (!rop_.empty() && !(head_waits_ && out_full)) at = std::max(rop_.front().ready_at, soon);
        if (!to_dram_.empty()) at = std::min(at, std::max(to_dram_.front().ready_at, soon));
        if (at == soon) return soon;
        const core::Cycle dram_at = fill_waits_ && out_full ? dram_.next_command() : dram_.next_event();
        if (dram_at != DramChannel::never)
            at = std::min(at, dram_at <= dram_.now() ? soon : core_cycle_of_dram(dram_at));
        return at;
    }
    // Exactly what `l2_ticks` calls of l2_cycle and `dram_ticks` calls of dram_cycle (the last at DRAM cycle
    // `dram_now`) do when all of them fall before next_event(), with the response port staying full if the partition
    // waits_for_output(): they count cycles (and the DRAM queue's occupancy, and a stall for each refusal of a
    // waiting head) and change nothing else that any later cycle reads (core_now_ is rewritten by the next l2_cycle
    // before it is used). accept() calls in between change nothing here: their requests come due at or after the
    // cycle accept() returns, which the caller does not skip, and queue behind a waiting head.
    void skip_quiet_cycles(std::uint64_t l2_ticks, std::uint64_t dram_ticks, core::Cycle dram_now) {
        if (l2_ticks > 0 && atomic_busy_until_ > l2_cycles_)
            throw Error("internal error: a memory partition skipped cycles of a busy atomic unit");
        l2_cycles_ += l2_ticks;
        if (head_waits_) stalled_cycles_ += l2_ticks;
        dram_.skip_quiet_cycles(dram_ticks, dram_now, fill_waits_);
    }
    const DramChannel& dram() const { return dram_; }

    struct Stats {
        std::uint64_t l2_cycles = 0, reads = 0, read_hits = 0, read_misses = 0, writes = 0, write_hits = 0,
                      write_misses = 0, atomics = 0, atomic_hits = 0, mshr_merges = 0, fills = 0, writebacks = 0,
                      stalled_cycles = 0, atomic_busy_cycles = 0, responses = 0;
        Stats& operator+=(const Stats& o) {
            l2_cycles += o.l2_cycles;
            reads += o.reads;
            read_hits += o.read_hits;
            read_misses += o.read_misses;
            writes += o.writes;
            write_hits += o.write_hits;
            write_misses += o.write_misses;
            atomics += o.atomics;
            atomic_hits += o.atomic_hits;
            mshr_merges += o.mshr_merges;
            fills += o.fills;
            writebacks += o.writebacks;
            stalled_cycles += o.stalled_cycles;
            atomic_busy_cycles += o.atomic_busy_cycles;
            responses += o.responses;
            return *this;
        }
        template <class V> void visit_stats(V& v) const {
            v.counter("l2_cycles", l2_cycles, "L2 clock cycles (summed over slices)");
            v.counter("l2_reads", reads, "read requests served by the L2");
            v.counter("l2_read_hits", read_hits, "reads that found their line");
            v.counter("l2_read_misses", read_misses, "reads that missed (new MSHR entries and merges)");
            v.counter("l2_writes", writes, "write requests");
            v.counter("l2_write_hits", write_hits, "writes that found their line");
            v.counter("l2_write_misses", write_misses, "writes that allocated a line or joined a pending fill");
            v.counter("l2_atomics", atomics, "atomic requests executed at the L2");
            v.counter("l2_atomic_hits", atomic_hits, "atomics that found their line");
            v.counter("l2_mshr_merges", mshr_merges, "requests merged into a pending L2 miss");
            v.counter("l2_fills", fills, "lines filled from DRAM");
            v.counter("l2_writebacks", writebacks, "dirty lines written back to DRAM");
            v.counter("l2_stalled_cycles", stalled_cycles, "cycles the head request could not be served");
            v.counter("l2_atomic_busy_cycles", atomic_busy_cycles, "cycles the slice spent executing atomics");
            v.counter("l2_responses", responses, "responses sent towards the SMs");
        }
    };
    Stats stats() const {
        Stats s = stats_;
        s.l2_cycles = l2_cycles_;
        s.stalled_cycles = stalled_cycles_;
        s.atomic_busy_cycles = atomic_busy_cycles_;
        return s;
    }
    template <class V> void visit_stats(V& v) const {
        stats().visit_stats(v);
        dram_.visit_stats(v);
    }

private:
    struct Delayed {
        core::Cycle ready_at = 0;
        MemPacket packet;
        std::uint64_t local = 0;
    };
    struct DelayedDram {
        core::Cycle ready_at = 0;
        DramRequest request;
    };

    static MemPacket response_to(const MemPacket& request) {
        MemPacket r = request;
        r.is_response = true;
        return r;
    }
    bool needs_response(const MemPacket& p) const { return p.kind != MemPacket::write || config_.l2.write_acks; }
    void to_dram(const DramRequest& r, core::Cycle core_now) {
        to_dram_.push(DelayedDram{core_now + config_.dram_latency, r});
    }
    std::uint64_t line_of(std::uint64_t local) const { return config_.l2.geometry.line_of(local); }
    void check_fits(const Delayed& d) const {
        if (line_of(d.local) != line_of(d.local + (d.packet.bytes == 0 ? 0 : d.packet.bytes - 1))) [[unlikely]]
            throw_crossing(d);
    }
    [[noreturn, gnu::cold]] void throw_crossing(const Delayed& d) const {
        throw Error("a " + std::to_string(d.packet.bytes) + "-byte request crosses an L2 line of " +
                    std::to_string(config_.l2.geometry.line_bytes) +
                    " bytes; the L2 line and the interleaving must be at least the L1 line size");
    }

    // Serves the head request with the L2 enabled; false leaves it at the head.
    bool serve(const Delayed& d, Downstream& out) {
        check_fits(d);
        const MemPacket& p = d.packet;
        const std::uint64_t line = line_of(d.local);
        // A read or atomic refused for want of an MSHR entry, a merge slot or room toward DRAM is retried in every L2
        // cycle. While its set's tags and the MSHRs are unchanged, the probe (a miss) and the MSHR search answer as
        // they did, so only the conditions that refused it are tested again.
        if (p.kind != MemPacket::write && line == refused_.line &&
            tags_.set_version(refused_.set) == refused_.set_version && mshr_.version() == refused_.mshr_version) {
            if (refused_.merge_full || mshr_.full() || to_dram_.full()) return false;
        }
        const auto probe = tags_.probe(line);
        // Remembers why a miss was refused (see above).
        auto refuse_miss = [&](bool merge_full) {
            refused_ = RefusedMiss{line, probe.set, tags_.set_version(probe.set), mshr_.version(), merge_full};
            return false;
        };
        if (p.kind == MemPacket::write) {
            if (needs_response(p) && !out.can_send()) return refuse_for_output();
            if (probe.state == LineState::valid) {
                tags_.set_dirty(probe.set, probe.way);
                tags_.touch(probe.set, probe.way);
                ++stats_.write_hits;
            } else if (const std::uint32_t e = mshr_.find(line); e != mshr_.none) {
                fill_dirty_[e] = 1;
                ++stats_.write_misses;
            } else {
                const std::uint32_t way = tags_.victim(probe.set);
                const bool victim_dirty =
                    tags_.state(probe.set, way) == LineState::valid && tags_.dirty(probe.set, way);
                if (victim_dirty && to_dram_.full()) return false;
                const auto ev = tags_.install(probe.set, way, line, LineState::valid, true);
                if (ev.evicted && ev.dirty) write_back(ev.line, core_now_);
                ++stats_.write_misses;
            }
            ++stats_.writes;
            if (needs_response(p)) respond(p, out);
            return true;
        }
        // reads and atomics
        if (probe.state == LineState::valid) {
            if (!out.can_send()) return refuse_for_output();
            tags_.touch(probe.set, probe.way);
            if (p.kind == MemPacket::atomic) {
                tags_.set_dirty(probe.set, probe.way);
                start_atomic(p);
                ++stats_.atomics;
                ++stats_.atomic_hits;
            } else {
                ++stats_.reads;
                ++stats_.read_hits;
            }
            respond(p, out);
            return true;
        }
        if (const std::uint32_t e = mshr_.find(line); e != mshr_.none) {
            if (!mshr_.can_add(e)) return refuse_miss(true);
            mshr_.add(e, p);
            if (p.kind == MemPacket::atomic) fill_dirty_[e] = 1;
            ++stats_.mshr_merges;
        } else {
            if (mshr_.full() || to_dram_.full()) return refuse_miss(false);
            const std::uint32_t entry = mshr_.allocate(line);
            fill_dirty_[entry] = p.kind == MemPacket::atomic ? 1 : 0;
            mshr_.add(entry, p);
            to_dram(DramRequest{line, config_.l2.geometry.line_bytes, false, true, entry}, core_now_);
        }
        if (p.kind == MemPacket::atomic) ++stats_.atomics;
        else {
            ++stats_.reads;
            ++stats_.read_misses;
        }
        return true;
    }

    // A DRAM read returned with the L2 enabled: fill the line and answer every request merged on it.
    bool fill(Downstream& out) {
        const DramRequest& r = dram_.completed();
        const auto entry = static_cast<std::uint32_t>(r.tag);
        if (!mshr_.valid(entry)) throw Error("an L2 slice received a DRAM fill for an MSHR entry it never allocated");
        std::uint32_t responses = 0;
        for (const MemPacket& p : mshr_.requests(entry)) responses += needs_response(p) ? 1 : 0;
        if (out.free_slots() < responses) return refuse_for_output();
        const std::uint64_t line = mshr_.line(entry);
        const auto present = tags_.probe(line);
        if (present.state == LineState::valid) {
            tags_.touch(present.set, present.way);
            if (fill_dirty_[entry] != 0) tags_.set_dirty(present.set, present.way);
        } else {
            const std::uint32_t way = tags_.victim(present.set);
            const bool victim_dirty =
                tags_.state(present.set, way) == LineState::valid && tags_.dirty(present.set, way);
            if (victim_dirty && to_dram_.full()) return false;
            const auto ev = tags_.install(present.set, way, line, LineState::valid, fill_dirty_[entry] != 0);
            if (ev.evicted && ev.dirty) write_back(ev.line, core_now_);
        }
        std::uint32_t lanes = 0;
        for (const MemPacket& p : mshr_.requests(entry)) {
            if (p.kind == MemPacket::atomic) lanes += p.lanes == 0 ? 1 : p.lanes;
            if (needs_response(p)) respond(p, out);
        }
        if (lanes > 0) atomic_busy_until_ = l2_cycles_ + std::uint64_t{lanes} * config_.l2.atomic_cycles_per_lane;
        mshr_.release(entry);
        dram_.pop_completed();
        ++stats_.fills;
        return true;
    }

    // A refusal for want of room in the response port (see waits_for_output).
    bool refuse_for_output() {
        refused_for_output_ = true;
        return false;
    }
    void start_atomic(const MemPacket& p) {
        const std::uint32_t lanes = p.lanes == 0 ? 1 : p.lanes;
        atomic_busy_until_ = l2_cycles_ + std::uint64_t{lanes} * config_.l2.atomic_cycles_per_lane;
    }
    void write_back(std::uint64_t line, core::Cycle core_now) {
        to_dram(DramRequest{line, config_.l2.geometry.line_bytes, true, false, 0}, core_now);
        ++stats_.writebacks;
    }
    void respond(const MemPacket& p, Downstream& out) {
        out.send(response_to(p));
        ++stats_.responses;
    }

    // L2 disabled: the request goes to DRAM as it is.
    bool pass_down(const Delayed& d) {
        const MemPacket& p = d.packet;
        const std::size_t needed = p.kind == MemPacket::atomic ? 2 : 1;
        if (to_dram_.free_slots() < needed || free_passthrough_.empty()) return false;
        const std::uint32_t slot = free_passthrough_.back();
        free_passthrough_.pop_back();
        passthrough_[slot] = p;
        // An atomic without an L2 is a read (its response) followed by a write of the line.
        to_dram(DramRequest{d.local, p.bytes, p.kind == MemPacket::write, needs_response(p), slot}, core_now_);
        if (p.kind == MemPacket::atomic) to_dram(DramRequest{d.local, p.bytes, true, false, 0}, core_now_);
        if (!needs_response(p)) free_passthrough_.push_back(slot);
        if (p.kind == MemPacket::write) ++stats_.writes;
        else if (p.kind == MemPacket::atomic) ++stats_.atomics;
        else ++stats_.reads;
        return true;
    }
    bool pass_back(Downstream& out) {
        if (!out.can_send()) return refuse_for_output();
        const auto slot = static_cast<std::uint32_t>(dram_.completed().tag);
        respond(passthrough_[slot], out);
        free_passthrough_.push_back(slot);
        dram_.pop_completed();
        return true;
    }

    PartitionConfig config_;
    std::uint32_t id_;
    TagArray tags_;
    MshrTable<MemPacket> mshr_;
    std::vector<std::uint8_t> fill_dirty_;
    BoundedQueue<Delayed> rop_;
    BoundedQueue<DelayedDram> to_dram_;
    DramChannel dram_;
    std::vector<MemPacket> passthrough_;
    std::vector<std::uint32_t> free_passthrough_;
    std::uint64_t l2_cycles_ = 0;
    std::uint64_t atomic_busy_until_ = 0;
    core::Cycle core_now_ = 0;
    std::uint64_t stalled_cycles_ = 0, atomic_busy_cycles_ = 0;
    Stats stats_{};
    // The last miss serve() refused, and the set and MSHR versions it was refused under (no line: none yet).
    struct RefusedMiss {
        std::uint64_t line = ~std::uint64_t{0};
        std::uint32_t set = 0;
        std::uint64_t set_version = 0;
        std::uint64_t mshr_version = 0;
        bool merge_full = false; // no room to merge into the line's entry; else no entry or no room toward DRAM
    };
    RefusedMiss refused_;
    // The last l2_cycle's refusals for want of room in the response port (waits_for_output): its DRAM completion's,
    // its head request's; refused_for_output_ is set by fill, pass_back and serve when that is why they refuse.
    bool fill_waits_ = false, head_waits_ = false, refused_for_output_ = false;
};

} // namespace gpuarch::mem
