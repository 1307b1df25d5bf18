#pragma once
// The GPU's shared memory system: a request crossbar (SMs -> partitions), one memory partition per channel
// (L2 slice + DRAM channel, l2.hpp) and a response crossbar (partitions -> SMs), each in its own clock domain.
//
// Contract:
//  * cycle(now, deliver) is called once per core cycle. It advances the interconnect, L2 and DRAM domains by
//    their clock ratio to the core (fractional accumulators, clock.hpp), takes packets from each SM's
//    Downstream, and calls deliver(sm, const MemPacket&) for every response that reaches SM `sm` this cycle;
//    the GPU forwards it to that SM's L1 with L1::receive.
//  * Addresses interleave over partitions in `interleave_bytes` chunks (default 256 B): partition =
//    (address / interleave) mod partitions; inside a partition the chunks are packed densely.
//  * Deterministic: fixed iteration orders, integer clocks, no hashing of pointers.
//  * Waiting partitions cost nothing per cycle (issues 4, 11 and 23): after each cycle a partition whose next
//    event (MemoryPartition::next_event: the head of a delay line comes due, a DRAM command may become legal, a
//    DRAM completion comes due) is more than one cycle away is no longer ticked; a partition with nothing in flight
//    waits for a request. It is ticked again from the cycle of that event, or of the first request that comes due
//    sooner, and its L2 and DRAM cycles (with the DRAM queue's occupancy) are counted in bulk then or when a
//    statistic is read. A partition whose due work waits only for room in its port into the response network
//    (MemoryPartition::waits_for_output: on atax, GTX480, 70% of the L2 cycles ticked were such refusals, retried in
//    every cycle) waits too, and is also ticked again in the first cycle in which that port has room. Every result
//    and statistic is what ticking it every cycle gives (tests/pinned/idle_memory.cpp and
//    tests/mem/idle_partitions_test.cpp compare full statistics with `skip_idle` off).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/clock.hpp>
#include <gpuarch/mem/index_set.hpp>
#include <gpuarch/mem/interconnect.hpp>
#include <gpuarch/mem/l2.hpp>
#include <gpuarch/mem/queue.hpp>

namespace gpuarch::mem {

struct ClockConfig {
    core::ClockMHz core{1400.0}; // Wang 2016 Table 1: SM 1400 MHz
    core::ClockMHz icnt{1400.0}; // Wang 2016 Table 1: interconnect 1400 MHz
    core::ClockMHz l2{1400.0}; // documented default: the L2 runs at the interconnect clock
    core::ClockMHz dram{924.0}; // documented default: GPGPU-Sim GTX480 GDDR5 command clock
};

class AddressMap {
public:
    AddressMap(std::uint32_t partitions, std::uint32_t interleave_bytes)
        : partitions_(partitions), interleave_(interleave_bytes),
          interleave_log2_(static_cast<unsigned>(std::countr_zero(interleave_bytes))) {
        if (partitions == 0) throw Error("the memory system needs at least one partition");
        if (interleave_bytes == 0 || !std::has_single_bit(interleave_bytes))
            throw Error("the partition interleaving granularity must be a power of two of bytes (got " +
                        std::to_string(interleave_bytes) + ")");
    }
    // The interleaving is a power of two (checked above): shifts and masks instead of divisions by it.
    std::uint32_t partition_of(std::uint64_t address) const {
        return static_cast<std::uint32_t>((address >> interleave_log2_) % partitions_);
    }
    // The address inside its partition (chunks of one partition packed densely).
    std::uint64_t local_address(std::uint64_t address) const {
        const std::uint64_t chunk = address >> interleave_log2_;
        return ((chunk / partitions_) << interleave_log2_) | (address & (std::uint64_t{interleave_} - 1));
    }
    std::uint32_t partitions() const { return partitions_; }
    std::uint32_t interleave_bytes() const { return interleave_; }

private:
    std::uint32_t partitions_;
    std::uint32_t interleave_;
    unsigned interleave_log2_;
};

struct MemorySystemConfig {
    std::uint32_t sms = 30; // Wang 2016 Table 1: 30 SMs (the GPU sets its own count)
    std::uint32_t partitions = 6; // Wang 2016 Table 1: 6 memory partitions
    std::uint32_t interleave_bytes = 256; // documented default
    CrossbarConfig request_network{};
    CrossbarConfig response_network{};
    PartitionConfig partition{};
    ClockConfig clocks{};
    // Simulation speed only, no effect on any result: skip the per-cycle L2 and DRAM work of partitions that wait
    // (for a timer, or with nothing in flight). Off ticks every partition every cycle (the reference the tests
    // compare with).
    bool skip_idle = true;

