#pragma once
// The kernels of kernels/features/ (one small CUDA kernel per PTX construct, PTX checked in beside the source),
// each with its inputs and exact expected output, run through a Launcher: the functional engine
// (features_test.cpp) or a whole timed GPU of each example machine (features_timing_test.cpp). The same checks
// pass on every launcher because functional results never depend on timing.
#include <doctest/doctest.h>

#include <gpuarch/func/host.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

namespace gpuarch::func::test::features {

// Runs `entry` of `module` on `device` (throws KernelError as the launch does) with `warp_width`-lane warps.
struct Launcher {
    std::function<void(Device&, const Module&, std::string_view entry, const LaunchConfig&, const Args&)> run;
    unsigned warp_width = 32;
    void operator()(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                    const Args& args) const {
        run(device, module, entry, config, args);
    }
};

inline Module load(const std::string& name) {
    return Module::from_file(std::filesystem::path(GPUARCH_KERNELS_DIR) / "features" / (name + ".ptx"));
}

template <class T>
DevPtr upload(Device& device, const std::vector<T>& values) {
    const DevPtr p = device.malloc(values.size() * sizeof(T));
    device.copy_in(p, values.data(), values.size() * sizeof(T));
    return p;
}
template <class T>
std::vector<T> download(Device& device, DevPtr p, std::size_t count) {
    std::vector<T> out(count);
    device.copy_out(out.data(), p, count * sizeof(T));
    return out;
}
inline DevPtr upload_string(Device& device, const std::string& s) {
    return upload(device, std::vector<char>(s.c_str(), s.c_str() + s.size() + 1));
}

// The KernelError a launch throws, or a failed check when it does not throw one.
inline KernelError error_of(const std::function<void()>& run) {
    try {
        run();
    } catch (const KernelError& e) {
        return e;
    }
    FAIL("the launch did not stop with a KernelError");
    return KernelError("unreachable");
}

// printf.cu, printf_formats on 2 threads: one line per thread per call, lanes in ascending order (the order
// the engine executes them), and vprintf's return value (the number of arguments) per call.
inline void check_printf_formats(const Launcher& launch) {
    Device device;
    const Module module = load("printf");
    const DevPtr returned = device.malloc(4 * sizeof(int));
    const DevPtr name = upload_string(device, "features");
    launch(device, module, "printf_formats", LaunchConfig{Dim3{1, 1, 1}, Dim3{2, 1, 1}, 0},
           Args(returned, name, static_cast<long long>(1234567890123LL), 3.25, 0.75f));
    // Expected text written by hand from C's printf rules (glibc's %a form for 0.5 and 1.5).
    CHECK(device.take_console() ==
          "thread 0 of 2: features\n"
          "thread 1 of 2: features\n"
          "[    0|0    |00000|+0| 0|0] [fffffff0|FFFFFFF0|010|0xff|4294967280]\n"
          "[    1|-1   |00001|+1| 1|-7] [fffffff1|FFFFFFF1|011|0x100|4294967281]\n"
          "[120|250|32760|65530|1234567890123|-1234567890123|3703703670369|0|11f71fb04cb]\n"
          "[-126|4|-32766|4|2469135780246|-1234567890123|3703703670369|1000|11f71fb04cb]\n"
          "[0.000000|0.75| 3.250e+00|-3.2E+00  |0.75|3.25E-10|0x1p-1|3.250000]\n"
          "[3.250000|0.75| 3.250e+00|-3.2E+00  |1.5|3.25E-10|0x1.8p+0|3.250000]\n"
          "[aZ] [fea|      ok|left  |] [     0|0.75     |fe] %\n"
          "[bZ] [fea|      ok|left  |] [     1|0.75     |ea] %\n"
          "no arguments\n"
          "no arguments\n");
    CHECK(download<int>(device, returned, 4) == std::vector<int>{3, 3, 0, 0});
}

// printf_string: a valid string and %p; a pointer to nothing and a string without a NUL are reported with the
// kernel, thread and PTX line instead of crashing.
inline void check_printf_string(const Launcher& launch) {
    const Module module = load("printf");
    const LaunchConfig one{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0};
    {
        Device device;
        const DevPtr s = upload_string(device, "hello");
        launch(device, module, "printf_string", one, Args(s));
        char pointer[32];
        std::snprintf(pointer, sizeof pointer, "%p", reinterpret_cast<const void*>(static_cast<std::uintptr_t>(s)));
        CHECK(device.take_console() == "<hello> " + std::string(pointer) + "\n");
    }
    {
        Device device;
        const KernelError e = error_of([&] { launch(device, module, "printf_string", one, Args(DevPtr{0x1234})); });
        CHECK(e.kind() == KernelErrorKind::illegal_address);
        const std::string what = e.what();
        CHECK(what.find("printf: the %s argument 1 at 0x1234 is not readable device memory") != std::string::npos);
        CHECK(what.find("kernel 'printf_string'") != std::string::npos);
        CHECK(what.find("thread (0,0,0)") != std::string::npos);
        CHECK(e.site().line > 0);
        CHECK(device.console().empty());
    }
    {
        Device device;
        const DevPtr s = upload(device, std::vector<char>(16, 'x')); // no NUL anywhere in the allocation
        const KernelError e = error_of([&] { launch(device, module, "printf_string", one, Args(s)); });
        CHECK(e.kind() == KernelErrorKind::illegal_address);
        CHECK(std::string(e.what()).find("runs past readable memory at byte 16 (no NUL)") != std::string::npos);
    }
}

// assert.cu: with positive inputs the kernel doubles them; one non-positive element stops the launch with the
// assertion's own text (file, line, function, block, thread, expression) and the fault site.
inline void check_assert(const Launcher& launch) {
    const Module module = load("assert");
    const int n = 70;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i + 1;
    const LaunchConfig config{Dim3{3, 1, 1}, Dim3{32, 1, 1}, 0};
    {
        Device device;
        const DevPtr a = upload(device, in), out = device.malloc(n * sizeof(int));
        launch(device, module, "assert_positive", config, Args(a, out, n));
        const std::vector<int> got = download<int>(device, out, n);
        for (int i = 0; i < n; ++i) CHECK(got[static_cast<std::size_t>(i)] == 2 * (i + 1));
    }
    {
        Device device;
        in[37] = -4; // block 1, thread 5
        const DevPtr a = upload(device, in), out = device.malloc(n * sizeof(int));
        const KernelError e = error_of([&] { launch(device, module, "assert_positive", config, Args(a, out, n)); });
        CHECK(e.kind() == KernelErrorKind::assertion);
        const std::string what = e.what();
        CHECK(what.find("assert.cu:8: void assert_positive(const int *, int *, int): block: [1,0,0], thread: [5,0,0] "
                        "Assertion `in[i] > 0` failed.") != std::string::npos);
        CHECK(what.find("kernel 'assert_positive' at PC ") == 0);
        CHECK(what.find("CTA (1,0,0), thread (5,0,0)") != std::string::npos);
        REQUIRE(e.site().cta.has_value());
        CHECK(e.site().line > 0);
    }
}

// trap.cu: without negative inputs every element is incremented; a negative one stops the launch with kind trap.
inline void check_trap(const Launcher& launch) {
    const Module module = load("trap");
    const int n = 40;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = 3 * i;
    const LaunchConfig config{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0};
    {
        Device device;
        const DevPtr a = upload(device, in), out = device.malloc(n * sizeof(int));
        launch(device, module, "trap_on_negative", config, Args(a, out, n));
        const std::vector<int> got = download<int>(device, out, n);
        for (int i = 0; i < n; ++i) CHECK(got[static_cast<std::size_t>(i)] == 3 * i + 1);
    }
    {
        Device device;
        in[33] = -1;
        const DevPtr a = upload(device, in), out = device.malloc(n * sizeof(int));
        const KernelError e = error_of([&] { launch(device, module, "trap_on_negative", config, Args(a, out, n)); });
        CHECK(e.kind() == KernelErrorKind::trap);
        const std::string what = e.what();
        CHECK(what.find("the kernel executed trap (__trap())") != std::string::npos);
        CHECK(what.find("CTA (1,0,0), thread (1,0,0)") != std::string::npos);
    }
}

// plain_forms.cu: rsqrt.approx.f64 without .ftz (within 1 ulp-level relative error of the CPU's 1/sqrt after
// nvcc's Newton steps), WARP_SZ = the launch's warp width, and `mov.pred p, N` true exactly for N != 0.
inline void check_plain_forms(const Launcher& launch) {
    Device device;
    const Module module = load("plain_forms");
    const unsigned n = 40;
    std::vector<double> in(n);
    for (unsigned i = 0; i < n; ++i) in[i] = 0.37 + 1.75 * i * i;
    in[1] = 1e-310; // subnormal: flushed by the .ftz form, kept without it
    const DevPtr a = upload(device, in), rs = device.malloc(n * 8), width = device.malloc(n * 4), flags = device.malloc(n * 4);
    launch(device, module, "plain_forms", LaunchConfig{Dim3{1, 1, 1}, Dim3{n, 1, 1}, 0}, Args(a, rs, width, flags));
    const std::vector<double> got = download<double>(device, rs, n);
    for (unsigned i = 0; i < n; ++i) {
        const double want = 1.0 / std::sqrt(in[i]);
        CHECK(std::fabs(got[i] - want) <= 1e-15 * want);
    }
    CHECK(download<int>(device, width, n) == std::vector<int>(n, static_cast<int>(launch.warp_width)));
    CHECK(download<unsigned>(device, flags, n) == std::vector<unsigned>(n, 0b101U));
}

// Inputs for the byte-wise kernels: hand-picked edge bytes (0x00, 0x7f, 0x80, 0xff) in the first lanes, then a
// fixed xorshift sequence, so every byte pattern class occurs in both warps of a 40-thread block.
inline std::vector<unsigned> byte_inputs(unsigned n, std::uint32_t seed) {
    std::vector<unsigned> v = {0x00000000U, 0xffffffffU, 0x7f80ff00U, 0x80808080U, 0x7f7f7f7fU, 0x01ff7f80U};
    std::uint32_t x = seed;
    while (v.size() < n) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v.push_back(x);
    }
    v.resize(n);
    return v;
}

