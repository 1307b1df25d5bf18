#pragma once
// Device-side printf: the text one `vprintf(format, args)` call produces, formatted as the CUDA host runtime
// formats the FIFO record the device wrote (CUDA C++ Programming Guide, "Formatted Output").
// Contract:
// - `format` is a generic address of a NUL-terminated string; `args` a generic address of the packed argument
//   buffer nvcc builds in the thread's local memory: each argument at its natural alignment (int, and char/short
//   promoted to int: 4 bytes; long, long long, size_t, pointers, and float promoted to double: 8 bytes), in order.
// - Conversions: d i u o x X c s p f F e E g G a A and %%, with the flags - + space # 0, a width and a precision
//   (digits or `*`, which reads an int argument), and the length modifiers hh h l ll z j t. Each is formatted by
//   the host C library with an argument of the C type the modifier names, so the text is what printf prints.
//   %s prints "(null)" for a null pointer and reads at most `precision` bytes when one is given.
// - The result's `arguments` is what CUDA's vprintf returns: the number of arguments the format consumed (`*`
//   included), or -1 for a null format (which prints nothing).
// - Errors throw PrintfFault (the caller adds kernel, thread and PTX line): an unreadable or unterminated format
//   or %s string, a format that reads past readable memory or needs arguments when none were passed, an unknown
//   conversion, %n, long double (L), wide characters (%lc, %ls), and a width or precision above
//   printf_max_output. Output above printf_max_output bytes is cut there and marked (`truncated`).
// - `Memory` is callable as mem(address, bytes) -> const std::uint8_t* (nullptr when the range is not readable
//   by the calling thread); it is the only way this file reads device state.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace gpuarch::func {

// One call's output is cut at 4 KiB: far above any line a kernel prints, and a bound on host memory per call.
inline constexpr std::size_t printf_max_output = 4096;
// Format strings and %s strings longer than this without a NUL are reported as unterminated.
inline constexpr std::size_t printf_max_string = 4096;
// What one launch may append to the console: CUDA's default printf FIFO size (cudaLimitPrintfFifoSize, 1 MiB;
// CUDA Runtime API, cudaDeviceSetLimit).
inline constexpr std::uint64_t console_limit_per_launch = std::uint64_t{1} << 20;

struct PrintfFault {
    std::string message;
    std::optional<std::uint64_t> address;
};

struct PrintfResult {
    std::string text;
    int arguments = 0;
    bool truncated = false;
};

namespace detail {

inline std::string hex(std::uint64_t v) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "%llx", static_cast<unsigned long long>(v));
    return buffer;
}

// A NUL-terminated string at a generic address, read byte by byte so a string may end right at the end of its
// allocation; at most `limit` bytes (no NUL needed at the limit when `stop_at_limit`, as %.Ns reads).
template <class Memory>
std::string read_device_string(Memory& mem, std::uint64_t address, std::size_t limit, std::string_view what,
                               bool stop_at_limit = false) {
    std::string out;
    for (std::size_t i = 0;; ++i) {
        if (i == limit) {
            if (stop_at_limit) return out;
            throw PrintfFault{std::string(what) + " at 0x" + hex(address) + " has no terminating NUL within " +
                                  std::to_string(limit) + " bytes",
                              address};
        }
        const std::uint8_t* p = mem(address + i, 1);
        if (p == nullptr)
            throw PrintfFault{std::string(what) + " at 0x" + hex(address) +
                                  (i == 0 ? " is not readable device memory"
                                          : " runs past readable memory at byte " + std::to_string(i) + " (no NUL)"),
                              address + i};
        if (*p == 0) return out;
        out.push_back(static_cast<char>(*p));
    }
}

// snprintf into a std::string (the spec and argument come from one parsed conversion, so the format is ours).
template <class T> std::string c_format(const std::string& spec, T value) {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    const int n = std::snprintf(nullptr, 0, spec.c_str(), value);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0U, '\0');
    if (n > 0) std::snprintf(out.data(), out.size() + 1, spec.c_str(), value);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return out;
}

} // namespace detail