    void validate() const {
        if (sms == 0) throw Error("the memory system needs at least one SM");
        AddressMap(partitions, interleave_bytes);
        request_network.validate("the request network");
        response_network.validate("the response network");
        partition.validate();
        if (partition.l2.enabled && response_network.input_capacity < partition.l2.mshr_max_requests)
            throw Error("the response network's input queue (" + std::to_string(response_network.input_capacity) +
                        " packets) must hold every request one L2 MSHR entry can merge (" +
                        std::to_string(partition.l2.mshr_max_requests) + "), or a fill could never be answered");
        if (partition.l2.enabled && interleave_bytes < partition.l2.geometry.line_bytes)
            throw Error("the partition interleaving (" + std::to_string(interleave_bytes) +
                        " B) must be at least the L2 line (" + std::to_string(partition.l2.geometry.line_bytes) +
                        " B) so that a line lives in one partition");
    }
};

class MemorySystem {
public:
    explicit MemorySystem(const MemorySystemConfig& config)
        : config_((config.validate(), config)), map_(config.partitions, config.interleave_bytes),
          requests_(config.sms, config.partitions, config.request_network),
          responses_(config.partitions, config.sms, config.response_network), awake_(config.partitions),
          waits_for_output_(config.partitions), icnt_clock_(config.clocks.icnt, config.clocks.core),
          l2_clock_(config.clocks.l2, config.clocks.core), dram_clock_(config.clocks.dram, config.clocks.core) {
        partitions_.reserve(config.partitions);
        for (std::uint32_t p = 0; p < config.partitions; ++p) partitions_.emplace_back(config.partition, p);
        // A new partition has nothing in flight: waiting for a request from cycle 0 when skipping, else ticked for
        // good.
        if (!config.skip_idle) awake_.insert_all();
        awake_count_ = config.skip_idle ? 0 : config.partitions;
        slept_l2_.assign(config.partitions, 0);
        slept_dram_.assign(config.partitions, 0);
        wake_at_.assign(config.partitions, MemoryPartition::never);
    }

    const MemorySystemConfig& config() const { return config_; }
    const AddressMap& address_map() const { return map_; }
    std::uint32_t sms() const { return config_.sms; }
    // SM `sm`'s port into the request network (what its L1 sends into).
    Downstream& downstream(std::uint32_t sm) {
        if (sm >= config_.sms) throw Error("SM " + std::to_string(sm) + " has no port into the memory system");
        return requests_.input(sm);
    }
    // Whether the SMs may send into their ports on several host threads at once (GPU::launch's parallel ticking).
    void set_concurrent_senders(bool concurrent) { requests_.set_concurrent_inputs(concurrent); }
    // Functional warming of the L2 slice that holds `address` (MemoryPartition::warm).
    void warm(std::uint64_t address, bool write) {
        const std::uint32_t p = map_.partition_of(address);
        // Warming may turn a head that waits for a response slot (a hit) into a miss, which need not wait.
        if (waits_for_output_.test(p)) wake(p);
        partitions_[p].warm(map_.local_address(address), write);
    }
    // The partition with every cycle accounted for (a waiting one is brought up to date first).
    const MemoryPartition& partition(std::uint32_t p) const {
        catch_up(p);
        return partitions_[p];
    }