// byte_dot.cu: CPU references written from the PTX ISA's pseudo-code for each form (byte i is bits 8i+7..8i, sign- or
// zero-extended by its operand's type; sums wrap modulo 2^32), independent of the engine's int_ops.hpp.
inline void check_byte_dot(const Launcher& launch) {
    Device device;
    const Module module = load("byte_dot");
    const unsigned n = 40;
    const std::vector<unsigned> a = byte_inputs(n, 0x9e3779b9U), b = byte_inputs(n, 0x2545f491U);
    const DevPtr pa = upload(device, a), pb = upload(device, std::vector<unsigned>(b.rbegin(), b.rend()));
    const DevPtr out = device.malloc(n * 14 * sizeof(unsigned));
    launch(device, module, "byte_dot", LaunchConfig{Dim3{1, 1, 1}, Dim3{n, 1, 1}, 0}, Args(pa, pb, out));
    const std::vector<unsigned> got = download<unsigned>(device, out, n * 14);
    const auto ub = [](unsigned v, int i) { return static_cast<long long>((v >> (8 * i)) & 0xffU); };
    const auto sb = [](unsigned v, int i) { return static_cast<long long>(static_cast<std::int8_t>(v >> (8 * i))); };
    const auto uh = [](unsigned v, int i) { return static_cast<long long>((v >> (16 * i)) & 0xffffU); };
    const auto sh = [](unsigned v, int i) { return static_cast<long long>(static_cast<std::int16_t>(v >> (16 * i))); };
    const auto u32 = [](long long v) { return static_cast<unsigned>(static_cast<unsigned long long>(v)); };
    for (unsigned t = 0; t < n; ++t) {
        const unsigned x = a[t], y = b[n - 1 - t];
        const int ti = static_cast<int>(t);
        unsigned absdiff_u = 0, absdiff_s = 0, absdiff_sat = 0;
        long long sad_u = 0, mixed_sad = 100, dot_s = ti - 7, dot_u = ti, dot_mixed = ti;
        for (int i = 0; i < 4; ++i) {
            absdiff_u |= static_cast<unsigned>(std::llabs(ub(x, i) - ub(y, i))) << (8 * i);
            absdiff_s |= (static_cast<unsigned>(std::llabs(sb(x, i) - sb(y, i))) & 0xffU) << (8 * i);
            absdiff_sat |= static_cast<unsigned>(std::min(std::llabs(sb(x, i) - sb(y, i)), 127LL)) << (8 * i);
            sad_u += std::llabs(ub(x, i) - ub(y, i));
            mixed_sad += std::llabs(sb(x, i) - ub(y, i));
            dot_s += sb(x, i) * sb(y, i);
            dot_u += ub(x, i) * ub(y, i);
            dot_mixed += ub(x, i) * sb(y, i);
        }
        const long long dp2a_lo = -ti + sh(x, 0) * sb(y, 0) + sh(x, 1) * sb(y, 1);
        const long long dp2a_hi = ti + uh(x, 0) * ub(y, 2) + uh(x, 1) * ub(y, 3);
        const long long xs = static_cast<int>(x), ys = static_cast<int>(y);
        const long long sad_s = std::llabs(xs - ys) + 3;
        const unsigned long long usad = (x > y ? x - y : y - x) + static_cast<unsigned long long>(t);
        const long long wide = std::llabs(xs * (1LL << 20) - ys) - 5;
        const std::vector<unsigned> want = {
            absdiff_u, absdiff_s, u32(sad_u), u32(dot_s), u32(dot_u), u32(dp2a_lo), u32(dp2a_hi), u32(sad_s),
            static_cast<unsigned>(usad), u32(dot_mixed), absdiff_sat, u32(mixed_sad), u32(wide),
            static_cast<unsigned>(static_cast<unsigned long long>(wide) >> 32)};
        CAPTURE(t);
        CAPTURE(x);
        CAPTURE(y);
        CHECK(std::vector<unsigned>(got.begin() + t * 14, got.begin() + t * 14 + 14) == want);
    }
    // Worked by hand: lane 0 has x = 0 (all zero bytes), so __vabsdiffu4 returns y itself and __dp4a returns c.
    CHECK(got[0 * 14 + 0] == b[n - 1]);
    CHECK(got[0 * 14 + 3] == static_cast<unsigned>(-7));
}

