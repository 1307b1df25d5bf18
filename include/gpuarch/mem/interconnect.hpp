#pragma once
// Interconnect between SMs and memory partitions: two disjoint crossbars, one carrying requests SM ->
// partition and one carrying responses partition -> SM (Gong 2020 Sec. 4.3.4: "two disjoint inner subnetworks,
// each devoted to package transfers in opposite directions").
//
// Crossbar contract (one interconnect clock per cycle()):
//  * Packets are cut into flits of `flit_bytes` (Wang 2016 Table 1: 32-byte channel width); a packet is a
//    header of `header_bytes` plus its data when it carries data (write and atomic requests, read and atomic
//    responses).
//  * Each input and each output port moves `flits_per_cycle` flits per cycle, so a packet of f flits holds
//    both ports for ceil(f / flits_per_cycle) cycles, then reaches the output buffer `latency` cycles after
//    its transfer started (plus the extra serialization cycles).
//  * Each output arbitrates round-robin among inputs whose head packet targets it; an input only offers its
//    head packet (head-of-line blocking).
//  * Back-pressure: an output buffer holds `output_capacity` packets, counting those in flight to it; when it
//    is full no input can send to it, input queues fill, and the producer sees can_send() == false.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>
#include <gpuarch/mem/index_set.hpp>
#include <gpuarch/mem/queue.hpp>

namespace gpuarch::mem {

struct CrossbarConfig {
    std::uint32_t flit_bytes = 32; // Wang 2016 Table 1: 32B channel width
    std::uint32_t flits_per_cycle = 1; // per port, per interconnect cycle
    std::uint32_t latency = 1; // interconnect cycles from transfer start to arrival (>= 1)
    std::uint32_t input_capacity = 8; // packets queued at each input (the SM's Downstream depth)
    std::uint32_t output_capacity = 8; // packets buffered (or in flight) at each output
    std::uint32_t header_bytes = 8; // documented default: GPGPU-Sim's 8-byte control header

    void validate(const std::string& what) const {
        if (flit_bytes == 0 || flits_per_cycle == 0 || latency == 0 || input_capacity == 0 || output_capacity == 0)
            throw Error(what + " needs non-zero flit size, flits per cycle, latency and queue capacities");
    }
};

// Wire size of a packet: the header plus data when it carries data.
inline std::uint32_t packet_wire_bytes(const MemPacket& p, std::uint32_t header_bytes) {
    const bool carries_data = p.is_response ? (p.kind != MemPacket::write) : (p.kind != MemPacket::read);
    return header_bytes + (carries_data ? p.bytes : 0);
}

class Crossbar {
public:
    Crossbar(std::uint32_t inputs, std::uint32_t outputs, const CrossbarConfig& config)
        : config_((config.validate("an interconnect crossbar"), config)), in_busy_until_(inputs, 0),
          out_busy_until_(outputs, 0), rr_(outputs, 0), words_((inputs + 63) / 64),
          wants_(std::size_t{outputs} * ((inputs + 63) / 64), 0), targeted_(outputs), holding_(outputs),
          head_route_(inputs, 0), routed_at_(inputs, not_routed), per_flit_(config.flit_bytes),
          per_port_cycle_(config.flits_per_cycle), input_count_(inputs), output_count_(outputs) {
        if (inputs == 0 || outputs == 0) throw Error("an interconnect crossbar needs at least one input and output");
        inputs_.reserve(inputs);
        for (std::uint32_t i = 0; i < inputs; ++i) inputs_.emplace_back(config.input_capacity, queued_.get());
        outputs_.reserve(outputs);
        for (std::uint32_t o = 0; o < outputs; ++o) outputs_.emplace_back(config.output_capacity);
    }

    const CrossbarConfig& config() const { return config_; }
    // The counts kept at construction: a vector's size() divides by the element's size (80 bytes for an input),
    // and cycle() tests it once per input.
    std::uint32_t inputs() const { return input_count_; }
    std::uint32_t outputs() const { return output_count_; }
    Downstream& input(std::uint32_t i) { return inputs_[i]; }
    const Downstream& input(std::uint32_t i) const { return inputs_[i]; }

    std::uint32_t flits(const MemPacket& p) const { return per_flit_.ceil(packet_wire_bytes(p, config_.header_bytes)); }

    // Whether the inputs' producers may send on several host threads at once (the SMs' parallel timing phases,
    // gpu.hpp): their shared occupancy count then takes atomic updates (Downstream::set_concurrent).
    void set_concurrent_inputs(bool concurrent) {
        for (Downstream& in : inputs_) in.set_concurrent(concurrent);
    }