    template <class F> void cycle(core::Cycle now, F&& deliver) {
        ++cycles_;
        for (std::uint32_t k = icnt_clock_.advance(); k > 0; --k) {
            ++icnt_now_;
            requests_.cycle(icnt_now_, [this](const MemPacket& p) { return map_.partition_of(p.address); });
            responses_.cycle(icnt_now_, [](const MemPacket& p) { return p.sm; });
        }
        if (requests_.any_output()) {
            requests_.for_each_holding_output([&](std::uint32_t p) {
                while (requests_.ready(p) && partitions_[p].can_accept()) {
                    const MemPacket& packet = requests_.front(p);
                    const core::Cycle due = partitions_[p].accept(packet, map_.local_address(packet.address), now);
                    // A waiting partition is not woken now: nothing before `due` changes for the request.
                    if (!awake_.test(p) && due < wake_at_[p]) {
                        wake_at_[p] = due;
                        next_wake_ = std::min(next_wake_, due);
                    }
                    requests_.pop(p);
                }
            });
        }
        if (responses_.any_output()) {
            responses_.for_each_holding_output([&](std::uint32_t sm) {
                while (responses_.ready(sm)) {
                    deliver(sm, responses_.front(sm));
                    responses_.pop(sm);
                    ++delivered_;
                }
            });
        }
        // Partitions are independent of each other within a cycle (each has its own queues and its own port into
        // the response network), so running only the awake ones, in index order, changes nothing for them.
        const std::uint32_t l2_ticks = l2_clock_.advance();
        const std::uint32_t dram_ticks = dram_clock_.advance();
        if (now >= next_wake_) wake_due(now);
        // After this cycle's network cycles, before its L2 cycles: a partition whose response port was full finds
        // room in this L2 cycle if the network took a packet from the port.
        if (output_waits_ != 0)
            waits_for_output_.for_each([&](std::uint32_t p) {
                if (responses_.input(p).can_send()) wake(p);
            });
        if (awake_count_ == 0) {
            l2_now_ += l2_ticks;
            dram_now_ += dram_ticks;
            return;
        }
        // No partition wakes or sleeps inside these loops, so each visits the same awake set.
        for (std::uint32_t k = l2_ticks; k > 0; --k)
            awake_.for_each([&](std::uint32_t p) { partitions_[p].l2_cycle(now, responses_.input(p)); });
        l2_now_ += l2_ticks;
        for (std::uint32_t k = dram_ticks; k > 0; --k) {
            ++dram_now_;
            awake_.for_each([&](std::uint32_t p) { partitions_[p].dram_cycle(dram_now_, now); });
        }
        if (config_.skip_idle) {
            // The core cycle in which the DRAM domain reaches cycle t (> dram_now_).
            auto core_cycle_of_dram = [&](core::Cycle t) { return now + dram_clock_.calls_until(t - dram_now_); };
            awake_.for_each([&](std::uint32_t p) {
                const core::Cycle event = partitions_[p].next_event(now, core_cycle_of_dram, responses_.input(p));
                if (event > now + 1) wait(p, event, partitions_[p].waits_for_output(responses_.input(p)));
            });
        }
    }

    // Partitions ticked in this cycle (all of them with skip_idle off); the others wait for their next event.
    std::uint32_t awake_partitions() const { return awake_count_; }
    // Of the partitions not ticked in this cycle, those that also wake when their response port has room
    // (MemoryPartition::waits_for_output).
    std::uint32_t output_waits() const { return output_waits_; }
    // Of the partitions not ticked in this cycle, those with work in flight: they wait for a timer, not a request.
    std::uint32_t timed_waits() const {
        std::uint32_t n = 0;
        for (std::uint32_t p = 0; p < config_.partitions; ++p) n += !awake_.test(p) && !partitions_[p].idle() ? 1 : 0;
        return n;
    }

    // Nothing queued or in flight anywhere.
    bool idle() const {
        if (!requests_.idle() || !responses_.idle()) return false;
        for (const auto& p : partitions_)
            if (!p.idle()) return false;
        return true;
    }

