#pragma once
// The kernels of kernels/features/ (one small CUDA kernel per PTX construct, PTX checked in beside the source),
// each with its inputs and exact expected output, run through a Launcher: the functional engine
// (features_test.cpp) or a whole timed GPU of each example machine (features_timing_test.cpp). The same checks
// pass on every launcher because functional results never depend on timing.
#include <doctest/doctest.h>

#include <gpuarch/func/host.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
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

template <class T> DevPtr upload(Device& device, const std::vector<T>& values) {
    const DevPtr p = device.malloc(values.size() * sizeof(T));
    device.copy_in(p, values.data(), values.size() * sizeof(T));
    return p;
}
template <class T> std::vector<T> download(Device& device, DevPtr p, std::size_t count) {
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
    CHECK(device.take_console() == "thread 0 of 2: features\n"
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
    const DevPtr a = upload(device, in), rs = device.malloc(n * 8), width = device.malloc(n * 4),
                 flags = device.malloc(n * 4);
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
        const std::vector<unsigned> want = {absdiff_u,
                                            absdiff_s,
                                            u32(sad_u),
                                            u32(dot_s),
                                            u32(dot_u),
                                            u32(dp2a_lo),
                                            u32(dp2a_hi),
                                            u32(sad_s),
                                            static_cast<unsigned>(usad),
                                            u32(dot_mixed),
                                            absdiff_sat,
                                            u32(mixed_sad),
                                            u32(wide),
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
            const std::vector<unsigned> want = {sum,
                                                sum,
                                                umin,
                                                static_cast<unsigned>(smin),
                                                umax,
                                                static_cast<unsigned>(smax),
                                                all,
                                                any,
                                                parity,
                                                l % 2 == 0 ? even_sum : 0U,
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
        CHECK(got[static_cast<std::size_t>(i)] ==
              3 * in[static_cast<std::size_t>(i)] + ((t * 5) & 7) * t + (t + 1) % 64);
    }
}

// ---- texture.cu: texture and surface objects --------------------------------------------------------------------
// References written from the CUDA Programming Guide's "Texture Fetching" appendix, independently of
// func/texture.hpp: point sampling reads T[floor(x)]; linear filtering mixes T[i], T[i + 1] at xB = x - 0.5 with
// alpha = frac(xB) rounded to 8 fractional bits; address modes act on texel indices.
namespace tex_ref {

inline int address(int i, int n, AddressMode m, bool& inside) {
    switch (m) {
    case AddressMode::wrap: return ((i % n) + n) % n;
    case AddressMode::mirror: {
        const int k = ((i % (2 * n)) + 2 * n) % (2 * n);
        return k < n ? k : 2 * n - 1 - k;
    }
    case AddressMode::border: inside = inside && i >= 0 && i < n; return i;
    case AddressMode::clamp: break;
    }
    return std::clamp(i, 0, n - 1);
}
inline float alpha(float xb) { return std::nearbyint((xb - std::floor(xb)) * 256.0F) / 256.0F; }

// One channel of a 1D/2D/3D float texture `t` (w x h x d, channel-interleaved with `channels`) at (x, y, z).
inline float sample(const std::vector<float>& t, unsigned channels, unsigned channel, int w, int h, int d,
                    unsigned dims, const TextureDesc& desc, float x, float y, float z) {
    const std::array<int, 3> n{w, h, d};
    std::array<float, 3> c{x, y, z};
    for (unsigned k = 0; k < dims; ++k)
        if (desc.normalized_coords) c[k] *= static_cast<float>(n[k]);
    auto texel = [&](std::array<int, 3> at) {
        bool inside = true;
        for (unsigned k = 0; k < dims; ++k) {
            // Wrap and mirror "are only supported for normalized texture coordinates"; otherwise they clamp.
            AddressMode m = desc.address[k];
            if (!desc.normalized_coords && (m == AddressMode::wrap || m == AddressMode::mirror)) m = AddressMode::clamp;
            at[k] = address(at[k], n[k], m, inside);
        }
        if (!inside) return desc.border[channel];
        return t[((static_cast<std::size_t>(at[2]) * h + at[1]) * w + at[0]) * channels + channel];
    };
    if (desc.filter == FilterMode::point) {
        std::array<int, 3> at{0, 0, 0};
        for (unsigned k = 0; k < dims; ++k) at[k] = static_cast<int>(std::floor(c[k]));
        return texel(at);
    }
    std::array<int, 3> base{0, 0, 0};
    std::array<float, 3> a{0, 0, 0};
    for (unsigned k = 0; k < dims; ++k) {
        base[k] = static_cast<int>(std::floor(c[k] - 0.5F));
        a[k] = alpha(c[k] - 0.5F);
    }
    float sum = 0;
    for (unsigned corner = 0; corner < (1U << dims); ++corner) {
        std::array<int, 3> at = base;
        float weight = 1;
        for (unsigned k = 0; k < dims; ++k) {
            const bool hi = ((corner >> k) & 1U) != 0;
            at[k] += hi ? 1 : 0;
            weight *= hi ? a[k] : 1 - a[k];
        }
        sum += weight * texel(at);
    }
    return sum;
}

} // namespace tex_ref

inline std::uint64_t make_array(Device& device, ChannelFormat format, unsigned dims, std::uint32_t w, std::uint32_t h,
                                std::uint32_t d, std::uint32_t layers, const void* data, bool surface = false) {
    CudaArray a;
    a.format = format;
    a.dims = dims;
    a.width = w;
    a.height = h;
    a.depth = d;
    a.layers = layers;
    a.surface_load_store = surface;
    const std::uint64_t handle = device.create_array(a);
    const CudaArray* made = device.textures().array(handle);
    device.copy_in(made->data, data, made->bytes());
    return handle;
}
inline std::uint64_t texture_over(Device& device, std::uint64_t array, const TextureDesc& desc) {
    TextureObject t;
    t.resource.kind = ResourceKind::array;
    t.resource.array = array;
    t.desc = desc;
    return device.textures().create_texture(t);
}
inline TextureDesc tex_desc(FilterMode filter, AddressMode mode, bool normalized,
                            ReadMode read = ReadMode::element_type) {
    TextureDesc d;
    d.filter = filter;
    d.address = {mode, mode, mode};
    d.normalized_coords = normalized;
    d.read = read;
    d.border = {-1.5F, -2.5F, -3.5F, -4.5F};
    return d;
}
inline ChannelFormat channels(unsigned bits, unsigned n, ChannelKind kind) {
    ChannelFormat f;
    for (unsigned c = 0; c < n; ++c) f.bits[c] = static_cast<std::uint8_t>(bits);
    f.kind = kind;
    return f;
}
inline float as_float(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// texture.cu, 2D entries: a 6 x 5 float4 array under every filter / address-mode / coordinate combination at points
// inside, on texel edges and outside; int4 and 16-bit uint2 arrays read as elements; tex.level reads level 0.
inline void check_textures_2d(const Launcher& launch) {
    Device device;
    const Module module = load("texture");
    const int w = 6, h = 5, n = 64;
    std::vector<float> rgba(static_cast<std::size_t>(w * h * 4));
    for (int i = 0; i < w * h * 4; ++i)
        rgba[static_cast<std::size_t>(i)] = static_cast<float>((i * 29) % 53) * 0.5F - 7.0F;
    const std::uint64_t array = make_array(device, channels(32, 4, ChannelKind::floating), 2, w, h, 1, 0, rgba.data());
    std::vector<float> at(2 * n);
    for (int i = 0; i < n; ++i) { // unnormalised: x in [-3, 9), y in [-2, 7.5); the normalised run divides by w, h
        at[static_cast<std::size_t>(2 * i)] = -3.0F + 0.1875F * static_cast<float>(i);
        at[static_cast<std::size_t>(2 * i + 1)] = 7.5F - 0.15F * static_cast<float>(i);
    }
    const DevPtr p_out = device.malloc(n * 16);
    for (const FilterMode filter : {FilterMode::point, FilterMode::linear})
        for (const AddressMode mode : {AddressMode::clamp, AddressMode::wrap, AddressMode::mirror, AddressMode::border})
            for (const bool normalized : {false, true}) {
                CAPTURE(static_cast<int>(filter));
                CAPTURE(static_cast<int>(mode));
                CAPTURE(normalized);
                const TextureDesc desc = tex_desc(filter, mode, normalized);
                const std::uint64_t t = texture_over(device, array, desc);
                std::vector<float> coords = at;
                if (normalized)
                    for (int i = 0; i < n; ++i) {
                        coords[static_cast<std::size_t>(2 * i)] /= static_cast<float>(w);
                        coords[static_cast<std::size_t>(2 * i + 1)] /= static_cast<float>(h);
                    }
                const DevPtr p_at = upload(device, coords);
                launch(device, module, "tex2d_float4", LaunchConfig{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0},
                       Args(static_cast<unsigned long long>(t), p_at, p_out));
                const std::vector<float> got = download<float>(device, p_out, 4 * n);
                for (int i = 0; i < n; ++i)
                    for (unsigned c = 0; c < 4; ++c) {
                        const float want =
                            tex_ref::sample(rgba, 4, c, w, h, 1, 2, desc, coords[static_cast<std::size_t>(2 * i)],
                                            coords[static_cast<std::size_t>(2 * i + 1)], 0);
                        CAPTURE(i);
                        CAPTURE(c);
                        CHECK(got[static_cast<std::size_t>(4 * i + c)] == want);
                    }
            }
    // tex.level on a texture without mipmaps reads level 0 whatever the level of detail.
    {
        const std::uint64_t one = make_array(device, channels(32, 1, ChannelKind::floating), 2, w, h, 1, 0,
                                             std::vector<float>(rgba.begin(), rgba.begin() + w * h).data());
        const TextureDesc desc = tex_desc(FilterMode::linear, AddressMode::clamp, false);
        const std::uint64_t t = texture_over(device, one, desc);
        const DevPtr p_at = upload(device, at);
        for (const float lod : {0.0F, 2.5F}) {
            launch(device, module, "tex2d_lod", LaunchConfig{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0},
                   Args(static_cast<unsigned long long>(t), p_at, p_out, lod));
            const std::vector<float> got = download<float>(device, p_out, n);
            launch(device, module, "tex2d_float", LaunchConfig{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0},
                   Args(static_cast<unsigned long long>(t), p_at, p_out));
            CHECK(download<float>(device, p_out, n) == got);
        }
    }
    // Integer texels read as elements: int4 (.s32 results, signed 8-bit channels sign-extended) and uint2 from 16-bit
    // unsigned channels; missing channels read 0 and the missing fourth 1.
    {
        std::vector<std::int8_t> s8(static_cast<std::size_t>(w * h * 4));
        for (std::size_t i = 0; i < s8.size(); ++i)
            s8[i] = static_cast<std::int8_t>(static_cast<int>(i * 37 % 256) - 128);
        const std::uint64_t a8 = make_array(device, channels(8, 4, ChannelKind::signed_int), 2, w, h, 1, 0, s8.data());
        std::vector<std::uint16_t> u16(static_cast<std::size_t>(w * h * 2));
        for (std::size_t i = 0; i < u16.size(); ++i) u16[i] = static_cast<std::uint16_t>(i * 4099);
        const std::uint64_t a16 =
            make_array(device, channels(16, 2, ChannelKind::unsigned_int), 2, w, h, 1, 0, u16.data());
        const TextureDesc desc = tex_desc(FilterMode::point, AddressMode::clamp, false);
        const std::uint64_t t8 = texture_over(device, a8, desc), t16 = texture_over(device, a16, desc);
        const DevPtr p_at = upload(device, at);
        launch(device, module, "tex2d_int", LaunchConfig{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0},
               Args(static_cast<unsigned long long>(t8), p_at, p_out));
        const std::vector<int> got8 = download<int>(device, p_out, 4 * n);
        launch(device, module, "tex2d_uint", LaunchConfig{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0},
               Args(static_cast<unsigned long long>(t16), p_at, p_out));
        const std::vector<unsigned> got16 = download<unsigned>(device, p_out, 2 * n);
        for (int i = 0; i < n; ++i) {
            const int x = std::clamp(static_cast<int>(std::floor(at[static_cast<std::size_t>(2 * i)])), 0, w - 1);
            const int y = std::clamp(static_cast<int>(std::floor(at[static_cast<std::size_t>(2 * i + 1)])), 0, h - 1);
            const std::size_t texel = static_cast<std::size_t>(y * w + x);
            CAPTURE(i);
            for (std::size_t c = 0; c < 4; ++c) CHECK(got8[static_cast<std::size_t>(4 * i) + c] == s8[texel * 4 + c]);
            for (std::size_t c = 0; c < 2; ++c) CHECK(got16[static_cast<std::size_t>(2 * i) + c] == u16[texel * 2 + c]);
        }
    }
}

// texture.cu, 1D, 3D and layered entries: tex1D with linear filtering, tex1Dfetch over linear memory (float and int,
// zero outside), trilinear tex3D, tex2DLayered / tex1DLayered (layer clamped to the array's layers).
inline void check_textures_other(const Launcher& launch) {
    Device device;
    const Module module = load("texture");
    const int n = 64;
    const LaunchConfig two_warps{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0};
    {
        const int w = 9;
        std::vector<float> line(w);
        for (int i = 0; i < w; ++i) line[static_cast<std::size_t>(i)] = static_cast<float>(i * i) * 0.75F;
        const std::uint64_t a = make_array(device, channels(32, 1, ChannelKind::floating), 1, w, 1, 1, 0, line.data());
        const TextureDesc desc = tex_desc(FilterMode::linear, AddressMode::mirror, true);
        const std::uint64_t t = texture_over(device, a, desc);
        std::vector<float> at(n);
        for (int i = 0; i < n; ++i) at[static_cast<std::size_t>(i)] = -1.1F + 0.05F * static_cast<float>(i);
        const DevPtr p_at = upload(device, at), p_out = device.malloc(n * 4);
        launch(device, module, "tex1d_float", two_warps, Args(static_cast<unsigned long long>(t), p_at, p_out));
        const std::vector<float> got = download<float>(device, p_out, n);
        for (int i = 0; i < n; ++i)
            CHECK(got[static_cast<std::size_t>(i)] ==
                  tex_ref::sample(line, 1, 0, w, 1, 1, 1, desc, at[static_cast<std::size_t>(i)], 0, 0));
    }
    {
        const int count = 50;
        std::vector<float> values(count);
        std::vector<int> ints(count);
        for (int i = 0; i < count; ++i) {
            values[static_cast<std::size_t>(i)] = 1.0F / static_cast<float>(i + 1);
            ints[static_cast<std::size_t>(i)] = -i * 1001;
        }
        const DevPtr pv = upload(device, values), pi = upload(device, ints);
        TextureObject tf, ti;
        tf.resource.kind = ti.resource.kind = ResourceKind::linear;
        tf.resource.base = pv;
        tf.resource.bytes = count * 4;
        tf.resource.format = channels(32, 1, ChannelKind::floating);
        ti.resource.base = pi;
        ti.resource.bytes = count * 4;
        ti.resource.format = channels(32, 1, ChannelKind::signed_int);
        const std::uint64_t hf = device.textures().create_texture(tf), hi = device.textures().create_texture(ti);
        std::vector<int> at(n);
        for (int i = 0; i < n; ++i) at[static_cast<std::size_t>(i)] = i - 7;
        const DevPtr p_at = upload(device, at), p_out = device.malloc(n * 4), p_int = device.malloc(n * 4);
        launch(device, module, "tex1d_fetch", two_warps,
               Args(static_cast<unsigned long long>(hf), p_at, p_out, static_cast<unsigned long long>(hi), p_int));
        const std::vector<float> got = download<float>(device, p_out, n);
        const std::vector<int> got_int = download<int>(device, p_int, n);
        for (int i = 0; i < n; ++i) {
            const int k = i - 7;
            const bool inside = k >= 0 && k < count;
            CHECK(got[static_cast<std::size_t>(i)] == (inside ? values[static_cast<std::size_t>(k)] : 0.0F));
            CHECK(got_int[static_cast<std::size_t>(i)] == (inside ? ints[static_cast<std::size_t>(k)] : 0));
        }
    }
    {
        const int w = 4, h = 3, d = 5;
        std::vector<float> vol(static_cast<std::size_t>(w * h * d));
        for (std::size_t i = 0; i < vol.size(); ++i) vol[i] = static_cast<float>((i * 13) % 17) - 4.0F;
        const std::uint64_t a = make_array(device, channels(32, 1, ChannelKind::floating), 3, w, h, d, 0, vol.data());
        const TextureDesc desc = tex_desc(FilterMode::linear, AddressMode::border, false);
        const std::uint64_t t = texture_over(device, a, desc);
        std::vector<float> at(4 * n);
        for (int i = 0; i < n; ++i) {
            at[static_cast<std::size_t>(4 * i)] = -0.7F + 0.09F * static_cast<float>(i);
            at[static_cast<std::size_t>(4 * i + 1)] = 3.3F - 0.06F * static_cast<float>(i);
            at[static_cast<std::size_t>(4 * i + 2)] = 0.2F + 0.083F * static_cast<float>(i);
        }
        const DevPtr p_at = upload(device, at), p_out = device.malloc(n * 4);
        launch(device, module, "tex3d_float", two_warps, Args(static_cast<unsigned long long>(t), p_at, p_out));
        const std::vector<float> got = download<float>(device, p_out, n);
        for (int i = 0; i < n; ++i)
            CHECK(got[static_cast<std::size_t>(i)] ==
                  tex_ref::sample(vol, 1, 0, w, h, d, 3, desc, at[static_cast<std::size_t>(4 * i)],
                                  at[static_cast<std::size_t>(4 * i + 1)], at[static_cast<std::size_t>(4 * i + 2)]));
    }
    {
        const int w = 5, h = 4, layers = 3;
        std::vector<float> l2(static_cast<std::size_t>(w * h * layers)), l1(static_cast<std::size_t>(w * layers));
        for (std::size_t i = 0; i < l2.size(); ++i) l2[i] = static_cast<float>(i) * 1.5F;
        for (std::size_t i = 0; i < l1.size(); ++i) l1[i] = 100.0F - static_cast<float>(i);
        const std::uint64_t a2 =
            make_array(device, channels(32, 1, ChannelKind::floating), 2, w, h, 1, layers, l2.data());
        const std::uint64_t a1 =
            make_array(device, channels(32, 1, ChannelKind::floating), 1, w, 1, 1, layers, l1.data());
        const TextureDesc desc = tex_desc(FilterMode::point, AddressMode::clamp, false);
        const std::uint64_t t2 = texture_over(device, a2, desc), t1 = texture_over(device, a1, desc);
        std::vector<float> at(4 * n);
        for (int i = 0; i < n; ++i) {
            at[static_cast<std::size_t>(4 * i)] = static_cast<float>(i % 7) - 0.5F;
            at[static_cast<std::size_t>(4 * i + 1)] = static_cast<float>(i % 5);
            at[static_cast<std::size_t>(4 * i + 3)] = static_cast<float>(i % 6 - 1); // layers -1 .. 4: clamped
        }
        const DevPtr p_at = upload(device, at), p_out = device.malloc(2 * n * 4);
        launch(device, module, "tex_layered", two_warps,
               Args(static_cast<unsigned long long>(t2), static_cast<unsigned long long>(t1), p_at, p_out));
        const std::vector<float> got = download<float>(device, p_out, 2 * n);
        for (int i = 0; i < n; ++i) {
            const int layer = std::clamp(i % 6 - 1, 0, layers - 1);
            const int x = std::clamp(static_cast<int>(std::floor(at[static_cast<std::size_t>(4 * i)])), 0, w - 1);
            const int y = std::clamp(i % 5, 0, h - 1);
            CAPTURE(i);
            CHECK(got[static_cast<std::size_t>(2 * i)] == l2[static_cast<std::size_t>((layer * h + y) * w + x)]);
            CHECK(got[static_cast<std::size_t>(2 * i + 1)] == l1[static_cast<std::size_t>(layer * w + x)]);
        }
    }
}

// texture.cu, tex_cube: a 4 x 4 cube map and a layered cube map of 2 cubes, one float per texel (each value names
// its cube, face, row and column), read in directions that select every face, on ties, on edges and corners, and
// at the zero vector, with point and linear filtering; the reference is the Programming Guide's "Cubemap Fetch"
// table, written here as data: for the face of axis a and sign, m = |c[a]|, s = s_sign * c[s_axis], t likewise,
// and the face is read at ((s/m + 1)/2, (t/m + 1)/2), normalised, clamped at its edges.
namespace tex_ref {
struct CubeRow {
    int face, s_axis;
    float s_sign;
    int t_axis;
    float t_sign;
};
// Indexed by 2 * axis + (negative ? 1 : 0).
inline constexpr std::array<CubeRow, 6> cubemap_fetch{
    {{0, 2, -1, 1, -1}, {1, 2, +1, 1, -1}, {2, 0, +1, 2, +1}, {3, 0, +1, 2, -1}, {4, 0, +1, 1, -1}, {5, 0, -1, 1, -1}}};
// The face and its (u, v); gpuarch breaks ties towards x, then y (the guide's inequalities are strict), and reads
// a zero direction at the centre of face 0.
inline std::tuple<int, float, float> cube_lookup(std::array<float, 3> c) {
    int axis = 0;
    for (int a = 1; a < 3; ++a)
        if (std::fabs(c[static_cast<std::size_t>(a)]) > std::fabs(c[static_cast<std::size_t>(axis)])) axis = a;
    const float m = std::fabs(c[static_cast<std::size_t>(axis)]);
    if (m == 0.0F) return {0, 0.5F, 0.5F};
    const CubeRow& r =
        cubemap_fetch[static_cast<std::size_t>(2 * axis + (c[static_cast<std::size_t>(axis)] < 0.0F ? 1 : 0))];
    const float s = r.s_sign * c[static_cast<std::size_t>(r.s_axis)],
                t = r.t_sign * c[static_cast<std::size_t>(r.t_axis)];
    return {r.face, (s / m + 1.0F) / 2.0F, (t / m + 1.0F) / 2.0F};
}
} // namespace tex_ref

inline std::uint64_t make_cube_array(Device& device, int width, int cubes, bool layered,
                                     const std::vector<float>& texels) {
    CudaArray a;
    a.format = channels(32, 1, ChannelKind::floating);
    a.dims = 2;
    a.width = a.height = static_cast<std::uint32_t>(width);
    a.layers = static_cast<std::uint32_t>(6 * cubes);
    a.cube = layered ? CubeShape::cubemap_layered : CubeShape::cubemap;
    const std::uint64_t handle = device.create_array(a);
    const CudaArray* made = device.textures().array(handle);
    REQUIRE(made->bytes() == texels.size() * sizeof(float));
    device.copy_in(made->data, texels.data(), made->bytes());
    return handle;
}

inline void check_textures_cube(const Launcher& launch) {
    Device device;
    const Module module = load("texture");
    const int n = 64, w = 4, cubes = 2;
    const LaunchConfig two_warps{Dim3{2, 1, 1}, Dim3{32, 1, 1}, 0};
    std::vector<float> texels(static_cast<std::size_t>(6 * cubes * w * w));
    for (std::size_t i = 0; i < texels.size(); ++i)
        texels[i] = static_cast<float>(i) + 0.25F; // 96 x cube + 16 x face + 4 y + x
    const std::vector<float> one_cube(texels.begin(), texels.begin() + 6 * w * w);
    const std::uint64_t single = make_cube_array(device, w, 1, false, one_cube);
    const std::uint64_t layered = make_cube_array(device, w, cubes, true, texels);
    // Components from a small set with repeats (ties), zeros, +-1 (edges when another component is +-1) and
    // fractions; thread 0 reads the zero vector; w (the cube index) runs -1 .. 2 and is clamped.
    constexpr std::array<float, 8> values{-2.0F, -1.25F, -1.0F, -0.3F, 0.0F, 0.4F, 1.0F, 1.7F};
    std::vector<float> at(4 * n);
    for (int i = 1; i < n; ++i) {
        at[static_cast<std::size_t>(4 * i)] = values[static_cast<std::size_t>(i % 8)];
        at[static_cast<std::size_t>(4 * i + 1)] = values[static_cast<std::size_t>((3 * i + 1) % 8)];
        at[static_cast<std::size_t>(4 * i + 2)] = values[static_cast<std::size_t>((5 * i + 2 + i / 8) % 8)];
        at[static_cast<std::size_t>(4 * i + 3)] = static_cast<float>(i % 4 - 1);
    }
    std::set<int> faces_seen;
    for (const FilterMode filter : {FilterMode::point, FilterMode::linear}) {
        CAPTURE(static_cast<int>(filter));
        // Address mode wrap and unnormalised coordinates: ignored for cube maps, which clamp at the face edges.
        const TextureDesc desc = tex_desc(filter, AddressMode::wrap, false);
        const std::uint64_t t1 = texture_over(device, single, desc), t2 = texture_over(device, layered, desc);
        const DevPtr p_at = upload(device, at), p_out = device.malloc(2 * n * 4);
        launch(device, module, "tex_cube", two_warps,
               Args(static_cast<unsigned long long>(t1), static_cast<unsigned long long>(t2), p_at, p_out));
        const std::vector<float> got = download<float>(device, p_out, 2 * n);
        const TextureDesc on_face = tex_desc(filter, AddressMode::clamp, true);
        for (int i = 0; i < n; ++i) {
            const auto k = static_cast<std::size_t>(4 * i);
            const auto [face, u, v] = tex_ref::cube_lookup({at[k], at[k + 1], at[k + 2]});
            faces_seen.insert(face);
            const int cube = std::clamp(static_cast<int>(at[k + 3]), 0, cubes - 1);
            const auto face_texels = [&](int c) {
                const auto first = texels.begin() + (6 * c + face) * w * w;
                return std::vector<float>(first, first + w * w);
            };
            CAPTURE(i);
            CAPTURE(face);
            CHECK(got[static_cast<std::size_t>(2 * i)] ==
                  tex_ref::sample(face_texels(0), 1, 0, w, w, 1, 2, on_face, u, v, 0));
            CHECK(got[static_cast<std::size_t>(2 * i + 1)] ==
                  tex_ref::sample(face_texels(cube), 1, 0, w, w, 1, 2, on_face, u, v, 0));
        }
    }
    CHECK(faces_seen.size() == 6);
    // A cube map read as the other kind of cube map stops the launch with both shapes named.
    const std::uint64_t t1 = texture_over(device, single, tex_desc(FilterMode::point, AddressMode::clamp, false));
    const DevPtr p_at = upload(device, at), p_out = device.malloc(2 * n * 4);
    const KernelError e = error_of([&] {
        launch(device, module, "tex_cube", two_warps,
               Args(static_cast<unsigned long long>(t1), static_cast<unsigned long long>(t1), p_at, p_out));
    });
    CHECK(e.kind() == KernelErrorKind::illegal_instruction);
    CHECK(std::string(e.what()).find(
              "tex.acube reads a layered cube-map texture, but the object's resource is cube-map") !=
          std::string::npos);
    // Cube maps have square faces and six layers per cube, and no surfaces.
    CudaArray bad;
    bad.format = channels(32, 1, ChannelKind::floating);
    bad.dims = 2;
    bad.width = 4;
    bad.height = 5;
    bad.layers = 6;
    bad.cube = CubeShape::cubemap;
    CHECK_THROWS_WITH_AS(device.create_array(bad), doctest::Contains("a cube map has square faces and 6 layers"),
                         Error);
    bad.height = 4;
    bad.layers = 12;
    CHECK_THROWS_WITH_AS(device.create_array(bad), doctest::Contains("a cube map has square faces and 6 layers"),
                         Error);
    bad.layers = 6;
    bad.surface_load_store = true;
    const std::uint64_t surface_cube = device.create_array(bad);
    CHECK_THROWS_WITH_AS(device.textures().create_surface(surface_cube),
                         doctest::Contains("cube-map surfaces are not supported"), Error);
}

// texture.cu, surface entries: surf2Dread/surf2Dwrite of floats with trap, clamp and zero out-of-range modes, and
// uchar4 (.v4.b8), short2 (.v2.b16, 1D), 8-byte, float4 (.v4.b32) and 3D elements.
inline void check_surfaces(const Launcher& launch) {
    Device device;
    const Module module = load("texture");
    {
        const int w = 8, h = 3;
        std::vector<float> in(static_cast<std::size_t>(w * h));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) - 2.25F;
        const std::uint64_t a_in =
            make_array(device, channels(32, 1, ChannelKind::floating), 2, w, h, 1, 0, in.data(), true);
        const std::uint64_t a_out = make_array(device, channels(32, 1, ChannelKind::floating), 2, w, h, 1, 0,
                                               std::vector<float>(in.size(), 0.0F).data(), true);
        const std::uint64_t s_in = device.textures().create_surface(a_in),
                            s_out = device.textures().create_surface(a_out);
        const DevPtr edge = device.malloc(2 * w * h * 4);
        launch(device, module, "surf2d_float", LaunchConfig{Dim3{h, 1, 1}, Dim3{w, 1, 1}, 0},
               Args(static_cast<unsigned long long>(s_in), static_cast<unsigned long long>(s_out), edge, w));
        const std::vector<float> out = download<float>(device, device.textures().array(a_out)->data, in.size());
        const std::vector<float> got_edge = download<float>(device, edge, 2 * in.size());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const std::size_t i = static_cast<std::size_t>(y * w + x);
                CHECK(out[i] == 2.0F * in[i]);
                const int right = std::min(x + 1, w - 1);
                CHECK(got_edge[2 * i] == in[static_cast<std::size_t>(y * w + right)]);
                CHECK(got_edge[2 * i + 1] == (x + 1 < w ? in[i + 1] : 0.0F));
            }
    }
    {
        const int w = 32;
        std::vector<std::uint8_t> b8(static_cast<std::size_t>(w * 4 * 2), 0);
        for (int i = 0; i < w * 4; ++i) b8[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(i * 7);
        std::vector<std::int16_t> b16(static_cast<std::size_t>(w * 2));
        for (std::size_t i = 0; i < b16.size(); ++i)
            b16[i] = static_cast<std::int16_t>(static_cast<int>(i) * 300 - 9000);
        std::vector<std::uint64_t> b64(w);
        for (std::size_t i = 0; i < b64.size(); ++i) b64[i] = 0x0123456789abcdefULL * (i + 1);
        std::vector<float> b128(static_cast<std::size_t>(w * 4));
        for (std::size_t i = 0; i < b128.size(); ++i) b128[i] = static_cast<float>(i) * 0.5F;
        std::vector<int> vol(static_cast<std::size_t>(w * 2 * 3));
        for (std::size_t i = 0; i < vol.size(); ++i) vol[i] = static_cast<int>(i) + 11;
        const auto surface = [&](ChannelFormat f, unsigned dims, std::uint32_t hh, std::uint32_t dd, const void* data) {
            const std::uint64_t a = make_array(device, f, dims, w, hh, dd, 0, data, true);
            return std::pair{a, device.textures().create_surface(a)};
        };
        const auto s8 = surface(channels(8, 4, ChannelKind::unsigned_int), 2, 2, 1, b8.data());
        const auto s16 = surface(channels(16, 2, ChannelKind::signed_int), 1, 1, 1, b16.data());
        const auto s64 = surface(channels(32, 2, ChannelKind::unsigned_int), 2, 1, 1, b64.data());
        const auto s128 = surface(channels(32, 4, ChannelKind::floating), 2, 1, 1, b128.data());
        const auto s3d = surface(channels(32, 1, ChannelKind::signed_int), 3, 2, 3, vol.data());
        launch(device, module, "surf_elements", LaunchConfig{Dim3{1, 1, 1}, Dim3{w, 1, 1}, 0},
               Args(static_cast<unsigned long long>(s8.second), static_cast<unsigned long long>(s16.second),
                    static_cast<unsigned long long>(s64.second), static_cast<unsigned long long>(s128.second),
                    static_cast<unsigned long long>(s3d.second)));
        const auto bytes_of = [&](std::uint64_t a, std::size_t n) {
            return download<std::uint8_t>(device, device.textures().array(a)->data, n);
        };
        const std::vector<std::uint8_t> o8 = bytes_of(s8.first, b8.size());
        std::vector<std::int16_t> o16(b16.size());
        std::memcpy(o16.data(), bytes_of(s16.first, b16.size() * 2).data(), b16.size() * 2);
        std::vector<std::uint64_t> o64(b64.size());
        std::memcpy(o64.data(), bytes_of(s64.first, b64.size() * 8).data(), b64.size() * 8);
        std::vector<float> o128(b128.size());
        std::memcpy(o128.data(), bytes_of(s128.first, b128.size() * 4).data(), b128.size() * 4);
        std::vector<int> o3(vol.size());
        std::memcpy(o3.data(), bytes_of(s3d.first, vol.size() * 4).data(), vol.size() * 4);
        for (std::size_t x = 0; x < static_cast<std::size_t>(w); ++x) {
            CAPTURE(x);
            for (std::size_t c = 0; c < 4; ++c) {
                CHECK(o8[x * 4 + c] == b8[x * 4 + c]); // row 0 unchanged
                CHECK(o8[static_cast<std::size_t>(w) * 4 + x * 4 + c] == b8[x * 4 + 3 - c]); // row 1: reversed
                CHECK(o128[x * 4 + c] == b128[x * 4 + 3 - c]);
            }
            CHECK(o16[2 * x] == static_cast<std::int16_t>(b16[2 * x + 1] + 1));
            CHECK(o16[2 * x + 1] == static_cast<std::int16_t>(b16[2 * x] - 1));
            CHECK(o64[x] == (b64[x] ^ 0xffff0000ffff0000ULL));
            CHECK(o3[x] == 3 * vol[(2 * 2 + 1) * static_cast<std::size_t>(w) + x]); // (x, 1, 2) tripled into (x, 0, 0)
        }
    }
}

// Fetches through objects that are not there: each stops the launch naming the object and the kernel.
inline void check_texture_errors(const Launcher& launch) {
    const Module module = load("texture");
    const LaunchConfig one_warp{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0};
    Device device;
    const std::vector<float> texels(16, 1.0F);
    const std::uint64_t a =
        make_array(device, channels(32, 1, ChannelKind::floating), 2, 4, 4, 1, 0, texels.data(), true);
    const std::uint64_t t = texture_over(device, a, tex_desc(FilterMode::point, AddressMode::clamp, false));
    const std::uint64_t s = device.textures().create_surface(a);
    const DevPtr out = device.malloc(32 * 4);
    launch(device, module, "tex_through", one_warp, Args(static_cast<unsigned long long>(t), out));
    CHECK(download<float>(device, out, 32) == std::vector<float>(32, 1.0F));
    device.textures().destroy_texture(t);
    const auto message = [&](const char* entry, std::uint64_t handle, int x = 0) {
        const KernelError e = error_of([&] {
            if (std::string_view(entry) == "tex_through")
                launch(device, module, entry, one_warp, Args(static_cast<unsigned long long>(handle), out));
            else launch(device, module, entry, one_warp, Args(static_cast<unsigned long long>(handle), x));
        });
        CHECK(e.kind() == KernelErrorKind::illegal_address);
        CHECK(e.site().line > 0);
        CHECK(std::string(e.what()).find(std::string("kernel '") + entry + "'") != std::string::npos);
        return std::string(e.what());
    };
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(t));
    CHECK(message("tex_through", t).find(std::string("tex through texture object ") + hex + " was destroyed") !=
          std::string::npos);
    CHECK(message("tex_through", 0x777).find("texture object 0x777 was never created (unbound)") != std::string::npos);
    CHECK(message("tex_through", 0).find("texture object 0x0 is the null handle") != std::string::npos);
    CHECK(message("tex_through", s).find("is not one: the handle names a surface object") != std::string::npos);
    // surf_through writes at byte x = 4 * its argument with .trap: element 100 of a 4-wide surface is out of range.
    CHECK(message("surf_through", s, 100).find("sust.trap out of range through surface object") != std::string::npos);
    device.textures().destroy_surface(s);
    CHECK(message("surf_through", s).find("was destroyed") != std::string::npos);
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
        const KernelError e =
            error_of([&] { launch(device, module, "grid_ring", config, Args(pa, pb, n, stride, rounds)); });
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
                     out = device.malloc(n * sizeof(int)), px = upload(device, x),
                     fout = device.malloc(n * sizeof(float));
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
                     out = device.malloc(n * sizeof(int)), px = upload(device, x),
                     fout = device.malloc(n * sizeof(float));
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
        launch(device, module, "recursion", LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0},
               Args(pin, fibs, parity, sums, n));
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
        const KernelError e = error_of([&] {
            launch(device, module, "runaway", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, Args(pin, out));
        });
        CHECK(e.kind() == KernelErrorKind::limit);
        const std::string what = e.what();
        CHECK(what.find("call stack overflow: calling '_Z10count_downi' would exceed 1024 nested calls") !=
              std::string::npos);
        CHECK(what.find("thread (9,0,0)") != std::string::npos);
        CHECK(what.find("recursion.ptx:") != std::string::npos);
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
        CHECK(std::string(free_error(device, p + 16).what()).find("inside the 32-byte allocation at 0x") !=
              std::string::npos);
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
