#pragma once
// Register width detection for sub-banked register files (Radaideh 2020, Sec. 3.6.2.8, Fig. 3.20).
//
// A warp register of W lanes x 4 bytes is stored thread-interleaved: sub-bank k holds byte k of every lane
// (Sec. 3.6.2.2, Fig. 3.11b), so an N-byte register occupies N sub-banks. Sub-bank masks below use bit k for
// sub-bank k; a right-aligned (even) register of N bytes uses the low N sub-banks, a left-aligned (odd) one the
// high N (byte-swapped, Sec. 3.6.2.3).
//
// Contract of the detector (the thesis's WB-stage logic, Fig. 3.20):
//   * positive test: byte position k (k = 1..3) is needed when the OR of byte k over all lanes is non-zero;
//   * negative test: byte position k is needed when the AND of byte k over all lanes is not 0xFF;
//   * the warp's sign bit selects the test; sub-bank 0 is always enabled.
// The stored form is a 2-bit code plus the sign bit, 3 bits per warp register. Two bits hold only four masks,
// so the mask is the contiguous ("thermometer") one up to the highest needed byte: 0001, 0011, 0111, 1111
// (the thesis lists the code table in Fig. 3.20 only, whose text is not available; we take code = bytes - 1).
// Which lane's MSB is "the sign bit of the warp data" does not matter: when lanes disagree in sign, byte 3 is
// needed by both tests (a non-negative lane has byte 3 < 0x80, a negative one byte 3 >= 0x80), so the register
// is full width whatever the sign; when they agree any lane gives the same sign. We use lane 0.
// Recovery (Sec. 3.6.2.8): the sign bit is written into every byte above the stored ones, so a register detected
// as N bytes with sign s reads back exactly: restore(v & low N bytes, N, s) == v for every lane.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace gpuarch::regfile {

// Bytes per 32-bit lane, and therefore sub-banks per bank in the thread-interleaved format.
inline constexpr unsigned lane_bytes = 4;

// Radaideh 2020 Sec. 3.6.2.8: "a compact form that only requires 3 bits" (2-bit code + sign) per warp register.
inline constexpr unsigned mask_buffer_bits_per_register = 3;

// Storage of the sub-bank mask buffer for `banks` banks of `entries` warp registers each. Radaideh 2020 Table 3.5:
// 4 banks x 256 entries -> "Added sub-bank mask buffer 384B per SM".
constexpr std::size_t mask_buffer_bytes(unsigned banks, unsigned entries) {
    return (std::size_t{banks} * entries * mask_buffer_bits_per_register + 7) / 8;
}

// Sub-bank mask of a right-aligned register of `bytes` bytes (bytes in 1..4).
constexpr std::uint8_t right_aligned_mask(unsigned bytes) { return static_cast<std::uint8_t>((1U << bytes) - 1U); }
// Bit k -> bit 3-k: the mask of the same register after the intra-thread byte swap (left alignment).
constexpr std::uint8_t reverse_mask(std::uint8_t mask) {
    return static_cast<std::uint8_t>(((mask & 1U) << 3) | ((mask & 2U) << 1) | ((mask & 4U) >> 1) | ((mask & 8U) >> 3));
}
constexpr std::uint8_t left_aligned_mask(unsigned bytes) { return reverse_mask(right_aligned_mask(bytes)); }

// The 2-bit code of a width (1..4 bytes) and back.
constexpr std::uint8_t encode_width(unsigned bytes) { return static_cast<std::uint8_t>(bytes - 1U); }
constexpr unsigned decode_width(std::uint8_t code) { return (code & 3U) + 1U; }

struct WidthInfo {
    std::uint8_t bytes = lane_bytes; // 1..4
    bool negative = false; // the stored sign bit (meaningful when bytes < 4)
    constexpr std::uint8_t code() const { return encode_width(bytes); }
    constexpr std::uint8_t mask() const { return right_aligned_mask(bytes); }
    constexpr bool operator==(const WidthInfo&) const = default;
};

// Radaideh 2020 Fig. 3.20: width and sign of a warp register from its per-lane 32-bit values.
// Precondition: lanes is not empty.
constexpr WidthInfo detect_width(std::span<const std::uint32_t> lanes) {
    std::array<std::uint32_t, lane_bytes> any_bits{}; // OR of byte k over the lanes
    std::array<std::uint32_t, lane_bytes> all_bits{0xFF, 0xFF, 0xFF, 0xFF}; // AND of byte k
    for (const std::uint32_t v : lanes) {
        for (unsigned k = 1; k < lane_bytes; ++k) {
            const std::uint32_t byte = (v >> (8 * k)) & 0xFFU;
            any_bits[k] |= byte;
            all_bits[k] &= byte;
        }
    }
    WidthInfo info;
    info.negative = (lanes[0] >> 31) != 0;
    unsigned bytes = 1;
    for (unsigned k = 1; k < lane_bytes; ++k) {
        const bool needed = info.negative ? all_bits[k] != 0xFFU : any_bits[k] != 0;
        if (needed) bytes = k + 1;
    }
    info.bytes = static_cast<std::uint8_t>(bytes);
    if (bytes == lane_bytes) info.negative = false; // the sign bit is unused for a full-width register
    return info;
}

// CORF's width (Asghari Esfeden et al., as Radaideh 2020 Sec. 3.6.2.8 describes it): no sign bit is stored, so
// the narrow value must carry its sign in its own top bit: N bytes suffice when sign-extending the low N bytes
// reproduces the value, in every lane. 255 needs 2 bytes here, 1 with the sign-bit detector.
constexpr WidthInfo detect_width_sign_in_data(std::span<const std::uint32_t> lanes) {
    unsigned bytes = 1;
    for (const std::uint32_t v : lanes) {
        while (bytes < lane_bytes) {
            const unsigned shift = 32 - 8 * bytes;
            const auto extended = static_cast<std::uint32_t>(static_cast<std::int32_t>(v << shift) >> shift);
            if (extended == v) break;
            ++bytes;
        }
    }
    WidthInfo info;
    info.bytes = static_cast<std::uint8_t>(bytes);
    info.negative = false;
    return info;
}

// The register value recovered from its stored low `bytes` bytes and sign (the sign fills the bytes above).
constexpr std::uint32_t restore_width(std::uint32_t stored, unsigned bytes, bool negative) {
    if (bytes >= lane_bytes) return stored;
    const std::uint32_t low = (std::uint32_t{1} << (8 * bytes)) - 1U;
    return (stored & low) | (negative ? ~low : 0U);
}

// CORF's recovery: the stored low `bytes` bytes sign-extended from their own top bit.
constexpr std::uint32_t restore_sign_extended(std::uint32_t stored, unsigned bytes) {
    if (bytes >= lane_bytes) return stored;
    const unsigned shift = 32 - 8 * bytes;
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(stored << shift) >> shift);
}

} // namespace gpuarch::regfile
