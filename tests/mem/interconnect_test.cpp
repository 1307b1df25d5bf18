// Crossbar interconnect: latency, per-port flit bandwidth, round-robin arbitration and back-pressure.
#include <thread>
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
