// Crossbar interconnect: latency, per-port flit bandwidth, round-robin arbitration and back-pressure.
#include <deque>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/mem/interconnect.hpp>

using namespace gpuarch::mem;

namespace {

CrossbarConfig small_config() {
    CrossbarConfig c;
    c.flit_bytes = 32;
    c.flits_per_cycle = 1;
    c.latency = 3;
    c.input_capacity = 4;
    c.output_capacity = 2;
    c.header_bytes = 8;
    return c;
}
MemPacket read_request(std::uint32_t sm, std::uint64_t id = 0) {
    return MemPacket{0x1000, 128, MemPacket::read, sm, id, false, 0};
}
MemPacket write_request(std::uint32_t sm) { return MemPacket{0x2000, 128, MemPacket::write, sm, 0, false, 0}; }
const auto to_zero = [](const MemPacket&) { return 0U; };

} // namespace

TEST_CASE("packets are cut into flits: headers alone for read requests, header plus data otherwise") {
    Crossbar x(1, 1, small_config());
    CHECK(x.flits(read_request(0)) == 1);
    CHECK(x.flits(write_request(0)) == 5); // (8 + 128) / 32 rounded up
    MemPacket response = read_request(0);
    response.is_response = true;
    CHECK(x.flits(response) == 5);
    MemPacket ack = write_request(0);
    ack.is_response = true;
    CHECK(x.flits(ack) == 1);
}

TEST_CASE("a packet arrives `latency` cycles after its transfer starts; long packets hold the ports") {
    Crossbar x(2, 1, small_config());
    x.input(0).send(write_request(0)); // 5 flits
    x.input(1).send(read_request(1)); // 1 flit, must wait for the output port
    std::vector<std::pair<gpuarch::core::Cycle, std::uint32_t>> arrivals;
    for (gpuarch::core::Cycle t = 1; t <= 12; ++t) {
        x.cycle(t, to_zero);
        while (x.ready(0)) {
            arrivals.emplace_back(t, x.front(0).sm);
            x.pop(0);
        }
    }
    REQUIRE(arrivals.size() == 2);
    CHECK(arrivals[0] == std::pair<gpuarch::core::Cycle, std::uint32_t>{1 + 3 + 4, 0}); // 5 flits from cycle 1
    CHECK(arrivals[1] == std::pair<gpuarch::core::Cycle, std::uint32_t>{6 + 3, 1}); // starts when the port frees
    CHECK(x.flits_moved() == 6);
}

TEST_CASE("more flits per cycle shorten serialization") {
    CrossbarConfig c = small_config();
    c.flits_per_cycle = 5;
    Crossbar x(1, 1, c);
    x.input(0).send(write_request(0));
    gpuarch::core::Cycle arrived = 0;
    for (gpuarch::core::Cycle t = 1; t <= 10 && arrived == 0; ++t) {
        x.cycle(t, to_zero);
        if (x.ready(0)) arrived = t;
    }
    CHECK(arrived == 1 + 3);
}

TEST_CASE("an output arbitrates round-robin among inputs") {
    CrossbarConfig c = small_config();
    c.output_capacity = 8;
    Crossbar x(2, 1, c);
    for (std::uint64_t k = 0; k < 3; ++k) {
        x.input(0).send(read_request(0, k));
        x.input(1).send(read_request(1, k));
    }
    std::vector<std::uint32_t> order;
    for (gpuarch::core::Cycle t = 1; t <= 20; ++t) {
        x.cycle(t, to_zero);
        while (x.ready(0)) {
            order.push_back(x.front(0).sm);
            x.pop(0);
        }
    }
    CHECK(order == std::vector<std::uint32_t>{0, 1, 0, 1, 0, 1});
}

TEST_CASE("a full output buffer back-pressures the inputs until the consumer drains it") {
    Crossbar x(1, 1, small_config()); // output holds 2 packets, input 4
    for (int k = 0; k < 4; ++k) x.input(0).send(read_request(0, std::uint64_t(k)));
    CHECK_FALSE(x.input(0).can_send());
    for (gpuarch::core::Cycle t = 1; t <= 10; ++t) x.cycle(t, to_zero); // nobody pops the output
    CHECK(x.input(0).size() == 2);
    CHECK(x.blocked() > 0);
    x.input(0).send(read_request(0, 4));
    x.input(0).send(read_request(0, 5));
    CHECK_FALSE(x.input(0).can_send()); // the producer sees the congestion
    REQUIRE(x.ready(0));
    x.pop(0);
    x.cycle(11, to_zero);
    CHECK(x.input(0).size() == 3);
    CHECK(x.input(0).can_send());
}

TEST_CASE("routing a packet to a missing port fails loudly") {
    Crossbar x(1, 1, small_config());
    x.input(0).send(read_request(0));
    CHECK_THROWS_AS(x.cycle(1, [](const MemPacket&) { return 7U; }), gpuarch::Error);
}