    // One interconnect cycle; `route(packet)` names the output a packet goes to. It is a function of the packet:
    // each input's head packet is routed once, when first seen, and keeps that output until it leaves (on
    // GTX480 the request network's route, a partition number, takes a division by the partition count).
    template <class Route> void cycle(core::Cycle now, Route&& route) {
        now_ = now;
        ++cycles_;
        // Every input empty: the scan below would find nothing to route and return (the common case when little
        // is in flight), so the count the inputs keep lets the cycle end here.
        const std::uint64_t queued = queued_->load(std::memory_order_relaxed);
        if (queued == 0) return;
        // A quiet cycle (below) repeats itself until a port it waited for frees or a packet arrives at an input: the
        // ports change only in transfers, which a quiet cycle has none of, and the inputs only by sends (which raise
        // the count) and by transfers.
        if (now < quiet_until_ && queued == quiet_queued_) return;
        // Each output's candidates, as a bit set over inputs: a non-empty input whose port is free and whose head
        // packet targets that output. The sets are disjoint (one head per input), so a transfer at one output
        // leaves the others' sets as they were; a transferring input is busy for the rest of the cycle anyway.
        // `targeted_` marks the outputs with a candidate: only they can transfer or be refused, so only they are
        // visited, in index order as a scan of every output would visit them.
        // The first cycle in which a port that held back a head packet in this one is free again.
        core::Cycle port_frees = never;
        for (std::uint32_t i = 0; i < inputs(); ++i) {
            if (inputs_[i].empty()) continue;
            if (routed_at_[i] != inputs_[i].pops()) {
                const std::uint32_t routed = route(inputs_[i].front());
                if (routed >= outputs()) throw Error("the interconnect was asked to route a packet to a port it lacks");
                head_route_[i] = routed;
                routed_at_[i] = inputs_[i].pops();
            }
            const std::uint32_t o = head_route_[i];
            if (in_busy_until_[i] <= now) {
                wants_[std::size_t{o} * words_ + i / 64] |= std::uint64_t{1} << (i % 64);
                targeted_.insert(o);
            } else {
                port_frees = std::min(port_frees, in_busy_until_[i]);
            }
        }
        bool quiet = true; // no output transferred or refused a packet
        targeted_.drain([&](std::uint32_t o) {
            if (out_busy_until_[o] > now) port_frees = std::min(port_frees, out_busy_until_[o]);
            else quiet = false;
            arbitrate(o, now);
            // Back to all-clear for the next cycle (the sets are scratch). One word, for fewer than 65 inputs (every
            // preset), is a store: std::fill_n of a run length known only at run time is a call to memset.
            std::uint64_t* set = wants_.data() + std::size_t{o} * words_;
            if (words_ == 1) *set = 0;
            else std::fill_n(set, words_, 0);
        });
        // Quiet: every head packet waited for a busy port (its input's, or its output's). Until the first of those
        // ports frees, each cycle would find the same and only count itself, unless a packet arrives (the count of
        // queued packets, which only sends change between cycles, then differs from this one).
        quiet_until_ = quiet ? port_frees : 0;
        quiet_queued_ = queued;
    }

    // Calls f(o) for every output whose buffer holds a packet (arrived or in flight), in increasing o; f may pop
    // from o. The outputs no call visits have no ready(o).
    template <class F> void for_each_holding_output(F&& f) { holding_.for_each(f); }

    // A packet has arrived at output o (as of the last cycle()).
    bool ready(std::uint32_t o) const { return !outputs_[o].empty() && outputs_[o].front().arrive_at <= now_; }
    const MemPacket& front(std::uint32_t o) const { return outputs_[o].front().packet; }
    void pop(std::uint32_t o) {
        outputs_[o].pop();
        --in_outputs_;
        if (outputs_[o].empty()) holding_.erase(o);
    }
    // Some output buffer holds a packet (arrived or still in flight); when false no ready(o) can be true.
    bool any_output() const { return in_outputs_ != 0; }
    bool idle() const { return queued_->load(std::memory_order_relaxed) == 0 && in_outputs_ == 0; }

    std::uint64_t packets() const { return packets_; }
    std::uint64_t flits_moved() const { return flits_; }
    std::uint64_t cycles() const { return cycles_; }
    std::uint64_t blocked() const { return blocked_; }

