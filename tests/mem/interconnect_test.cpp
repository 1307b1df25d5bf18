// Crossbar interconnect: latency, per-port flit bandwidth, round-robin arbitration and back-pressure.
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