template <class Memory> PrintfResult format_device_printf(Memory&& mem, std::uint64_t format, std::uint64_t args) {
    PrintfResult result;
    if (format == 0) {
        result.arguments = -1; // CUDA: "If the format string is NULL, -1 is returned."
        return result;
    }
    const std::string fmt = detail::read_device_string(mem, format, printf_max_string, "printf: the format string");
    std::uint64_t offset = 0; // next argument's offset in the buffer
    int index = 0; // arguments consumed
    // The next argument of `bytes` bytes at its natural alignment, little-endian, zero-extended.
    const auto next_argument = [&](unsigned bytes, std::string_view conversion) -> std::uint64_t {
        ++index;
        if (args == 0)
            throw PrintfFault{"printf: conversion '" + std::string(conversion) + "' needs argument " +
                                  std::to_string(index) + " but the call passed no arguments",
                              std::nullopt};
        offset = (offset + bytes - 1) / bytes * bytes;
        const std::uint64_t at = args + offset;
        const std::uint8_t* p = mem(at, bytes);
        if (p == nullptr)
            throw PrintfFault{"printf: conversion '" + std::string(conversion) + "' reads argument " +
                                  std::to_string(index) + " at 0x" + detail::hex(at) +
                                  ", past the readable argument buffer (more conversions than arguments?)",
                              at};
        offset += bytes;
        std::uint64_t v = 0;
        std::memcpy(&v, p, bytes); // little-endian host, as the device
        return v;
    };
    const auto append = [&](std::string_view piece) {
        if (result.truncated) return;
        const std::size_t room = printf_max_output - result.text.size();
        if (piece.size() > room) {
            result.text.append(piece.substr(0, room));
            result.truncated = true;
            return;
        }
        result.text.append(piece);
    };
    std::size_t i = 0;
    while (i < fmt.size()) {
        const std::size_t percent = fmt.find('%', i);
        append(std::string_view(fmt).substr(i, percent == std::string::npos ? std::string::npos : percent - i));
        if (percent == std::string::npos) break;
        std::size_t j = percent + 1;
        const auto at_end = [&] { return j >= fmt.size(); };
        const auto incomplete = [&]() -> PrintfFault {
            return PrintfFault{"printf: the format ends inside the conversion '" + fmt.substr(percent) + "'",
                               std::nullopt};
        };
        if (at_end()) throw incomplete();
        if (fmt[j] == '%') {
            append("%");
            i = j + 1;
            continue;
        }
        std::string spec = "%";
        while (!at_end() && std::strchr("-+ #0", fmt[j]) != nullptr) spec.push_back(fmt[j++]);
        // Width or precision: digits, or `*` taking an int argument (a negative * width means '-' flag, a negative
        // * precision means none, as in C).
        const auto number = [&](bool is_precision) {
            if (!at_end() && fmt[j] == '*') {
                ++j;
                const auto v = static_cast<std::int32_t>(next_argument(4, fmt.substr(percent, j - percent)));
                if (v < 0) {
                    if (is_precision) return std::string();
                    return "-" + std::to_string(-static_cast<std::int64_t>(v));
                }
                return std::to_string(v);
            }
            std::string digits;
            while (!at_end() && fmt[j] >= '0' && fmt[j] <= '9') digits.push_back(fmt[j++]);
            return digits;
        };
        const auto check_size = [&](const std::string& digits, std::string_view what) {
            const std::string_view d =
                !digits.empty() && digits[0] == '-' ? std::string_view(digits).substr(1) : digits;
            if (d.size() > 5 || (!d.empty() && std::stoul(std::string(d)) > printf_max_output))
                throw PrintfFault{"printf: the " + std::string(what) + " " + std::string(d) + " in '" +
                                      fmt.substr(percent, j - percent) + "' exceeds the " +
                                      std::to_string(printf_max_output) + "-byte output limit of one call",
                                  std::nullopt};
        };
        const std::string width = number(false);
        check_size(width, "field width");
        spec += width;
        std::optional<std::size_t> precision;
        if (!at_end() && fmt[j] == '.') {
            ++j;
            const std::string digits = number(true);
            check_size(digits, "precision");
            if (!(digits.empty() && j > 0 && fmt[j - 1] == '*')) {
                spec += "." + digits;
                precision = digits.empty() ? 0 : std::stoul(digits);
            }
        }
        std::string length;
        while (!at_end() && std::strchr("hlzjtL", fmt[j]) != nullptr && length.size() < 2) length.push_back(fmt[j++]);
        if (at_end()) throw incomplete();
        const char conv = fmt[j++];
        const std::string written = fmt.substr(percent, j - percent);
        const auto reject = [&](const std::string& why) -> PrintfFault {
            return PrintfFault{"printf: conversion '" + written + "' " + why, std::nullopt};
        };
        if (!(length.empty() || length == "hh" || length == "h" || length == "l" || length == "ll" || length == "z" ||
              length == "j" || length == "t" || length == "L"))
            throw reject("has an unknown length modifier '" + length + "'");
        switch (conv) {
        case 'd':
        case 'i':
        case 'u':
        case 'o':
        case 'x':
        case 'X': {
            if (length == "L") throw reject("uses L, which applies only to floating-point conversions");
            const bool wide = length == "l" || length == "ll" || length == "z" || length == "j" || length == "t";
            const std::uint64_t raw = next_argument(wide ? 8U : 4U, written);
            const bool is_signed = conv == 'd' || conv == 'i';
            // The value as the C type the length modifier names (hh/h: the promoted int converted back).
            std::int64_t s = wide ? static_cast<std::int64_t>(raw) : static_cast<std::int32_t>(raw);
            std::uint64_t u = wide ? raw : static_cast<std::uint32_t>(raw);
            if (length == "hh") {
                s = static_cast<signed char>(raw);
                u = static_cast<unsigned char>(raw);
            } else if (length == "h") {
                s = static_cast<short>(raw);
                u = static_cast<unsigned short>(raw);
            }
            const std::string c_spec = spec + "ll" + conv;
            append(is_signed ? detail::c_format(c_spec, static_cast<long long>(s))
                             : detail::c_format(c_spec, static_cast<unsigned long long>(u)));
            break;
        }
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A': {
            if (length == "L") throw reject("uses long double, which the device does not have");
            if (!length.empty() && length != "l") throw reject("has a length modifier that does not apply to it");
            double v = 0;
            const std::uint64_t raw = next_argument(8, written); // float arguments are promoted to double
            std::memcpy(&v, &raw, sizeof v);
            append(detail::c_format(spec + conv, v));
            break;
        }
        case 'c': {
            if (!length.empty()) throw reject("(a wide character) is not supported");
            const auto v = static_cast<int>(static_cast<std::int32_t>(next_argument(4, written)));
            append(detail::c_format(spec + 'c', v));
            break;
        }
        case 's': {
            if (!length.empty()) throw reject("(a wide string) is not supported");
            const std::uint64_t pointer = next_argument(8, written);
            std::string text = "(null)";
            if (pointer != 0) {
                const std::size_t limit = precision ? std::min(*precision, printf_max_string) : printf_max_string;
                text = detail::read_device_string(
                    mem, pointer, limit, "printf: the %s argument " + std::to_string(index), precision.has_value());
            }
            append(detail::c_format(spec + 's', text.c_str()));
            break;
        }
        case 'p': {
            if (!length.empty()) throw reject("has a length modifier that does not apply to it");
            const std::uint64_t pointer = next_argument(8, written);
            append(detail::c_format(spec + 'p', reinterpret_cast<const void*>(static_cast<std::uintptr_t>(pointer))));
            break;
        }
        case 'n': throw reject("(store the count written) is not supported on the device");
        default: throw reject("is not a printf conversion");
        }
        i = j;
    }
    result.arguments = index;
    return result;
}

} // namespace gpuarch::func