// redux.cu (sm_80): 2 blocks of 64 threads; every reduction is over one 32-lane group (a warp at width 32, a half of
// the warp at width 64: redux.sync is defined per 32 threads, like the membermask). The even-lane and odd-lane
// reductions run under a membermask of those lanes only.
inline void check_redux(const Launcher& launch) {
    Device device;
    const Module module = load("redux");
    const unsigned threads = 128;
    std::vector<unsigned> in = byte_inputs(threads, 0x12345678U);
    in[70] = 0x80000000U; // INT_MIN and INT_MAX in the second block: signed and unsigned orders disagree
    in[71] = 0x7fffffffU;
    const DevPtr pin = upload(device, in), out = device.malloc(threads * 11 * sizeof(unsigned));
    launch(device, module, "redux_all", LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0}, Args(pin, out));
    const std::vector<unsigned> got = download<unsigned>(device, out, threads * 11);
    for (unsigned g = 0; g < threads / 32; ++g) {
        unsigned sum = 0, umin = ~0U, umax = 0, all = ~0U, any = 0, parity = 0, even_sum = 0;
        int smin = INT32_MAX, smax = INT32_MIN, odd_max = INT32_MIN;
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned v = in[g * 32 + l];
            const int s = static_cast<int>(v);
            sum += v;
            umin = std::min(umin, v);
            umax = std::max(umax, v);
            smin = std::min(smin, s);
            smax = std::max(smax, s);
            all &= v;
            any |= v;
            parity ^= v;
            if (l % 2 == 0) even_sum += v;
            else odd_max = std::max(odd_max, s);
        }
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned t = g * 32 + l;
            CAPTURE(t);
            const std::vector<unsigned> want = {sum, sum, umin, static_cast<unsigned>(smin), umax, static_cast<unsigned>(smax),
                                                all, any, parity, l % 2 == 0 ? even_sum : 0U,
                                                l % 2 == 1 ? static_cast<unsigned>(odd_max) : 0U};
            CHECK(std::vector<unsigned>(got.begin() + t * 11, got.begin() + t * 11 + 11) == want);
        }
    }
    CHECK(got[64 * 11 + 3] == 0x80000000U); // signed min of the group holding INT_MIN
}

