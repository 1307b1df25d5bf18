// The element-wise instructions the engine runs as whole-warp loops (detail::map_lanes: integer add/sub/mul/mad,
// mul.wide, logic, shl, 32-bit shr, cvt widening 32 to 64 bits, mov, setp, selp, f32 add/sub/mul and fma) give the
// same per-thread results whether a warp executes all 32 lanes at once (the vectorized loop), some of them (the
// per-lane loop) or runs 64 lanes wide, on edge values, with immediates in any operand position and with a destination
// that is also a source. Each thread's results are checked against a CPU reference.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch;
using namespace gpuarch::func;

namespace {

constexpr unsigned inputs_per_thread = 6; // a, b, s (u32); x, y, z (f32)
constexpr unsigned results_per_thread = 40; // u32 slots; the u64 results take two each, at even slots

const char* element_wise = R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 24;
    add.s64 %rd2, %rd63, %rd1;
    ld.global.u32 %r2, [%rd2];
    ld.global.u32 %r3, [%rd2+4];
    ld.global.u32 %r4, [%rd2+8];
    ld.global.f32 %f1, [%rd2+12];
    ld.global.f32 %f2, [%rd2+16];
    ld.global.f32 %f3, [%rd2+20];
    mul.wide.u32 %rd3, %r1, 160;
    add.s64 %rd4, %rd62, %rd3;
    add.u32 %r10, %r2, %r3;
    st.global.u32 [%rd4], %r10;
    sub.u32 %r10, %r2, %r3;
    st.global.u32 [%rd4+4], %r10;
    sub.s32 %r10, 100, %r2;
    st.global.u32 [%rd4+8], %r10;
    mul.lo.u32 %r10, %r2, %r3;
    st.global.u32 [%rd4+12], %r10;
    mad.lo.s32 %r10, %r2, %r3, %r4;
    st.global.u32 [%rd4+16], %r10;
    mad.lo.s32 %r10, %r2, 7, -3;
    st.global.u32 [%rd4+20], %r10;
    and.b32 %r10, %r2, %r3;
    st.global.u32 [%rd4+24], %r10;
    or.b32 %r10, %r2, 61680;
    st.global.u32 [%rd4+28], %r10;
    xor.b32 %r10, %r2, %r3;
    st.global.u32 [%rd4+32], %r10;
    not.b32 %r10, %r2;
    st.global.u32 [%rd4+36], %r10;
    shl.b32 %r10, %r2, %r4;
    st.global.u32 [%rd4+40], %r10;
    shl.b32 %r10, %r2, 3;
    st.global.u32 [%rd4+44], %r10;
    mov.b32 %r10, 1234567;
    st.global.u32 [%rd4+48], %r10;
    setp.lt.s32 %p1, %r3, %r4;
    selp.u32 %r10, 1, 0, %p1;
    st.global.u32 [%rd4+52], %r10;
    setp.hs.u32 %p2, %r3, %r4;
    selp.u32 %r10, %r3, %r4, %p2;
    st.global.u32 [%rd4+56], %r10;
    setp.ne.u32 %p3, 5, %r2;
    selp.u32 %r10, %r2, 77, %p3;
    st.global.u32 [%rd4+60], %r10;
    setp.lt.f32 %p4, %f1, %f2;
    setp.equ.f32 %p5, %f1, %f2;
    setp.nan.f32 %p6, %f1, %f2;
    selp.u32 %r10, 1, 0, %p4;
    selp.u32 %r11, 2, 0, %p5;
    selp.u32 %r12, 4, 0, %p6;
    or.b32 %r10, %r10, %r11;
    or.b32 %r10, %r10, %r12;
    st.global.u32 [%rd4+64], %r10;
    add.rn.f32 %f10, %f1, %f2;
    st.global.f32 [%rd4+68], %f10;
    sub.rn.f32 %f10, %f1, %f2;
    st.global.f32 [%rd4+72], %f10;
    mul.rn.f32 %f10, %f1, %f2;
    st.global.f32 [%rd4+76], %f10;
    fma.rn.f32 %f10, %f1, %f2, %f3;
    st.global.f32 [%rd4+80], %f10;
    fma.rn.f32 %f10, %f1, 0f40000000, %f3;
    st.global.f32 [%rd4+84], %f10;
    add.u32 %r2, %r2, %r3;
    st.global.u32 [%rd4+88], %r2;
    cvt.u64.u32 %rd10, %r2;
    cvt.u64.u32 %rd11, %r3;
    shl.b64 %rd11, %rd11, 32;
    or.b64 %rd11, %rd11, %rd10;
    add.s64 %rd12, %rd11, -4294967295;
    st.global.u64 [%rd4+96], %rd12;
    mul.lo.u64 %rd12, %rd11, %rd11;
    st.global.u64 [%rd4+104], %rd12;
    mul.wide.s32 %rd13, %r2, %r3;
    st.global.u64 [%rd4+112], %rd13;
    mul.wide.u32 %rd13, %r2, %r3;
    st.global.u64 [%rd4+120], %rd13;
    mul.wide.s32 %rd13, %r3, -7;
    st.global.u64 [%rd4+128], %rd13;
    shr.u32 %r10, %r3, %r4;
    st.global.u32 [%rd4+136], %r10;
    shr.s32 %r10, %r3, %r4;
    st.global.u32 [%rd4+140], %r10;
    shr.u32 %r10, %r3, 5;
    st.global.u32 [%rd4+144], %r10;
    cvt.u32.u64 %r10, %rd11;
    st.global.u32 [%rd4+148], %r10;
    cvt.s64.s32 %rd13, %r3;
    st.global.u64 [%rd4+152], %rd13;
)";

