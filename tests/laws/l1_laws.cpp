// Laws every L1 obeys (timing/concepts.hpp, docs/concepts.md), run over every model of the slot: every accepted
// access completes; loads of one line complete in the order they were accepted; IdealMemory<L> completes every access
// exactly L cycles after acceptance. The memory below answers every request a fixed number of cycles after it left.
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "../mem/mem_test_support.hpp"
#include "../support/split_mix.hpp"

#include <gpuarch/mem/ideal_memory.hpp>
#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/presets.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace {
using namespace gpuarch;
using memtest::Access;
using memtest::L1Bench;
using test_support::SplitMix;

constexpr core::Cycle memory_latency = 30;

// A random stream of warp memory instructions: loads (most), stores and atomics; each either touches one line (every
// lane the same line), is fully coalesced, or scatters its lanes over a small working set of lines.
std::vector<std::unique_ptr<Access>> random_stream(std::uint64_t seed, std::size_t count) {
    SplitMix rng{seed};
    std::vector<std::unique_ptr<Access>> out;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t pick = rng.next() % 10;
        const auto kind = pick < 7   ? mem::WarpAccess::load
                          : pick < 9 ? mem::WarpAccess::store
                                     : mem::WarpAccess::atomic;
        const std::uint64_t line = 0x10000 + (rng.next() % 24) * 128;
        std::vector<std::uint64_t> addresses;
        switch (rng.next() % 3) {
        case 0: addresses.assign(32, line + 4 * (rng.next() % 32)); break;
        case 1: addresses = memtest::strided(line, 4); break;
        default:
            for (unsigned l = 0; l < 32; ++l)
                addresses.push_back(0x10000 + (rng.next() % 24) * 128 + 4 * (rng.next() % 32));
            break;
        }
        out.push_back(std::make_unique<Access>(i + 1, std::move(addresses), ir::StateSpace::global, kind));
    }
    return out;
}

// Whether every lane of the access falls in one line of `line_bytes`.
bool single_line(const Access& a, std::uint64_t line_bytes) {
    for (unsigned l = 1; l < 32; ++l)
        if (a.addresses[l] / line_bytes != a.addresses[0] / line_bytes) return false;
    return true;
}

template <class L1T> void check_l1_laws(const typename L1T::Config& config) {
    static_assert(timing::check_l1<L1T>());
    CAPTURE(L1T::name);
    std::uint64_t line_bytes = 128; // IdealMemory has no lines: any grouping will do
    if constexpr (requires { config.geometry.line_bytes; }) line_bytes = config.geometry.line_bytes;
    for (std::uint64_t seed : {1U, 2U, 3U}) {
        CAPTURE(seed);
        L1T l1(config, 0);
        L1Bench<L1T> bench(l1);
        const auto stream = random_stream(seed, 300);
        std::vector<core::Cycle> accepted_at(stream.size() + 1, 0);
        std::size_t next = 0, answered = 0;
        while (bench.now < 200000) {
            const core::Cycle t = bench.now;
            const bool took = bench.step(next < stream.size() ? &stream[next]->access : nullptr);
            if (took) accepted_at[++next] = t;
            for (; answered < bench.sent.size(); ++answered)
                bench.respond(bench.sent[answered].second, bench.sent[answered].first + memory_latency);
            if (next == stream.size() && bench.done_at.size() == stream.size()) break;
        }
        // Every accepted access completes.
        REQUIRE(next == stream.size());
        REQUIRE(bench.done_at.size() == stream.size());
        // Loads of one line complete in acceptance order.
        for (std::size_t i = 0; i < stream.size(); ++i) {
            const Access& a = *stream[i];
            if (a.access.kind != mem::WarpAccess::load || !single_line(a, line_bytes)) continue;
            for (std::size_t j = i + 1; j < stream.size(); ++j) {
                const Access& b = *stream[j];
                if (b.access.kind != mem::WarpAccess::load || !single_line(b, line_bytes)) continue;
                if (a.addresses[0] / line_bytes != b.addresses[0] / line_bytes) continue;
                CHECK(bench.done_at.at(a.access.token) <= bench.done_at.at(b.access.token));
            }
        }
        if constexpr (requires { L1T::latency_knob; })
            for (std::size_t i = 0; i < stream.size(); ++i)
                CHECK(bench.done_at.at(stream[i]->access.token) == accepted_at[i + 1] + L1T::latency_knob);
    }
}

} // namespace

TEST_CASE("every L1 completes every accepted access, and loads of one line in acceptance order") {
    check_l1_laws<mem::IdealMemory<10>>({});
    check_l1_laws<mem::IdealMemory<1>>({});
    check_l1_laws<mem::L1<mem::MSHR<32>>>({});
    check_l1_laws<mem::presets::FermiL1>(mem::presets::fermi_l1());
    check_l1_laws<mem::presets::FermiMascarL1>(mem::presets::fermi_mascar_l1());
    check_l1_laws<mem::presets::GTX480L1>(mem::presets::gtx480_l1());
    check_l1_laws<mem::presets::KeplerL1>(mem::presets::kepler_l1());
    check_l1_laws<mem::presets::SouthernIslandsL1>(mem::presets::southern_islands_l1());
    check_l1_laws<mem::presets::NarasimanL1>(mem::presets::narasiman_l1());
}