// The flit count and a transfer's port time are ceilings of divisions; a flit size or port width that is not a
// power of two takes the division, the others a shift. Both must give the ceiling for every packet size.
TEST_CASE("flits and port time round up for any flit size and port width, powers of two or not") {
    for (const std::uint32_t flit : {1U, 8U, 24U, 32U, 40U, 64U}) {
        for (const std::uint32_t width : {1U, 2U, 3U, 4U}) {
            CAPTURE(flit);
            CAPTURE(width);
            CrossbarConfig c = small_config();
            c.flit_bytes = flit;
            c.flits_per_cycle = width;
            c.output_capacity = 8;
            Crossbar x(1, 1, c);
            for (const std::uint32_t bytes : {0U, 1U, 4U, 31U, 32U, 33U, 100U, 128U}) {
                MemPacket p = write_request(0);
                p.bytes = bytes;
                const std::uint32_t expected_flits = (c.header_bytes + bytes + flit - 1) / flit;
                CHECK(x.flits(p) == expected_flits);
            }
            // One packet: it holds the ports ceil(flits / width) cycles and arrives latency - 1 cycles after that.
            x.input(0).send(write_request(0));
            const std::uint32_t f = (c.header_bytes + 128 + flit - 1) / flit;
            const std::uint32_t hold = (f + width - 1) / width;
            gpuarch::core::Cycle arrived = 0;
            for (gpuarch::core::Cycle t = 1; t <= 200 && arrived == 0; ++t) {
                x.cycle(t, to_zero);
                if (x.ready(0)) arrived = t;
            }
            CHECK(arrived == 1 + c.latency + hold - 1);
        }
    }
}

// The route is a function of the packet, asked once per head packet: a packet that waits at its input for many
// cycles (its output full) is not routed again, and the next packet is routed when it becomes the head.
TEST_CASE("each head packet is routed once, however long it waits at its input") {
    Crossbar x(1, 1, small_config()); // output holds 2 packets
    for (int k = 0; k < 4; ++k) x.input(0).send(read_request(0, std::uint64_t(k)));
    std::vector<std::uint64_t> routed;
    const auto count_route = [&routed](const MemPacket& p) {
        routed.push_back(p.id);
        return 0U;
    };
    for (gpuarch::core::Cycle t = 1; t <= 20; ++t) x.cycle(t, count_route); // nobody pops the output
    CHECK(x.input(0).size() == 2);
    CHECK(routed == std::vector<std::uint64_t>{0, 1, 2}); // packet 2 waits for 17 cycles, routed once
    while (x.ready(0)) x.pop(0);
    for (gpuarch::core::Cycle t = 21; t <= 40; ++t) x.cycle(t, count_route);
    CHECK(x.input(0).empty());
    CHECK(routed == std::vector<std::uint64_t>{0, 1, 2, 3});
}

// The inputs share one count of queued packets. With concurrent sends declared, several host threads may send at
// once (the SMs' parallel timing phases) and the count stays exact; without, the count is kept without atomic
// read-modify-writes and is exact on one thread.
TEST_CASE("the inputs' shared packet count stays exact with and without concurrent senders") {
    for (const bool concurrent : {false, true}) {
        CAPTURE(concurrent);
        CrossbarConfig c = small_config();
        c.input_capacity = 4000;
        c.output_capacity = 8;
        Crossbar x(4, 1, c);
        x.set_concurrent_inputs(concurrent);
        if (concurrent) {
            std::vector<std::thread> senders;
            for (std::uint32_t i = 0; i < 4; ++i)
                senders.emplace_back([&x, i] {
                    for (int k = 0; k < 1000; ++k) x.input(i).send(read_request(i, std::uint64_t(k)));
                });
            for (auto& s : senders) s.join();
        } else {
            for (std::uint32_t i = 0; i < 4; ++i)
                for (int k = 0; k < 1000; ++k) x.input(i).send(read_request(i, std::uint64_t(k)));
        }
        CHECK_FALSE(x.idle());
        std::size_t delivered = 0;
        for (gpuarch::core::Cycle t = 1; t <= 4100 && !x.idle(); ++t) {
            x.cycle(t, to_zero);
            while (x.ready(0)) {
                x.pop(0);
                ++delivered;
            }
        }
        CHECK(delivered == 4000);
        CHECK(x.idle()); // the count came back to zero with the last packet
    }
}

