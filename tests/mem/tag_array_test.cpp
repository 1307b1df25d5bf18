// The tag array's contracts that the caches' retry shortcuts rely on: probe() answers what a scan of the set's
// ways answers, also when it returns its remembered last answer or narrows the ways by their signature bytes, and
// set_version(s) changes whenever a tag or a state of set s changes (the L1 reuses a stalled load's outcome while
// its set's version stands).
#include <cstdint>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include <gpuarch/mem/tag_array.hpp>

using namespace gpuarch::mem;

namespace {

struct Way {
    LineState state;
    std::uint64_t line;
    bool operator==(const Way&) const = default;
};

// What the set holds, read way by way through the accessors (no probe).
std::vector<Way> contents(const TagArray& tags, std::uint32_t set) {
    std::vector<Way> ways;
    for (std::uint32_t w = 0; w < tags.geometry().ways; ++w) {
        const LineState s = tags.state(set, w);
        ways.push_back(Way{s, s == LineState::invalid ? 0 : tags.line(set, w)});
    }
    return ways;
}

// The probe a scan of the set gives.
TagArray::Probe scan(const TagArray& tags, std::uint64_t line) {
    TagArray::Probe p;
    p.set = tags.geometry().set_of(line);
    for (std::uint32_t w = 0; w < tags.geometry().ways; ++w)
        if (tags.state(p.set, w) != LineState::invalid && tags.line(p.set, w) == line) {
            p.state = tags.state(p.set, w);
            p.way = w;
        }
    return p;
}

// `distinct_lines` lines, three line sizes apart.
std::vector<std::uint64_t> spaced_lines(const CacheGeometry& geometry, std::uint32_t distinct_lines) {
    std::vector<std::uint64_t> lines;
    for (std::uint32_t i = 0; i < distinct_lines; ++i) lines.push_back(std::uint64_t{i} * geometry.line_bytes * 3);
    return lines;
}

void check_against_scan(const CacheGeometry& geometry, const std::vector<std::uint64_t>& lines, std::uint32_t seed) {
    TagArray tags(geometry);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> pick(0, lines.size() - 1);
    std::uniform_int_distribution<int> op(0, 99);
    const auto line_at = [&](std::size_t i) { return lines[i]; };
    std::uint64_t changes = 0, repeated_probes = 0;
    for (int step = 0; step < 20000; ++step) {
        const std::uint64_t line = line_at(pick(rng));
        const std::uint32_t set = geometry.set_of(line);
        std::vector<std::vector<Way>> before;
        std::vector<std::uint64_t> versions;
        for (std::uint32_t s = 0; s < geometry.sets; ++s) {
            before.push_back(contents(tags, s));
            versions.push_back(tags.set_version(s));
        }
        const int o = op(rng);
        const TagArray::Probe p = tags.probe(line);
        if (o < 40) {
            // The same line again: a retried request, answered from probe()'s memory when nothing changed.
            const TagArray::Probe again = tags.probe(line);
            CHECK(again.state == p.state);
            CHECK(again.way == p.way);
            ++repeated_probes;
        } else if (o < 60) {
            if (p.state == LineState::invalid) {
                const std::uint32_t way = tags.victim(set);
                if (way != TagArray::no_way)
                    tags.install(set, way, line, o < 50 ? LineState::reserved : LineState::valid);
            }
        } else if (o < 75) {
            if (p.state == LineState::reserved) tags.validate_reserved(p.set, p.way);
        } else if (o < 90) {
            if (p.state == LineState::valid) tags.touch(p.set, p.way);
        } else if (o < 97) {
            tags.invalidate(line);
        } else if (o < 98) {
            tags.invalidate_all();
        } else if (p.state == LineState::valid) {
            tags.set_dirty(p.set, p.way);
        }
        for (std::uint32_t s = 0; s < geometry.sets; ++s) {
            const bool changed = contents(tags, s) != before[s];
            INFO("step " << step << " op " << o << " set " << s);
            // A change of tags or states moves the version; touch and set_dirty, which change neither, leave it.
            CHECK((tags.set_version(s) != versions[s]) == changed);
            changes += changed ? 1 : 0;
        }
        // Every line answers what the scan answers, whatever probe() remembers.
        const std::uint64_t other = line_at(pick(rng));
        for (const std::uint64_t l : {line, other, line}) {
            const TagArray::Probe got = tags.probe(l), want = scan(tags, l);
            CHECK(got.set == want.set);
            CHECK(got.state == want.state);
            CHECK(got.way == want.way);
        }
    }
    // The trace changes sets often and repeats probes often (a trace of no changes could not fail).
    CHECK(changes > 2000);
    CHECK(repeated_probes > 2000);
}

} // namespace

TEST_CASE("tag array: probes equal a scan of the set and set versions move exactly when a set changes") {
    const auto check = [](const CacheGeometry& geometry, std::uint32_t distinct_lines, std::uint32_t seed) {
        check_against_scan(geometry, spaced_lines(geometry, distinct_lines), seed);
    };
    SUBCASE("4 sets x 2 ways, linear index") { check(CacheGeometry{4, 2, 128, SetIndexing::linear}, 24, 1); }
    SUBCASE("32 sets x 4 ways, Fermi hash (GTX480's L1)") {
        check(CacheGeometry{32, 4, 128, SetIndexing::fermi_hash}, 400, 2);
    }
    SUBCASE("1 set x 8 ways") { check(CacheGeometry{1, 8, 128, SetIndexing::linear}, 12, 3); }
    SUBCASE("2 sets x 3 ways (signature bytes beyond the ways)") {
        check(CacheGeometry{2, 3, 64, SetIndexing::linear}, 10, 5);
    }
    SUBCASE("4 sets x 16 ways (no signatures)") { check(CacheGeometry{4, 16, 128, SetIndexing::linear}, 200, 6); }
    // Up to eight ways a probe compares a byte per way first (TagArray::tag_byte) and the full tags of the ways
    // whose byte matches. Sixteen lines that all share one byte, through one 8-way set: every probe finds every
    // resident way a candidate, and only the full tags tell them apart.
    SUBCASE("1 set x 8 ways, every line with the same signature byte") {
        const CacheGeometry geometry{1, 8, 128, SetIndexing::linear};
        std::vector<std::uint64_t> lines;
        for (std::uint64_t line = 0; lines.size() < 16; line += geometry.line_bytes)
            if (TagArray::tag_byte(line) == TagArray::tag_byte(0)) lines.push_back(line);
        check_against_scan(geometry, lines, 4);
    }
}