// prefetch.cu: every prefetch form leaves every value as it was; out = 3 * in + frame[(5t) & 7] + tile[(t+1) % 64]
// with frame[k] = k * t and tile[k] = k. 100 elements over 2 blocks of 64 (the last 28 threads write nothing).
inline void check_prefetch(const Launcher& launch) {
    Device device;
    const Module module = load("prefetch");
    const int n = 100;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = 7 * i - 300;
    const DevPtr pin = upload(device, in), out = device.malloc(n * sizeof(int));
    launch(device, module, "prefetch_forms", LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0}, Args(pin, out, n));
    const std::vector<int> got = download<int>(device, out, n);
    for (int i = 0; i < n; ++i) {
        const int t = i % 64;
        CHECK(got[static_cast<std::size_t>(i)] == 3 * in[static_cast<std::size_t>(i)] + ((t * 5) & 7) * t + (t + 1) % 64);
    }
}

// ---- issue 20: device-side malloc/free and cp.async -----------------------------------------------------------

// malloc.cu, malloc_sum: 100 threads over 4 blocks of 32 (the last 28 threads return at once). Thread i allocates
// 4 + i % 5 ints, fills them with i * 10 + k, sums them and frees the buffer: out[i] is the sum. Every pointer is
// non-NULL, 16-byte aligned and distinct; the lanes of one warp allocate in ascending lane order, so their
// pointers ascend; afterwards the heap is empty again.
inline void check_malloc_sum(const Launcher& launch) {
    Device device;
    const Module module = load("malloc");
    const int n = 100;
    const DevPtr out = device.malloc(n * sizeof(int)), where = device.malloc(n * sizeof(std::uint64_t));
    launch(device, module, "malloc_sum", LaunchConfig{Dim3{4, 1, 1}, Dim3{32, 1, 1}, 0}, Args(out, where, n));
    const std::vector<int> got = download<int>(device, out, n);
    const std::vector<std::uint64_t> pointers = download<std::uint64_t>(device, where, n);
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        const int count = 4 + i % 5;
        CHECK(got[static_cast<std::size_t>(i)] == count * i * 10 + count * (count - 1) / 2);
        const std::uint64_t p = pointers[static_cast<std::size_t>(i)];
        CHECK(p != 0);
        CHECK(p % 16 == 0);
        if (i % 32 != 0) CHECK(p > pointers[static_cast<std::size_t>(i - 1)]);
    }
    std::vector<std::uint64_t> sorted = pointers;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    CHECK(device.heap_bytes() == 0);
    CHECK(device.heap_stats().mallocs == 100);
    CHECK(device.heap_stats().frees == 100);
    CHECK(device.heap_stats().failed_mallocs == 0);
}

