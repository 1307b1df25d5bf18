#pragma once
// Zero-value and inactive-lane gating of register-file accesses (Radaideh 2020, Chapter 4, Sec. 4.3).
//
// The gating level is incremental, in the thesis's order (Figs. 4.7-4.9):
//   inactive        : thread registers of inactive lanes are neither read nor written (Sec. 4.3.1);
//   in_lane_zero    : + a 32-bit zero result is not written, its bit in a per-register zero mask says so, and
//                     reads of it are gated (Sec. 4.3.2);
//   cross_lane_zero : + each group of 4 lanes may instead be stored byte-reordered (word k = byte k of the four
//                     lanes) when that gives more all-zero 4-byte words; the group's Reorder bit (R-bit) records
//                     the choice (Secs. 4.3.3, 4.3.4).
// Gating saves energy only; it never changes timing ("no performance impact", Sec. 4.1).
//
// Choices where the thesis is silent (docs/register_file.md lists them):
//   * A 4-byte word is the gating unit in both forms (a thread register, or a byte plane of a 4-lane group).
//   * Ties between the in-lane and the cross-lane zero counts keep the in-lane form (R = 0): no reordering.
//   * A group is written reordered only when all four of its lanes are active in that write: an inactive lane's
//     old bytes would otherwise be spread over the four words being written.
//   * Reading a reordered group reads its non-zero planes whenever any lane of the group is active; when none
//     is, the whole group is gated as inactive.
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>

namespace gpuarch::regfile {

enum class GatingLevel : std::uint8_t { none, inactive, in_lane_zero, cross_lane_zero };

// Radaideh 2020 Sec. 4.3.3: "each group having 4 lanes".
inline constexpr unsigned cross_lane_group = 4;

struct NoGating {
    static constexpr std::string_view name = "ungated";
    static constexpr GatingLevel level = GatingLevel::none;
};
struct InactiveGating {
    static constexpr std::string_view name = "inactive";
    static constexpr GatingLevel level = GatingLevel::inactive;
};
struct InLaneZeroGating {
    static constexpr std::string_view name = "in_lane";
    static constexpr GatingLevel level = GatingLevel::in_lane_zero;
};
struct CrossLaneZeroGating {
    static constexpr std::string_view name = "cross_lane";
    static constexpr GatingLevel level = GatingLevel::cross_lane_zero;
};

// Bit k set when byte k of all four lanes is zero (the zero words of the reordered form).
constexpr std::uint8_t zero_byte_planes(std::span<const std::uint32_t, cross_lane_group> lanes) {
    std::uint32_t any = 0;
    for (const std::uint32_t v : lanes) any |= v;
    std::uint8_t planes = 0;
    for (unsigned k = 0; k < 4; ++k)
        if (((any >> (8 * k)) & 0xFFU) == 0) planes |= static_cast<std::uint8_t>(1U << k);
    return planes;
}

// How one 4-lane group of a warp register is stored.
struct GroupForm {
    bool reordered = false; // R-bit
    std::uint8_t zero_lanes = 0; // in-lane form: bit i = lane i of the group holds 0
    std::uint8_t zero_planes = 0; // reordered form: bit k = byte plane k is all zero
    constexpr bool operator==(const GroupForm&) const = default;
};

// Radaideh 2020 Sec. 4.3.4: zero detection on both arrangements, a counter per mask, and the mask with more
// zeros wins; `may_reorder` is false when the cross-lane form is not allowed (gating level, or a partly active
// write). Ties keep the in-lane form.
constexpr GroupForm choose_group_form(std::span<const std::uint32_t, cross_lane_group> lanes, bool may_reorder) {
    GroupForm form;
    for (unsigned i = 0; i < cross_lane_group; ++i)
        if (lanes[i] == 0) form.zero_lanes |= static_cast<std::uint8_t>(1U << i);
    if (may_reorder) {
        const std::uint8_t planes = zero_byte_planes(lanes);
        if (std::popcount(static_cast<unsigned>(planes)) > std::popcount(static_cast<unsigned>(form.zero_lanes))) {
            form.reordered = true;
            form.zero_planes = planes;
            form.zero_lanes = 0;
        }
    }
    return form;
}

// What one warp-register access did at the 4-byte-word level.
struct GatingTally {
    std::uint32_t words = 0; // 4-byte words the access covers (= warp width)
    std::uint32_t gated_inactive = 0;
    std::uint32_t gated_in_lane_zero = 0;
    std::uint32_t gated_cross_lane_zero = 0;
    std::uint32_t bytes = 0; // bank bytes actually accessed
    constexpr std::uint32_t gated() const { return gated_inactive + gated_in_lane_zero + gated_cross_lane_zero; }
};

// Gating of one access to one group. `active` is the group's active-lane bits (bit i = lane i of the group),
// `sub_bank_mask` the sub-banks the access touches (byte planes; 0xF without width-aware banks).
// In the in-lane form a lane word costs popcount(mask) bytes (its bytes in the touched sub-banks); in the
// reordered form plane word k costs its 4 bytes when sub-bank k is touched.
constexpr void tally_group(GatingTally& t, GatingLevel level, const GroupForm& form, std::uint8_t active,
                           std::uint8_t sub_bank_mask) {
    const auto bytes_per_lane = static_cast<std::uint32_t>(std::popcount(static_cast<unsigned>(sub_bank_mask & 0xFU)));
    t.words += cross_lane_group;
    if (form.reordered && level == GatingLevel::cross_lane_zero) {
        if (active == 0) {
            t.gated_inactive += cross_lane_group;
            return;
        }
        for (unsigned k = 0; k < 4; ++k) {
            if ((form.zero_planes >> k) & 1U) ++t.gated_cross_lane_zero;
            else if ((sub_bank_mask >> k) & 1U) t.bytes += cross_lane_group;
        }
        return;
    }
    for (unsigned i = 0; i < cross_lane_group; ++i) {
        const bool lane_active = (active >> i) & 1U;
        if (!lane_active && level >= GatingLevel::inactive) ++t.gated_inactive;
        else if (lane_active && level >= GatingLevel::in_lane_zero && ((form.zero_lanes >> i) & 1U))
            ++t.gated_in_lane_zero;
        else t.bytes += bytes_per_lane;
    }
}

} // namespace gpuarch::regfile