std::uint32_t bits(float v) { return std::isnan(v) ? 0x7fffffffU : std::bit_cast<std::uint32_t>(v); }

struct Inputs {
    std::uint32_t a, b, s;
    float x, y, z;
};

// What each thread must store (u32 slots; slots 24..33 and 38..39 hold the u64 results).
std::vector<std::uint32_t> reference(const Inputs& in) {
    const std::uint32_t a = in.a, b = in.b, s = in.s;
    const auto sb = static_cast<std::int32_t>(b), ss = static_cast<std::int32_t>(s);
    const float x = in.x, y = in.y, z = in.z;
    const bool unordered = std::isnan(x) || std::isnan(y);
    std::vector<std::uint32_t> r(results_per_thread, 0);
    r[0] = a + b;
    r[1] = a - b;
    r[2] = 100U - a;
    r[3] = a * b;
    r[4] = a * b + s;
    r[5] = a * 7U - 3U;
    r[6] = a & b;
    r[7] = a | 61680U;
    r[8] = a ^ b;
    r[9] = ~a;
    r[10] = s >= 32 ? 0 : a << s;
    r[11] = a << 3;
    r[12] = 1234567;
    r[13] = sb < ss ? 1 : 0;
    r[14] = b >= s ? b : s;
    r[15] = a != 5 ? a : 77;
    r[16] = (!unordered && x < y ? 1U : 0U) | (unordered || x == y ? 2U : 0U) | (unordered ? 4U : 0U);
    r[17] = bits(x + y);
    r[18] = bits(x - y);
    r[19] = bits(x * y);
    r[20] = bits(std::fma(x, y, z));
    r[21] = bits(std::fma(x, 2.0f, z));
    r[22] = a + b;
    const std::uint64_t wide = (std::uint64_t{b} << 32) | (a + b);
    const std::uint64_t sum = wide - 4294967295ULL, square = wide * wide;
    r[24] = static_cast<std::uint32_t>(sum);
    r[25] = static_cast<std::uint32_t>(sum >> 32);
    r[26] = static_cast<std::uint32_t>(square);
    r[27] = static_cast<std::uint32_t>(square >> 32);
    auto put64 = [&](unsigned slot, std::uint64_t v) {
        r[slot] = static_cast<std::uint32_t>(v);
        r[slot + 1] = static_cast<std::uint32_t>(v >> 32);
    };
    const std::uint32_t a2 = a + b;
    put64(28, static_cast<std::uint64_t>(std::int64_t{static_cast<std::int32_t>(a2)} * sb));
    put64(30, std::uint64_t{a2} * b);
    put64(32, static_cast<std::uint64_t>(std::int64_t{sb} * -7));
    r[34] = s >= 32 ? 0 : b >> s;
    r[35] = static_cast<std::uint32_t>(sb >> (s > 31 ? 31 : s));
    r[36] = b >> 5;
    r[37] = a2;
    put64(38, static_cast<std::uint64_t>(std::int64_t{sb}));
    return r;
}

std::vector<Inputs> make_inputs(unsigned threads) {
    const std::uint32_t edges[] = {0U, 1U, 5U, 0x7fffffffU, 0x80000000U, 0xffffffffU, 31U, 32U, 33U, 100U};
    const float specials[] = {0.0f,
                              -0.0f,
                              1.0f,
                              -2.5f,
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max(),
                              1.0f + std::numeric_limits<float>::epsilon()};
    std::mt19937 rng(20261204);
    std::vector<Inputs> in(threads);
    for (unsigned t = 0; t < threads; ++t) {
        auto pick_u = [&] {
            return rng() % 3 == 0 ? edges[rng() % std::size(edges)] : static_cast<std::uint32_t>(rng());
        };
        auto pick_f = [&] {
            if (rng() % 3 == 0) return specials[rng() % std::size(specials)];
            return std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng);
        };
        in[t] = Inputs{pick_u(), pick_u(), static_cast<std::uint32_t>(rng() % 40), pick_f(), pick_f(), pick_f()};
    }
    return in;
}

void check_threads(unsigned threads, unsigned warp_width) {
    const std::vector<Inputs> in = make_inputs(threads);
    std::vector<std::uint32_t> packed;
    for (const Inputs& i : in)
        for (std::uint32_t v : {i.a, i.b, i.s, std::bit_cast<std::uint32_t>(i.x), std::bit_cast<std::uint32_t>(i.y),
                                std::bit_cast<std::uint32_t>(i.z)})
            packed.push_back(v);
    REQUIRE(packed.size() == threads * inputs_per_thread);
    const auto run = test::run_body(element_wise, threads * results_per_thread * 4, test::bytes_of(packed),
                                    LaunchConfig{Dim3{1, 1, 1}, Dim3{threads, 1, 1}, 0}, LaunchOptions{warp_width});
    for (unsigned t = 0; t < threads; ++t) {
        const std::vector<std::uint32_t> expected = reference(in[t]);
        for (unsigned slot = 0; slot < results_per_thread; ++slot) {
            if (slot == 23) continue; // padding before the u64 results
            INFO("thread " << t << " slot " << slot);
            CHECK(run.u32(t * results_per_thread + slot) == expected[slot]);
        }
    }
}

} // namespace

TEST_CASE("element-wise instructions give each thread the same results on whole, partial and 64-lane warps") {
    SUBCASE("one whole 32-lane warp (the vectorized loop)") { check_threads(32, 32); }
    SUBCASE("two whole warps") { check_threads(64, 32); }
    SUBCASE("a partial warp (31 lanes: the per-lane loop)") { check_threads(31, 32); }
    SUBCASE("a 64-lane warp") { check_threads(64, 64); }
}
