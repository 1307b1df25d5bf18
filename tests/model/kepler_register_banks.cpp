#include "gpuarch/model/kepler_register_banks.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "gpuarch/model/arch_params.hpp"

namespace {
using namespace gpuarch::model;

static_assert(kepler_register_bank(0) == KeplerRegBank::even0);
static_assert(kepler_register_bank(4) == KeplerRegBank::even1);
static_assert(kepler_register_bank(1) == KeplerRegBank::odd0);
static_assert(kepler_register_bank(5) == KeplerRegBank::odd1);
static_assert(kepler_bank_conflict_degree(std::array<unsigned, 3>{1, 4, 5}) == 1);
static_assert(kepler_bank_conflict_degree(std::array<unsigned, 3>{1, 3, 5}) == 2);
static_assert(kepler_bank_conflict_degree(std::array<unsigned, 3>{1, 3, 9}) == 3);

// One row of Lai 2013 Table 4.1: source registers and the measured throughput
// (thread instructions per shader cycle per SM, GTX680).
struct Table41Row {
    std::string_view instruction;
    std::vector<unsigned> sources;
    double measured;
    bool integer_multiply; // IMUL/IMAD: separate ~33 cap outside the bank rule
};

std::vector<Table41Row> table_4_1() {
    return {
        {"FADD R0, R1, R0", {1, 0}, 128.7, false},        {"FADD R0, R1, R2", {1, 2}, 132.0, false},
        {"FADD R0, R1, R3", {1, 3}, 66.2, false},         {"FMUL R0, R1, R0", {1, 0}, 129.0, false},
        {"FMUL R0, R1, R2", {1, 2}, 132.0, false},        {"FMUL R0, R1, R3", {1, 3}, 66.2, false},
        {"FFMA R0, R1, R4, R0", {1, 4, 0}, 129.0, false}, {"FFMA R0, R1, R4, R5", {1, 4, 5}, 132.0, false},
        {"FFMA R0, R1, R3, R5", {1, 3, 5}, 66.2, false},  {"FFMA R0, R1, R3, R9", {1, 3, 9}, 44.2, false},
        {"IADD R0, R1, R0", {1, 0}, 128.7, false},        {"IADD R0, R1, R2", {1, 2}, 132.4, false},
        {"IADD R0, R1, R3", {1, 3}, 66.2, false},         {"IMUL R0, R1, R0", {1, 0}, 33.2, true},
        {"IMUL R0, R1, R2", {1, 2}, 33.2, true},          {"IMUL R0, R1, R3", {1, 3}, 33.2, true},
        {"IMAD R0, R1, R4, R0", {1, 4, 0}, 33.2, true},   {"IMAD R0, R1, R4, R5", {1, 4, 5}, 33.1, true},
        {"IMAD R0, R1, R3, R5", {1, 3, 5}, 33.2, true},   {"IMAD R0, R1, R3, R9", {1, 3, 9}, 26.5, true},
    };
}

// Conflict degree the thesis's prose implies for each row (Sec. 4.2.3, 4.4.4).
constexpr std::array<int, 20> expected_degree = {1, 1, 2, 1, 1, 2, 1, 1, 2, 3, 1, 1, 2, 1, 1, 2, 1, 1, 2, 3};
} // namespace

TEST_CASE("register number mod 8 and parity select one of four banks") {
    const KeplerRegBank expected[8] = {KeplerRegBank::even0, KeplerRegBank::odd0,  KeplerRegBank::even0,
                                       KeplerRegBank::odd0,  KeplerRegBank::even1, KeplerRegBank::odd1,
                                       KeplerRegBank::even1, KeplerRegBank::odd1};
    for (unsigned r = 0; r < 64; ++r) CHECK(kepler_register_bank(r) == expected[r % 8]);
    CHECK(kepler_bank_name(KeplerRegBank::odd1) == "odd1");
}

TEST_CASE("bank rule gives every Table 4.1 row its conflict degree") {
    const auto rows = table_4_1();
    REQUIRE(rows.size() == expected_degree.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        CAPTURE(rows[i].instruction);
        CHECK(kepler_bank_conflict_degree(rows[i].sources) == expected_degree[i]);
    }
}

TEST_CASE("FP and IADD rows of Table 4.1 run at the issue ceiling times the bank factor") {
    const double conflict_free = *kepler_gtx680().measured.issue_cap; // 132
    for (const auto& row : table_4_1()) {
        if (row.integer_multiply) continue;
        CAPTURE(row.instruction);
        const double predicted = conflict_free * kepler_bank_throughput_factor(row.sources);
        // The "dest = source" rows lose ~2.5 % the rule does not describe; the rest agree within 1 %.
        CHECK(row.measured == doctest::Approx(predicted).epsilon(0.03));
    }
}

TEST_CASE("IMUL/IMAD stay at their own cap except the three-way IMAD the rule cannot explain") {
    const double imul_cap = 33.2; // Table 4.1, conflict-free IMUL
    for (const auto& row : table_4_1()) {
        if (!row.integer_multiply) continue;
        CAPTURE(row.instruction);
        const double predicted = std::min(imul_cap, 132.0 * kepler_bank_throughput_factor(row.sources));
        if (row.instruction == "IMAD R0, R1, R3, R9") {
            // Documented deviation: the rule predicts the 33.2 cap (132/3 = 44 > 33.2); measured 26.5.
            CHECK(predicted == imul_cap);
            CHECK(row.measured < 0.85 * predicted);
        } else {
            CHECK(row.measured == doctest::Approx(predicted).epsilon(0.01));
        }
    }
}

TEST_CASE("naming the same register twice is not a conflict") {
    const std::array<unsigned, 3> ffma_rb_rb_ra{1, 1, 0}; // FFMA R0, R1, R1, R0
    CHECK(kepler_bank_conflict_degree(ffma_rb_rb_ra) == 1);
    const std::array<unsigned, 3> same_bank_repeated{1, 1, 9};
    CHECK(kepler_bank_conflict_degree(same_bank_repeated) == 2);
    CHECK(kepler_bank_throughput_factor(same_bank_repeated) == 0.5);
    CHECK(kepler_bank_conflict_degree(std::span<const unsigned>{}) == 1);
}

TEST_CASE("Sec. 4.4.4 allocation: C in R26-R61 has nine registers per bank, A/B/C in distinct banks never conflict") {
    std::vector<unsigned> c_regs;
    for (unsigned r = 26; r <= 61; ++r) c_regs.push_back(r);
    REQUIRE(c_regs.size() == 36);
    const auto occupancy = kepler_bank_occupancy(c_regs);
    for (int n : occupancy) CHECK(n == 9);
    // A from even0/odd0, B from even1/odd1 (Sec. 4.4.4); an accumulator on a third bank is conflict-free.
    for (unsigned a : {0u, 1u, 2u, 3u}) {
        for (unsigned b : {4u, 5u, 6u, 7u}) {
            for (unsigned c : c_regs) {
                const auto ca = kepler_register_bank(c);
                if (ca == kepler_register_bank(a) || ca == kepler_register_bank(b)) continue;
                const std::array<unsigned, 3> src{a, b, c};
                CHECK(kepler_bank_conflict_degree(src) == 1);
            }
        }
    }
}