// malloc_keep on 64 threads against a 1024-byte heap: 100-byte requests are charged 112 bytes (16-byte units), so
// exactly 9 succeed and 55 get NULL, as CUDA's malloc returns NULL when the heap is exhausted. free_kept frees them
// (free(NULL) does nothing), after which the heap serves 9 again; its size can no longer change.
inline void check_malloc_exhaustion(const Launcher& launch) {
    Device device;
    CHECK(device.heap_limit() == std::uint64_t{8} << 20); // cudaLimitMallocHeapSize's documented default
    device.set_heap_limit(1024);
    const Module module = load("malloc");
    const LaunchConfig config{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0};
    const DevPtr where = device.malloc(64 * sizeof(std::uint64_t));
    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        launch(device, module, "malloc_keep", config, Args(where, static_cast<unsigned long long>(100)));
        const std::vector<std::uint64_t> pointers = download<std::uint64_t>(device, where, 64);
        CHECK(std::count_if(pointers.begin(), pointers.end(), [](std::uint64_t p) { return p != 0; }) == 9);
        CHECK(device.heap_bytes() == 9 * 112);
        launch(device, module, "free_kept", config, Args(where));
        CHECK(device.heap_bytes() == 0);
    }
    CHECK(device.heap_stats().mallocs == 18);
    CHECK(device.heap_stats().failed_mallocs == 110);
    CHECK(device.heap_stats().frees == 18);
    CHECK(device.heap_stats().peak_bytes == 9 * 112);
    CHECK_THROWS_WITH_AS(device.set_heap_limit(4096),
                         doctest::Contains("cannot change after device-side malloc has been called"), Error);
}

