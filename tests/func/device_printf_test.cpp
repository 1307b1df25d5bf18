// format_device_printf on its own, over a fake device memory: the argument-buffer layout nvcc builds (natural
// alignment, float promoted to double), vprintf's return value, the per-call output cap and every error.
#include <doctest/doctest.h>

#include <gpuarch/func/device_printf.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {
using namespace gpuarch::func;

// Readable regions at fixed addresses; anything else is unreadable.
struct FakeMemory {
    std::map<std::uint64_t, std::vector<std::uint8_t>> regions;
    const std::uint8_t* operator()(std::uint64_t address, std::uint64_t bytes) const {
        for (const auto& [base, data] : regions)
            if (address >= base && address - base <= data.size() && bytes <= data.size() - (address - base))
                return data.data() + (address - base);
        return nullptr;
    }
};

constexpr std::uint64_t format_at = 0x1000, args_at = 0x2000, string_at = 0x3000;

// An argument buffer packed as nvcc packs it: each value at its natural alignment.
struct Packer {
    std::vector<std::uint8_t> bytes;
    template <class T> Packer& add(T v) {
        while (bytes.size() % sizeof(T) != 0) bytes.push_back(0xee); // padding nvcc leaves unwritten
        const std::size_t at = bytes.size();
        bytes.resize(at + sizeof(T));
        std::memcpy(bytes.data() + at, &v, sizeof(T));
        return *this;
    }
};

PrintfResult run(const std::string& format, const Packer& args, const std::string& string = "") {
    FakeMemory mem;
    mem.regions[format_at] = std::vector<std::uint8_t>(format.c_str(), format.c_str() + format.size() + 1);
    if (!args.bytes.empty()) mem.regions[args_at] = args.bytes;
    if (!string.empty()) mem.regions[string_at] = std::vector<std::uint8_t>(string.begin(), string.end());
    return format_device_printf(mem, format_at, args.bytes.empty() ? 0 : args_at);
}

std::string fault_of(const std::string& format, const Packer& args, const std::string& string = "") {
    try {
        run(format, args, string);
    } catch (const PrintfFault& f) {
        return f.message;
    }
    return "no fault";
}
} // namespace

TEST_CASE("arguments are read at their natural alignment: int 4, double and 64-bit integers 8") {
    Packer p;
    p.add(std::int32_t{7}).add(2.5).add(std::int32_t{-3}).add(std::int64_t{1} << 40).add(std::int32_t{'q'});
    const PrintfResult r = run("%d %.1f %d %lld %c\n", p);
    CHECK(r.text == "7 2.5 -3 1099511627776 q\n");
    CHECK(r.arguments == 5);
    CHECK_FALSE(r.truncated);
}

TEST_CASE(
    "a * width or precision consumes an int argument; a negative width left-aligns, a negative precision is none") {
    Packer p;
    p.add(std::int32_t{-4}).add(std::int32_t{7}).add(std::int32_t{-1}).add(1.25);
    const PrintfResult r = run("[%*d][%.*f]", p);
    CHECK(r.text == "[7   ][1.250000]");
    CHECK(r.arguments == 4);
}

TEST_CASE("%s reads the string from device memory; a precision bounds the read so no NUL is needed") {
    Packer p;
    p.add(string_at).add(string_at).add(std::uint64_t{0});
    CHECK(run("%.3s|%.5s|%s", p, "abcde").text == "abc|abcde|(null)");
}

TEST_CASE("a null format prints nothing and returns -1; a format without conversions returns 0") {
    FakeMemory mem;
    const PrintfResult r = format_device_printf(mem, 0, 0);
    CHECK(r.text.empty());
    CHECK(r.arguments == -1);
    CHECK(run("plain %% text\n", Packer{}).arguments == 0);
    CHECK(run("plain %% text\n", Packer{}).text == "plain % text\n");
}

TEST_CASE("one call's output is cut at printf_max_output bytes and marked truncated") {
    Packer p;
    p.add(std::int32_t{1}).add(std::int32_t{2});
    const PrintfResult r = run("%4000d%4000d", p);
    CHECK(r.truncated);
    CHECK(r.text.size() == printf_max_output);
    CHECK(r.text.substr(3990, 10) == "         1");
}

TEST_CASE("malformed formats and bad arguments are reported, never read out of bounds") {
    Packer one;
    one.add(std::int32_t{5});
    CHECK(fault_of("%d %d", one) == "printf: conversion '%d' reads argument 2 at 0x2004, past the readable argument "
                                    "buffer (more conversions than arguments?)");
    CHECK(fault_of("%d", Packer{}) == "printf: conversion '%d' needs argument 1 but the call passed no arguments");
    CHECK(fault_of("%n", one) == "printf: conversion '%n' (store the count written) is not supported on the device");
    CHECK(fault_of("%Lf", one) == "printf: conversion '%Lf' uses long double, which the device does not have");
    CHECK(fault_of("%ls", one) == "printf: conversion '%ls' (a wide string) is not supported");
    CHECK(fault_of("%y", one) == "printf: conversion '%y' is not a printf conversion");
    CHECK(fault_of("100%", one) == "printf: the format ends inside the conversion '%'");
    CHECK(fault_of("%5000d", one) ==
          "printf: the field width 5000 in '%5000' exceeds the 4096-byte output limit of one call");
    Packer pointer;
    pointer.add(std::uint64_t{0x9999});
    CHECK(fault_of("%s", pointer) == "printf: the %s argument 1 at 0x9999 is not readable device memory");
    Packer unterminated;
    unterminated.add(string_at);
    CHECK(fault_of("%s", unterminated, "abc") ==
          "printf: the %s argument 1 at 0x3000 runs past readable memory at byte 3 (no NUL)");
}
