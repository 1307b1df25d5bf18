// Width detection (Radaideh 2020 Sec. 3.6.2.8, Fig. 3.20) and zero masks (Sec. 4.3) on crafted warp values.
#include <doctest/doctest.h>

#include <gpuarch/regfile/width_detector.hpp>
#include <gpuarch/regfile/zero_gating.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace {
using namespace gpuarch::regfile;

std::vector<std::uint32_t> warp_of(std::initializer_list<std::int64_t> values, unsigned lanes = 32) {
    std::vector<std::uint32_t> v;
    for (unsigned i = 0; i < lanes; ++i) v.push_back(static_cast<std::uint32_t>(*(values.begin() + i % values.size())));
    return v;
}

// Every lane reads back exactly from its stored bytes and the sign bit.
bool round_trips(const std::vector<std::uint32_t>& lanes, WidthInfo w) {
    for (const std::uint32_t v : lanes) {
        const std::uint32_t stored = v & (w.bytes == 4 ? 0xFFFFFFFFU : ((1U << (8 * w.bytes)) - 1U));
        if (restore_width(stored, w.bytes, w.negative) != v) return false;
    }
    return true;
}
bool round_trips_sign_extended(const std::vector<std::uint32_t>& lanes, WidthInfo w) {
    for (const std::uint32_t v : lanes)
        if (restore_sign_extended(v, w.bytes) != v) return false;
    return true;
}
} // namespace

TEST_CASE("positive narrow values need as many sub-banks as their highest non-zero byte") {
    CHECK(detect_width(warp_of({0, 1, 7, 200})) == WidthInfo{1, false});
    CHECK(detect_width(warp_of({255})) == WidthInfo{1, false}); // the sign bit is stored apart: 255 is 1 byte
    CHECK(detect_width(warp_of({3, 0x1234})) == WidthInfo{2, false});
    CHECK(detect_width(warp_of({0xFFFF})) == WidthInfo{2, false}); // bytes 2 and 3 zero: two sub-banks (Sec. 3.6.2.8)
    CHECK(detect_width(warp_of({0x00FF0000})) == WidthInfo{3, false});
    CHECK(detect_width(warp_of({0x01000000})).bytes == 4); // byte 3 needed: thermometer mask up to it
    CHECK(detect_width(warp_of({0x7FFFFFFF})).bytes == 4);
}

TEST_CASE("negative narrow values are detected by the all-ones test and keep their sign bit") {
    CHECK(detect_width(warp_of({-1})) == WidthInfo{1, true});
    CHECK(detect_width(warp_of({-1, -128, -200})) == WidthInfo{1, true});
    CHECK(detect_width(warp_of({-1, -300})) == WidthInfo{2, true});
    CHECK(detect_width(warp_of({static_cast<std::int64_t>(0xFFFF0000U)})) == WidthInfo{2, true});
    CHECK(detect_width(warp_of({-70000})) == WidthInfo{3, true});
    CHECK(detect_width(warp_of({static_cast<std::int64_t>(0x80000000U)})).bytes == 4);
}

TEST_CASE("a warp mixing positive and negative lanes is full width whichever lane gives the sign") {
    CHECK(detect_width(warp_of({1, -1})).bytes == 4);
    CHECK(detect_width(warp_of({-1, 1})).bytes == 4);
    CHECK(detect_width(warp_of({0, -5, 100})).bytes == 4);
}

TEST_CASE("every detected width restores every lane exactly") {
    const std::vector<std::vector<std::uint32_t>> cases{warp_of({0}),
                                                        warp_of({1, 2, 3}),
                                                        warp_of({-1, -2}),
                                                        warp_of({255, 0}),
                                                        warp_of({-129, -1}),
                                                        warp_of({0x12345}),
                                                        warp_of({-70000, -1}),
                                                        warp_of({1, -1}),
                                                        warp_of({0x7FFFFFFF, 0}),
                                                        warp_of({static_cast<std::int64_t>(0xDEADBEEFU)})};
    for (const auto& lanes : cases) {
        CHECK(round_trips(lanes, detect_width(lanes)));
        CHECK(round_trips_sign_extended(lanes, detect_width_sign_in_data(lanes)));
    }
}