    template <class V> void visit_stats(V& v) const {
        v.counter("cycles", cycles_, "interconnect cycles");
        v.counter("packets", packets_, "packets transferred");
        v.counter("flits", flits_, "flits transferred");
        v.counter("blocked", blocked_, "transfers refused because the output buffer was full (back-pressure)");
    }

private:
    static constexpr std::uint32_t no_input = ~std::uint32_t{0};
    static constexpr core::Cycle never = ~core::Cycle{0};
    static constexpr std::uint64_t not_routed = ~std::uint64_t{0}; // no input has popped 2^64 - 1 packets
    // ceil(x / d) for a d fixed at construction: a shift when d is a power of two (flits of 32 bytes, one flit per
    // cycle in every preset), which spares a division in every transfer.
    class CeilDivider {
    public:
        explicit CeilDivider(std::uint32_t d)
            : d_(d), shift_(std::has_single_bit(d) ? static_cast<unsigned>(std::countr_zero(d)) : no_shift) {}
        std::uint32_t ceil(std::uint32_t x) const {
            return shift_ != no_shift ? static_cast<std::uint32_t>((std::uint64_t{x} + d_ - 1) >> shift_)
                                      : static_cast<std::uint32_t>((std::uint64_t{x} + d_ - 1) / d_);
        }

    private:
        static constexpr unsigned no_shift = ~0U;
        std::uint32_t d_;
        unsigned shift_;
    };
    // Output o's turn in a cycle: the round-robin pick among its candidates moves its head packet when o's port is
    // free and its buffer has room (a full buffer counts a refused transfer).
    void arbitrate(std::uint32_t o, core::Cycle now) {
        if (out_busy_until_[o] > now) return;
        const std::uint32_t i = first_candidate(o);
        if (i == no_input) return;
        if (outputs_[o].full()) {
            ++blocked_;
            return;
        }
        const MemPacket& p = inputs_[i].front();
        const std::uint32_t f = flits(p);
        const std::uint32_t hold = per_port_cycle_.ceil(f);
        in_busy_until_[i] = now + hold;
        out_busy_until_[o] = now + hold;
        outputs_[o].push(InFlight{p, now + config_.latency + hold - 1});
        holding_.insert(o);
        ++in_outputs_;
        inputs_[i].pop();
        ++packets_;
        flits_ += f;
        rr_[o] = i + 1 == inputs() ? 0 : i + 1;
    }
    // Round-robin: the first candidate of output o at or after rr_[o], wrapping around; no_input when none.
    std::uint32_t first_candidate(std::uint32_t o) const {
        const std::uint64_t* set = wants_.data() + std::size_t{o} * words_;
        const std::uint32_t start = rr_[o];
        std::uint32_t w = start / 64;
        std::uint64_t bits = set[w] & (~std::uint64_t{0} << (start % 64));
        while (true) {
            if (bits != 0) return w * 64 + static_cast<std::uint32_t>(std::countr_zero(bits));
            if (++w == words_) break;
            bits = set[w];
        }
        // None at or after start: any candidate left lies before it.
        for (w = 0; w <= start / 64; ++w)
            if (set[w] != 0) return w * 64 + static_cast<std::uint32_t>(std::countr_zero(set[w]));
        return no_input;
    }

    struct InFlight {
        MemPacket packet;
        core::Cycle arrive_at = 0;
    };

    CrossbarConfig config_;
    // Packets queued at all inputs together, kept by the inputs themselves (Downstream's occupancy counter; the
    // producers send into them directly). On the heap so that its address, which every input holds, survives a
    // move of the crossbar.
    std::unique_ptr<std::atomic<std::uint64_t>> queued_ = std::make_unique<std::atomic<std::uint64_t>>(0);
    std::vector<Downstream> inputs_;
    std::vector<BoundedQueue<InFlight>> outputs_;
    std::vector<core::Cycle> in_busy_until_;
    std::vector<core::Cycle> out_busy_until_;
    std::vector<std::uint32_t> rr_;
    std::uint32_t words_; // 64-bit words per candidate set
    std::vector<std::uint64_t> wants_; // outputs x words_: candidate inputs of each output (scratch for cycle())
    IndexSet targeted_; // outputs with a candidate this cycle (scratch for cycle(); empty between)
    IndexSet holding_; // outputs whose buffer is not empty
    std::vector<std::uint32_t> head_route_; // input i's head packet's output, while routed_at_[i] == its pops()
    std::vector<std::uint64_t> routed_at_;
    CeilDivider per_flit_; // wire bytes -> flits
    CeilDivider per_port_cycle_; // flits -> cycles a transfer holds its ports
    std::uint32_t input_count_, output_count_; // inputs_.size(), outputs_.size()
    core::Cycle now_ = 0;
    // After a quiet cycle (cycle()): the cycle before which none can transfer, and the queued count it saw.
    core::Cycle quiet_until_ = 0;
    std::uint64_t quiet_queued_ = 0;
    std::uint64_t in_outputs_ = 0; // packets in all output buffers together
    std::uint64_t cycles_ = 0, packets_ = 0, flits_ = 0, blocked_ = 0;
};

} // namespace gpuarch::mem