namespace {

// The crossbar's contract (interconnect.hpp) written as plainly as possible: every cycle, every output in turn
// looks at every input, in round-robin order from its pointer. It never skips a cycle, so it is the reference for
// Crossbar's quiet cycles (a cycle in which every head packet waits for a busy port is not scanned again until a port
// frees or a packet arrives).
class PlainCrossbar {
public:
    PlainCrossbar(std::uint32_t inputs, std::uint32_t outputs, const CrossbarConfig& c)
        : c_(c), in_(inputs), out_(outputs), in_busy_(inputs, 0), out_busy_(outputs, 0), rr_(outputs, 0) {}
    bool can_send(std::uint32_t i) const { return in_[i].size() < c_.input_capacity; }
    void send(std::uint32_t i, const MemPacket& p) { in_[i].push_back(p); }
    template <class Route> void cycle(gpuarch::core::Cycle now, Route&& route) {
        now_ = now;
        const auto inputs = static_cast<std::uint32_t>(in_.size());
        for (std::uint32_t o = 0; o < out_.size(); ++o) {
            std::uint32_t pick = inputs;
            for (std::uint32_t k = 0; k < inputs && pick == inputs; ++k) {
                const std::uint32_t i = (rr_[o] + k) % inputs;
                if (!in_[i].empty() && in_busy_[i] <= now && route(in_[i].front()) == o) pick = i;
            }
            if (pick == inputs || out_busy_[o] > now) continue;
            if (out_[o].size() >= c_.output_capacity) {
                ++blocked_;
                continue;
            }
            const MemPacket p = in_[pick].front();
            const auto flits = (packet_wire_bytes(p, c_.header_bytes) + c_.flit_bytes - 1) / c_.flit_bytes;
            const auto hold = (flits + c_.flits_per_cycle - 1) / c_.flits_per_cycle;
            in_busy_[pick] = out_busy_[o] = now + hold;
            out_[o].push_back({p, now + c_.latency + hold - 1});
            in_[pick].pop_front(); // its port is now busy: no later output of this cycle picks it
            ++packets_;
            flits_ += flits;
            rr_[o] = (pick + 1) % inputs;
        }
    }
    bool ready(std::uint32_t o) const { return !out_[o].empty() && out_[o].front().second <= now_; }
    const MemPacket& front(std::uint32_t o) const { return out_[o].front().first; }
    void pop(std::uint32_t o) { out_[o].pop_front(); }
    std::uint64_t packets() const { return packets_; }
    std::uint64_t flits_moved() const { return flits_; }
    std::uint64_t blocked() const { return blocked_; }

private:
    CrossbarConfig c_;
    std::vector<std::deque<MemPacket>> in_;
    std::vector<std::deque<std::pair<MemPacket, gpuarch::core::Cycle>>> out_;
    std::vector<gpuarch::core::Cycle> in_busy_, out_busy_;
    std::vector<std::uint32_t> rr_;
    gpuarch::core::Cycle now_ = 0;
    std::uint64_t packets_ = 0, flits_ = 0, blocked_ = 0;
};

} // namespace

// Random traffic, bursty and idle by turns, with slow consumers (full outputs) and long packets (busy ports), through
// a few inputs or many: every arrival, in cycle and order, and every count equal the plain reference's.
TEST_CASE("a crossbar that skips its quiet cycles moves every packet when the plain per-cycle scan does") {
    std::mt19937_64 rng(20261202);
    for (int trial = 0; trial < 40; ++trial) {
        CAPTURE(trial);
        CrossbarConfig c;
        c.flit_bytes = 32;
        c.flits_per_cycle = 1 + static_cast<std::uint32_t>(rng() % 2);
        c.latency = 1 + static_cast<std::uint32_t>(rng() % 4);
        c.input_capacity = 1 + static_cast<std::uint32_t>(rng() % 4);
        c.output_capacity = 1 + static_cast<std::uint32_t>(rng() % 3);
        // Every eighth trial has more inputs than one 64-bit word of candidates holds.
        const auto inputs = static_cast<std::uint32_t>(trial % 8 == 7 ? 60 + rng() % 80 : 1 + rng() % 7);
        const auto outputs = 1 + static_cast<std::uint32_t>(rng() % 5);
        Crossbar fast(inputs, outputs, c);
        PlainCrossbar plain(inputs, outputs, c);
        const auto route = [outputs](const MemPacket& p) { return static_cast<std::uint32_t>(p.id % outputs); };
        const unsigned send_percent = 5 + static_cast<unsigned>(rng() % 60);
        const unsigned pop_percent = 10 + static_cast<unsigned>(rng() % 90);
        std::vector<std::tuple<gpuarch::core::Cycle, std::uint32_t, std::uint64_t>> got, want;
        std::uint64_t id = 0;
        for (gpuarch::core::Cycle t = 1; t <= 3000; ++t) {
            const bool burst = (t / 200) % 2 == 0; // idle stretches let every port free and the inputs drain
            for (std::uint32_t i = 0; i < inputs; ++i) {
                REQUIRE(fast.input(i).can_send() == plain.can_send(i));
                if (!burst || rng() % 100 >= send_percent || !plain.can_send(i)) continue;
                const MemPacket p{0x1000 + 128 * id, 128, rng() % 2 ? MemPacket::read : MemPacket::write, i, id,
                                  rng() % 3 == 0, 0};
                ++id;
                fast.input(i).send(p);
                plain.send(i, p);
            }
            fast.cycle(t, route);
            plain.cycle(t, route);
            for (std::uint32_t o = 0; o < outputs; ++o) {
                if (rng() % 100 >= pop_percent) continue;
                while (fast.ready(o)) {
                    got.emplace_back(t, o, fast.front(o).id);
                    fast.pop(o);
                }
                while (plain.ready(o)) {
                    want.emplace_back(t, o, plain.front(o).id);
                    plain.pop(o);
                }
            }
        }
        CHECK(got.size() > 100);
        CHECK(got == want);
        CHECK(fast.packets() == plain.packets());
        CHECK(fast.flits_moved() == plain.flits_moved());
        CHECK(fast.blocked() == plain.blocked());
    }
}
