#pragma once
// Values of PTX literal tokens (PTX ISA 9.0, Sec. 4.5.1). Contract: every function returns nullopt instead of
// wrapping when a literal does not fit in 64 bits; callers turn that into a ParseError at the token.
#include <bit>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

#include <gpuarch/ptx/lexer.hpp>

namespace gpuarch::ptx {

// The 64-bit pattern of an integer literal: decimal, 0x hex, 0b binary or 0-prefixed octal, optional U suffix.
inline std::optional<std::uint64_t> integer_literal_bits(std::string_view text) {
    if (!text.empty() && text.back() == 'U') text.remove_suffix(1);
    unsigned base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
        base = 2;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        base = 8;
        text.remove_prefix(1);
    }
    if (text.empty()) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text) {
        unsigned digit = 0;
        if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
        else return std::nullopt;
        if (digit >= base) return std::nullopt;
        if (value > (UINT64_MAX - digit) / base) return std::nullopt;
        value = value * base + digit;
    }
    return value;
}

inline std::optional<std::uint64_t> hex_float_bits(std::string_view text) {
    // "0f" + 8 digits or "0d" + 16 digits; the lexer has checked the shape.
    if (text.size() < 3) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text.substr(2)) {
        unsigned digit = 0;
        if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
        else return std::nullopt;
        value = (value << 4) | digit;
    }
    return value;
}

inline std::optional<double> decimal_float_value(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

inline std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline std::uint64_t f64_bits(double d) { return std::bit_cast<std::uint64_t>(d); }
inline float f32_from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
inline double f64_from_bits(std::uint64_t b) { return std::bit_cast<double>(b); }

} // namespace gpuarch::ptx