// free of anything but a live device-heap allocation stops the launch with kind illegal_address, naming the
// kernel, thread and PTX line; free(NULL) does nothing; an overrun of a device-heap allocation faults as any
// out-of-bounds access does; the host cannot free device-heap memory.
inline void check_free_errors(const Launcher& launch) {
    const Module module = load("malloc");
    const LaunchConfig one{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0};
    {
        Device device;
        launch(device, module, "free_pointer", one, Args(DevPtr{0}));
        CHECK(device.heap_stats().frees == 0);
    }
    const auto free_error = [&](Device& device, DevPtr p) {
        return error_of([&] { launch(device, module, "free_pointer", one, Args(p)); });
    };
    {
        Device device;
        const DevPtr host = device.malloc(64);
        const KernelError e = free_error(device, host);
        CHECK(e.kind() == KernelErrorKind::illegal_address);
        const std::string what = e.what();
        CHECK(what.find("kernel 'free_pointer' at PC ") == 0);
        CHECK(what.find("thread (0,0,0)") != std::string::npos);
        CHECK(what.find("which is not a live allocation of the device heap: it is a host allocation (cudaMalloc)") !=
              std::string::npos);
        CHECK(e.site().line > 0);
        REQUIRE(e.site().address.has_value());
        CHECK(*e.site().address == host);
    }
    {
        Device device;
        const DevPtr where = device.malloc(sizeof(std::uint64_t));
        launch(device, module, "malloc_keep", one, Args(where, static_cast<unsigned long long>(32)));
        const std::uint64_t p = download<std::uint64_t>(device, where, 1)[0];
        REQUIRE(p != 0);
        CHECK_THROWS_WITH_AS(device.free(p), doctest::Contains("which device-side malloc allocated"), Error);
        CHECK(std::string(free_error(device, p + 16).what()).find("inside the 32-byte allocation at 0x") != std::string::npos);
        launch(device, module, "free_kept", one, Args(where));
        const KernelError twice = error_of([&] { launch(device, module, "free_kept", one, Args(where)); });
        CHECK(twice.kind() == KernelErrorKind::illegal_address);
        CHECK(std::string(twice.what()).find("not a live allocation (already freed, or never returned by malloc)") !=
              std::string::npos);
        CHECK(std::string(twice.what()).find("kernel 'free_kept'") != std::string::npos);
    }
    {
        Device device;
        const KernelError e = error_of([&] { launch(device, module, "malloc_overrun", one, Args()); });
        CHECK(e.kind() == KernelErrorKind::illegal_address);
        const std::string what = e.what();
        CHECK(what.find("store of 4 bytes") != std::string::npos);
        CHECK(what.find("16 bytes, ends 0 bytes before") != std::string::npos); // the word right after the allocation
    }
}

// cp_async.cu (sm_80) on 2 blocks of 128 threads, n = 256 (see the source for what each thread copies and waits
// for); expected values from the copies' definitions.
inline void check_cp_async(const Launcher& launch) {
    struct Int4 {
        int x, y, z, w;
        bool operator==(const Int4&) const = default;
    };
    Device device;
    const Module module = load("cp_async");
    const int n = 256, block = 128;
    std::vector<Int4> in(2 * n);
    for (int i = 0; i < 2 * n; ++i) in[static_cast<std::size_t>(i)] = Int4{i, -3 * i, i * i, 7 - i};
    std::vector<long long> pair_in(n);
    for (int i = 0; i < n; ++i) pair_in[static_cast<std::size_t>(i)] = 0x100000000LL * i + 5;
    const DevPtr pin = upload(device, in), ppair_in = upload(device, pair_in);
    const DevPtr out = device.malloc(2 * n * sizeof(Int4)), pair = device.malloc(n * sizeof(long long));
    launch(device, module, "cp_async_copy", LaunchConfig{Dim3{2, 1, 1}, Dim3{128, 1, 1}, 0},
           Args(pin, out, pair, ppair_in, n));
    const std::vector<Int4> got = download<Int4>(device, out, 2 * n);
    const std::vector<long long> got_pair = download<long long>(device, pair, n);
    const auto word = [&](int base, int t) { // the t-th int of in[base...]
        const Int4& v = in[static_cast<std::size_t>(base + t / 4)];
        const int parts[4] = {v.x, v.y, v.z, v.w};
        return parts[t % 4];
    };
    for (int b = 0; b < n / block; ++b) {
        for (int t = 0; t < block; ++t) {
            CAPTURE(b);
            CAPTURE(t);
            const int base = b * block;
            Int4 first = in[static_cast<std::size_t>(base + t)];
            first.x += word(base, t);
            CHECK(got[static_cast<std::size_t>(base + t)] == first);
            const int u = (t + 1) % block;
            const Int4 second = u % 4 == 0 ? in[static_cast<std::size_t>(n + base + u)] : Int4{0, 0, 0, 0};
            CHECK(got[static_cast<std::size_t>(n + base + t)] == second);
            const long long neighbour = (t ^ 1) % 2 == 1 ? 0 : pair_in[static_cast<std::size_t>(base + (t ^ 1))];
            CHECK(got_pair[static_cast<std::size_t>(base + t)] == neighbour);
        }
    }
}

} // namespace gpuarch::func::test::features
