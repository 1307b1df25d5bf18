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
    // The last argument: a cooperative launch (cudaLaunchCooperativeKernel), which grid.sync() needs.
    std::function<void(Device&, const Module&, std::string_view entry, const LaunchConfig&, const Args&, bool)> run;
    unsigned warp_width = 32;
    void operator()(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                    const Args& args) const {
        run(device, module, entry, config, args, false);
    }
    void cooperative(Device& device, const Module& module, std::string_view entry, const LaunchConfig& config,
                     const Args& args) const {
        run(device, module, entry, config, args, true);
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

} // namespace gpuarch::func::test::features

namespace gpuarch::func::test::features {

// grid_sync.cu, grid_ring: `rounds` relaxation steps over a ring split across 6 CTAs, with grid.sync() between
// steps, against the same steps on the CPU. Without a cooperative launch the kernel's grid.sync() traps (its
// workspace pointer is null), and the error says why.
inline void check_grid_sync(const Launcher& launch) {
    const Module module = load("grid_sync");
    const int n = 6 * 64 - 5, stride = 70, rounds = 5;
    std::vector<int> a(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = (i * 37) % 101 - 50;
    std::vector<int> want = a, next(a.size());
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < n; ++i)
            next[static_cast<std::size_t>(i)] = want[static_cast<std::size_t>(i)] +
                                                2 * want[static_cast<std::size_t>((i + stride) % n)] -
                                                want[static_cast<std::size_t>((i + n - stride) % n)];
        want.swap(next);
    }
    const LaunchConfig config{Dim3{6, 1, 1}, Dim3{64, 1, 1}, 0};
    {
        Device device;
        const DevPtr pa = upload(device, a), pb = device.malloc(a.size() * sizeof(int));
        launch.cooperative(device, module, "grid_ring", config, Args(pa, pb, n, stride, rounds));
        // After an odd number of rounds the result is in b.
        CHECK(download<int>(device, rounds % 2 == 1 ? pb : pa, a.size()) == want);
        CHECK(device.bytes_in_use() == 2 * a.size() * sizeof(int)); // the grid workspace was released
    }
    {
        Device device;
        const DevPtr pa = upload(device, a), pb = device.malloc(a.size() * sizeof(int));
        const KernelError e = error_of([&] { launch(device, module, "grid_ring", config, Args(pa, pb, n, stride, rounds)); });
        CHECK(e.kind() == KernelErrorKind::trap);
        CHECK(std::string(e.what()).find("only a cooperative launch provides") != std::string::npos);
    }
}

} // namespace gpuarch::func::test::features

namespace gpuarch::func::test::features {

// indirect_call.cu, indirect_calls: per-thread targets from a __device__ function-pointer table (every lane of a
// warp may call another function), a pointer chosen in code, and a table of another signature, against the CPU.
// A null table entry stops the launch at the calling thread, naming the address.
inline void check_indirect_calls(const Launcher& launch) {
    const Module module = load("indirect_call");
    const int n = 150;
    std::vector<int> select(n), a(n), b(n);
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        select[k] = (i * 7 + i / 5) % 3;
        a[k] = i * 3 - 100;
        b[k] = 41 - i;
        x[k] = 0.25f * static_cast<float>(i) - 3.0f;
    }
    const LaunchConfig config{Dim3{3, 1, 1}, Dim3{64, 1, 1}, 0};
    {
        Device device;
        const DevPtr ps = upload(device, select), pa = upload(device, a), pb = upload(device, b),
                     out = device.malloc(n * sizeof(int)), px = upload(device, x), fout = device.malloc(n * sizeof(float));
        launch(device, module, "indirect_calls", config, Args(ps, pa, pb, out, px, fout, n));
        const std::vector<int> got = download<int>(device, out, n);
        const std::vector<float> fgot = download<float>(device, fout, n);
        for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(i);
            const int table = select[k] == 0 ? a[k] + b[k] : select[k] == 1 ? a[k] - b[k] : a[k] * b[k] + 7;
            const int chosen = (i & 1) ? a[k] - 1 : a[k] + 1;
            CAPTURE(i);
            CHECK(got[k] == table + chosen);
            CHECK(fgot[k] == ((i & 1) ? x[k] * x[k] : 0.5f * x[k]));
        }
    }
    {
        Device device;
        select[70] = 3; // the table's null entry, in CTA 1
        const DevPtr ps = upload(device, select), pa = upload(device, a), pb = upload(device, b),
                     out = device.malloc(n * sizeof(int)), px = upload(device, x), fout = device.malloc(n * sizeof(float));
        const KernelError e =
            error_of([&] { launch(device, module, "indirect_calls", config, Args(ps, pa, pb, out, px, fout, n)); });
        CHECK(e.kind() == KernelErrorKind::illegal_instruction);
        const std::string what = e.what();
        CHECK(what.find("indirect call to 0x0, which is not the address of a function") != std::string::npos);
        CHECK(what.find("CTA (1,0,0), thread (6,0,0)") != std::string::npos);
        CHECK(what.find("indirect_call.ptx:") != std::string::npos);
    }
}

} // namespace gpuarch::func::test::features

namespace gpuarch::func::test::features {

// recursion.cu: a doubly recursive Fibonacci (lanes recursing to different depths), mutual recursion and a
// recursive sum over a per-thread local array, against the CPU; recursion without a base case stops at the
// depth limit with an error naming the function and the thread.
inline void check_recursion(const Launcher& launch) {
    const Module module = load("recursion");
    const int n = 90;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = (i * 7) % 19;
    const auto fib = [](int k) {
        int a = 0, b = 1;
        for (int j = 0; j < k; ++j) {
            const int t = a + b;
            a = b;
            b = t;
        }
        return a;
    };
    {
        Device device;
        const DevPtr pin = upload(device, in), fibs = device.malloc(n * 4), parity = device.malloc(n * 4),
                     sums = device.malloc(n * 4);
        launch(device, module, "recursion", LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0}, Args(pin, fibs, parity, sums, n));
        const std::vector<int> got_fib = download<int>(device, fibs, n), got_parity = download<int>(device, parity, n),
                               got_sum = download<int>(device, sums, n);
        for (int i = 0; i < n; ++i) {
            const auto u = static_cast<std::size_t>(i);
            const int k = in[u];
            int sum = 0;
            for (int j = 0; j <= k % 8; ++j) sum += k * j - j * j;
            CAPTURE(i);
            CHECK(got_fib[u] == fib(k));
            CHECK(got_parity[u] == (k % 2 == 0 ? 1 : 0));
            CHECK(got_sum[u] == sum);
        }
    }
    {
        Device device;
        std::vector<int> depth(32, 5);
        depth[9] = -1; // no base case: 2^32 nested calls
        const DevPtr pin = upload(device, depth), out = device.malloc(32 * 4);
        const KernelError e =
            error_of([&] { launch(device, module, "runaway", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, Args(pin, out)); });
        CHECK(e.kind() == KernelErrorKind::limit);
        const std::string what = e.what();
        CHECK(what.find("call stack overflow: calling '_Z10count_downi' would exceed 1024 nested calls") != std::string::npos);
        CHECK(what.find("thread (9,0,0)") != std::string::npos);
        CHECK(what.find("recursion.ptx:") != std::string::npos);
    }
}

} // namespace gpuarch::func::test::features