TEST_CASE("CORF's sign-in-data width needs an extra byte where the top stored bit disagrees with the sign") {
    CHECK(detect_width_sign_in_data(warp_of({127})).bytes == 1);
    CHECK(detect_width_sign_in_data(warp_of({255})).bytes == 2);
    CHECK(detect_width_sign_in_data(warp_of({0xFFFF})).bytes == 3); // 2 with the sign bit (Sec. 3.6.2.8)
    CHECK(detect_width_sign_in_data(warp_of({-128})).bytes == 1);
    CHECK(detect_width_sign_in_data(warp_of({1, -1})).bytes == 1); // no single sign: per-lane sign extension
}

TEST_CASE("masks: right alignment uses the low sub-banks, left alignment the high ones, codes fit two bits") {
    CHECK(right_aligned_mask(1) == 0b0001);
    CHECK(right_aligned_mask(3) == 0b0111);
    CHECK(left_aligned_mask(1) == 0b1000);
    CHECK(left_aligned_mask(2) == 0b1100);
    CHECK(left_aligned_mask(3) == 0b1110);
    CHECK(left_aligned_mask(4) == 0b1111);
    for (unsigned b = 1; b <= 4; ++b) {
        CHECK(encode_width(b) < 4);
        CHECK(decode_width(encode_width(b)) == b);
    }
}

TEST_CASE("the Table 3.5 register file needs a 384-byte mask buffer per SM") {
    CHECK(mask_buffer_bytes(4, 256) == 384);
    static_assert(mask_buffer_bits_per_register == 3);
}

TEST_CASE("zero byte planes of a 4-lane group: bit k set when byte k of all four lanes is zero") {
    const std::array<std::uint32_t, 4> small{1, 2, 0, 0x300};
    CHECK(zero_byte_planes(small) == 0b1100);
    const std::array<std::uint32_t, 4> zero{0, 0, 0, 0};
    CHECK(zero_byte_planes(zero) == 0b1111);
}

TEST_CASE("the cross-lane form is chosen per group only when it has more zero words than the in-lane form") {
    // Four small values: no lane is zero, three byte planes are: reorder.
    const std::array<std::uint32_t, 4> small{1, 2, 3, 4};
    const GroupForm a = choose_group_form(small, true);
    CHECK(a.reordered);
    CHECK(a.zero_planes == 0b1110);
    CHECK(choose_group_form(small, false) == GroupForm{false, 0, 0});
    // Two zero lanes and two full values: in-lane wins (2 zero words against 0 zero planes).
    const std::array<std::uint32_t, 4> mixed{0, 0xFFFFFFFF, 0, 0x80000000};
    CHECK(choose_group_form(mixed, true) == GroupForm{false, 0b0101, 0});
    // A tie keeps the in-lane form: two zero lanes, two zero planes.
    const std::array<std::uint32_t, 4> tie{0, 0, 0x0101, 0x0202};
    CHECK_FALSE(choose_group_form(tie, true).reordered);
}

TEST_CASE("gating tallies: inactive lanes, in-lane zeros and zero planes are gated, the rest cost their bytes") {
    const GroupForm in_lane{false, 0b0010, 0};
    GatingTally t;
    tally_group(t, GatingLevel::in_lane_zero, in_lane, 0b0111, 0xF); // lane 3 inactive, lane 1 zero
    CHECK(t.words == 4);
    CHECK(t.gated_inactive == 1);
    CHECK(t.gated_in_lane_zero == 1);
    CHECK(t.bytes == 8);
    GatingTally only_inactive;
    tally_group(only_inactive, GatingLevel::inactive, in_lane, 0b0111, 0xF);
    CHECK(only_inactive.gated_in_lane_zero == 0);
    CHECK(only_inactive.bytes == 12);
    GatingTally none;
    tally_group(none, GatingLevel::none, in_lane, 0b0111, 0xF);
    CHECK(none.gated() == 0);
    CHECK(none.bytes == 16);
    const GroupForm reordered{true, 0, 0b1110};
    GatingTally r;
    tally_group(r, GatingLevel::cross_lane_zero, reordered, 0b0001, 0xF);
    CHECK(r.gated_cross_lane_zero == 3);
    CHECK(r.bytes == 4);
    GatingTally idle;
    tally_group(idle, GatingLevel::cross_lane_zero, reordered, 0, 0xF);
    CHECK(idle.gated_inactive == 4);
    // A 1-byte access (CARF mask 0001) of an in-lane group costs one byte per ungated lane.
    GatingTally narrow;
    tally_group(narrow, GatingLevel::inactive, in_lane, 0b1111, 0b0001);
    CHECK(narrow.bytes == 4);
}