    MemoryPartition::Stats l2_stats() const {
        MemoryPartition::Stats s;
        for (std::uint32_t p = 0; p < config_.partitions; ++p) s += partition(p).stats();
        return s;
    }
    DramChannel::Stats dram_stats() const {
        DramChannel::Stats s;
        for (std::uint32_t p = 0; p < config_.partitions; ++p) s += partition(p).dram().stats();
        return s;
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("cycles", cycles_, "core cycles simulated");
        v.counter("icnt_cycles", icnt_now_, "interconnect cycles");
        v.counter("icnt_request_packets", requests_.packets(), "packets SM -> partition");
        v.counter("icnt_request_flits", requests_.flits_moved(), "flits SM -> partition");
        v.counter("icnt_request_blocked", requests_.blocked(), "request transfers refused by a full output");
        v.counter("icnt_response_packets", responses_.packets(), "packets partition -> SM");
        v.counter("icnt_response_flits", responses_.flits_moved(), "flits partition -> SM");
        v.counter("icnt_response_blocked", responses_.blocked(), "response transfers refused by a full output");
        v.counter("responses_delivered", delivered_, "responses handed to the SMs");
        l2_stats().visit_stats(v);
        dram_stats().visit_stats(v);
    }

private:
    // A waiting partition is owed the L2 and DRAM cycles since it was last ticked or caught up; these give it them
    // (counts are all that change in them, MemoryPartition::skip_quiet_cycles). catch_up is const because it
    // changes nothing observable: a waiting partition's state is defined as the caught-up one.
    void catch_up(std::uint32_t p) const {
        if (awake_.test(p)) return;
        partitions_[p].skip_quiet_cycles(l2_now_ - slept_l2_[p], dram_now_ - slept_dram_[p], dram_now_);
        slept_l2_[p] = l2_now_;
        slept_dram_[p] = dram_now_;
    }
    // Ticks again, from this cycle on, every waiting partition whose event is due in it.
    void wake_due(core::Cycle now) {
        next_wake_ = MemoryPartition::never;
        for (std::uint32_t p = 0; p < config_.partitions; ++p) {
            if (awake_.test(p)) continue;
            if (wake_at_[p] <= now) wake(p);
            else next_wake_ = std::min(next_wake_, wake_at_[p]);
        }
    }
    // Ticks waiting partition p again from this cycle on (its wake_at_ may stay in next_wake_: wake_due skips it).
    void wake(std::uint32_t p) {
        catch_up(p);
        awake_.insert(p);
        ++awake_count_;
        if (waits_for_output_.test(p)) {
            waits_for_output_.erase(p);
            --output_waits_;
        }
    }
    // Stops ticking partition p after this cycle, until core cycle `event`, a request due sooner or, when
    // `on_output`, room in its response port.
    void wait(std::uint32_t p, core::Cycle event, bool on_output) {
        awake_.erase(p);
        --awake_count_;
        slept_l2_[p] = l2_now_;
        slept_dram_[p] = dram_now_;
        wake_at_[p] = event;
        next_wake_ = std::min(next_wake_, event);
        if (on_output) {
            waits_for_output_.insert(p);
            ++output_waits_;
        }
    }

    MemorySystemConfig config_;
    AddressMap map_;
    Crossbar requests_;
    Crossbar responses_;
    // mutable: catch_up (see there).
    mutable std::vector<MemoryPartition> partitions_;
    IndexSet awake_; // partitions ticked in each cycle; the others wait, caught up lazily
    std::uint32_t awake_count_ = 0;
    IndexSet waits_for_output_; // waiting partitions that also wake when their response port has room
    std::uint32_t output_waits_ = 0; // their number
    mutable std::vector<core::Cycle> slept_l2_; // l2_now_ and dram_now_ when a waiting partition was last
    mutable std::vector<core::Cycle> slept_dram_; // ticked or caught up
    std::vector<core::Cycle> wake_at_; // a waiting partition's next event (core cycle; never: none in flight)
    core::Cycle next_wake_ = MemoryPartition::never; // the earliest wake_at_ of the waiting partitions
    ClockDomain icnt_clock_;
    ClockDomain l2_clock_;
    ClockDomain dram_clock_;
    core::Cycle icnt_now_ = 0;
    core::Cycle l2_now_ = 0; // L2 cycles so far
    core::Cycle dram_now_ = 0;
    std::uint64_t cycles_ = 0;
    std::uint64_t delivered_ = 0;
};

} // namespace gpuarch::mem
