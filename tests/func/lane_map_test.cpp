// The element-wise instructions the engine runs as whole-warp loops (detail::map_lanes: integer add/sub/mul/mad,
// mul.wide, logic, shl, 32-bit shr, cvt widening 32 to 64 bits, mov, setp, selp, f32 add/sub/mul and fma) give the
// same per-thread results whether a warp executes all 32 lanes at once (the vectorized loop), some of them (the
// per-lane loop) or runs 64 lanes wide, on edge values, with immediates in any operand position and with a destination
// that is also a source. Each thread's results are checked against a CPU reference. The same holds for the forms the
// decoder settles in advance (DecodedInstruction::lane_op, run by semantics::run_lane_op) and for the neighbouring
// forms it leaves to the general semantics, and the decoder is checked to settle exactly the forms it should.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gpuarch/func/decode.hpp>

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

// ---- the decoder's lane-op forms (DecodedInstruction::lane_op, semantics::run_lane_op) ----

namespace {

// Every setp lane-op form (each compare on s32, u32, s64 and u64, and lo/ls/hi/hs on a signed type), the 64-bit and
// predicate logic forms, and forms the decoder leaves to the general semantics (saturation, the carry chain, .hi
// products, 16-bit types, a combining predicate, two predicate destinations). Inputs per thread: a, b (u32), then
// c, d (u64). Each thread stores results_forms u32 slots.
constexpr unsigned inputs_forms = 6; // u32 slots: a, b, c (two), d (two)
constexpr unsigned results_forms = 16;

const char* lane_op_forms = R"(
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd1, %r1, 24;
    add.s64 %rd2, %rd63, %rd1;
    ld.global.u32 %r2, [%rd2];
    ld.global.u32 %r3, [%rd2+4];
    ld.global.u64 %rd3, [%rd2+8];
    ld.global.u64 %rd4, [%rd2+16];
    mul.wide.u32 %rd5, %r1, 64;
    add.s64 %rd6, %rd62, %rd5;
    mov.u32 %r10, 0;
    setp.eq.s32 %p1, %r2, %r3;   selp.u32 %r11, 1, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.ne.u32 %p1, %r2, %r3;   selp.u32 %r11, 2, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.lt.s32 %p1, %r2, %r3;   selp.u32 %r11, 4, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.le.s32 %p1, %r2, %r3;   selp.u32 %r11, 8, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.gt.s32 %p1, %r2, %r3;   selp.u32 %r11, 16, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.ge.s32 %p1, %r2, %r3;   selp.u32 %r11, 32, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.lt.u32 %p1, %r2, %r3;   selp.u32 %r11, 64, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.le.u32 %p1, %r2, %r3;   selp.u32 %r11, 128, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.gt.u32 %p1, %r2, %r3;   selp.u32 %r11, 256, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.ge.u32 %p1, %r2, %r3;   selp.u32 %r11, 512, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.lo.s32 %p1, %r2, %r3;   selp.u32 %r11, 1024, 0, %p1;   or.b32 %r10, %r10, %r11;
    setp.ls.s32 %p1, %r2, %r3;   selp.u32 %r11, 2048, 0, %p1;   or.b32 %r10, %r10, %r11;
    setp.hi.s32 %p1, %r2, %r3;   selp.u32 %r11, 4096, 0, %p1;   or.b32 %r10, %r10, %r11;
    setp.hs.s32 %p1, %r2, %r3;   selp.u32 %r11, 8192, 0, %p1;   or.b32 %r10, %r10, %r11;
    setp.eq.s32 %p1, %r2, 7;     selp.u32 %r11, 16384, 0, %p1;  or.b32 %r10, %r10, %r11;
    st.global.u32 [%rd6], %r10;
    mov.u32 %r10, 0;
    setp.eq.s64 %p1, %rd3, %rd4; selp.u32 %r11, 1, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.ne.u64 %p1, %rd3, %rd4; selp.u32 %r11, 2, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.lt.s64 %p1, %rd3, %rd4; selp.u32 %r11, 4, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.le.s64 %p1, %rd3, %rd4; selp.u32 %r11, 8, 0, %p1;      or.b32 %r10, %r10, %r11;
    setp.gt.s64 %p1, %rd3, %rd4; selp.u32 %r11, 16, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.ge.s64 %p1, %rd3, %rd4; selp.u32 %r11, 32, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.lt.u64 %p1, %rd3, %rd4; selp.u32 %r11, 64, 0, %p1;     or.b32 %r10, %r10, %r11;
    setp.le.u64 %p1, %rd3, %rd4; selp.u32 %r11, 128, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.gt.u64 %p1, %rd3, %rd4; selp.u32 %r11, 256, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.ge.u64 %p1, %rd3, %rd4; selp.u32 %r11, 512, 0, %p1;    or.b32 %r10, %r10, %r11;
    setp.lt.s32 %p2, %r2, %r3;
    setp.gt.s64 %p3, %rd3, %rd4;
    and.pred %p4, %p2, %p3;      selp.u32 %r11, 1024, 0, %p4;   or.b32 %r10, %r10, %r11;
    or.pred %p4, %p2, %p3;       selp.u32 %r11, 2048, 0, %p4;   or.b32 %r10, %r10, %r11;
    xor.pred %p4, %p2, %p3;      selp.u32 %r11, 4096, 0, %p4;   or.b32 %r10, %r10, %r11;
    setp.lt.and.s32 %p4, %r2, %r3, %p3;  selp.u32 %r11, 8192, 0, %p4;   or.b32 %r10, %r10, %r11;
    setp.lt.s32 %p4|%p5, %r2, %r3;       selp.u32 %r11, 16384, 0, %p5;  or.b32 %r10, %r10, %r11;
    st.global.u32 [%rd6+4], %r10;
    and.b64 %rd10, %rd3, %rd4;
    st.global.u64 [%rd6+8], %rd10;
    or.b64 %rd10, %rd3, %rd4;
    st.global.u64 [%rd6+16], %rd10;
    xor.b64 %rd10, %rd3, %rd4;
    st.global.u64 [%rd6+24], %rd10;
    sub.s64 %rd10, %rd3, %rd4;
    st.global.u64 [%rd6+32], %rd10;
    mad.lo.u64 %rd10, %rd3, %rd4, %rd3;
    st.global.u64 [%rd6+40], %rd10;
    add.sat.s32 %r10, %r2, %r3;
    st.global.u32 [%rd6+48], %r10;
    add.cc.u32 %r10, %r2, %r3;
    addc.u32 %r11, 0, 0;
    add.u32 %r10, %r10, %r11;
    st.global.u32 [%rd6+52], %r10;
    mul.hi.s32 %r10, %r2, %r3;
    st.global.u32 [%rd6+56], %r10;
    cvt.u16.u32 %h1, %r2;
    cvt.u16.u32 %h2, %r3;
    mul.lo.u16 %h3, %h1, %h2;
    cvt.u32.u16 %r10, %h3;
    st.global.u32 [%rd6+60], %r10;
)";

struct FormInputs {
    std::uint32_t a, b;
    std::uint64_t c, d;
};

std::vector<std::uint32_t> forms_reference(const FormInputs& in) {
    const std::uint32_t a = in.a, b = in.b;
    const auto sa = static_cast<std::int32_t>(a), sb = static_cast<std::int32_t>(b);
    const std::uint64_t c = in.c, d = in.d;
    const auto sc = static_cast<std::int64_t>(c), sd = static_cast<std::int64_t>(d);
    std::vector<std::uint32_t> r(results_forms, 0);
    const bool compare32[] = {a == b, a != b, sa < sb, sa <= sb, sa > sb, sa >= sb, a < b, a <= b,
                              a > b,  a >= b, a < b,   a <= b,   a > b,   a >= b,   a == 7};
    for (unsigned k = 0; k < std::size(compare32); ++k) r[0] |= compare32[k] ? 1U << k : 0U;
    const bool p2 = sa < sb, p3 = sc > sd;
    const bool compare64[] = {c == d, c != d, sc < sd, sc <= sd, sc > sd, sc >= sd, c < d, c <= d, c > d, c >= d,
                              p2 && p3, p2 || p3, p2 != p3, p2 && p3, !p2};
    for (unsigned k = 0; k < std::size(compare64); ++k) r[1] |= compare64[k] ? 1U << k : 0U;
    auto put64 = [&](unsigned slot, std::uint64_t v) {
        r[slot] = static_cast<std::uint32_t>(v);
        r[slot + 1] = static_cast<std::uint32_t>(v >> 32);
    };
    put64(2, c & d);
    put64(4, c | d);
    put64(6, c ^ d);
    put64(8, c - d);
    put64(10, c * d + c);
    r[12] = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(std::int64_t{sa} + sb, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max()));
    r[13] = a + b + ((std::uint64_t{a} + b) >> 32 != 0 ? 1U : 0U);
    r[14] = static_cast<std::uint32_t>((std::int64_t{sa} * sb) >> 32);
    r[15] = static_cast<std::uint16_t>(std::uint32_t{static_cast<std::uint16_t>(a)} * static_cast<std::uint16_t>(b));
    return r;
}

void check_forms(unsigned threads, unsigned warp_width) {
    const std::uint32_t edges[] = {0U, 1U, 7U, 0x7fffffffU, 0x80000000U, 0xffffffffU};
    const std::uint64_t edges64[] = {0, 1, 0x7fffffffffffffffULL, 0x8000000000000000ULL, ~std::uint64_t{0},
                                     0xffffffffULL};
    std::mt19937_64 rng(20261205);
    std::vector<FormInputs> in(threads);
    std::vector<std::uint32_t> packed;
    for (unsigned t = 0; t < threads; ++t) {
        FormInputs& i = in[t];
        i.a = rng() % 3 == 0 ? edges[rng() % std::size(edges)] : static_cast<std::uint32_t>(rng());
        i.b = rng() % 4 == 0 ? i.a : rng() % 3 == 0 ? edges[rng() % std::size(edges)] : static_cast<std::uint32_t>(rng());
        i.c = rng() % 3 == 0 ? edges64[rng() % std::size(edges64)] : rng();
        i.d = rng() % 4 == 0 ? i.c : rng() % 3 == 0 ? edges64[rng() % std::size(edges64)] : rng();
        for (std::uint32_t v : {i.a, i.b, static_cast<std::uint32_t>(i.c), static_cast<std::uint32_t>(i.c >> 32),
                                static_cast<std::uint32_t>(i.d), static_cast<std::uint32_t>(i.d >> 32)})
            packed.push_back(v);
    }
    REQUIRE(packed.size() == threads * inputs_forms);
    const auto run = test::run_body(lane_op_forms, threads * results_forms * 4, test::bytes_of(packed),
                                    LaunchConfig{Dim3{1, 1, 1}, Dim3{threads, 1, 1}, 0}, LaunchOptions{warp_width});
    for (unsigned t = 0; t < threads; ++t) {
        const std::vector<std::uint32_t> expected = forms_reference(in[t]);
        for (unsigned slot = 0; slot < results_forms; ++slot) {
            INFO("thread " << t << " slot " << slot << " (a " << in[t].a << ", b " << in[t].b << ", c " << in[t].c
                           << ", d " << in[t].d << ")");
            CHECK(run.u32(t * results_forms + slot) == expected[slot]);
        }
    }
}

// The lane-op form the decoder gives each instruction of `body` (in order, the harness's prologue left out).
std::vector<LaneOp> lane_ops_of(const std::string& body) {
    const Module module = Module::from_string(test::wrap_body(body), "forms.ptx");
    const ir::Kernel& kernel = *module.ir().find_kernel("k");
    const std::vector<DecodedInstruction> code = KernelDecoder(module.ir(), kernel, 0, 0).decode();
    std::vector<LaneOp> ops;
    for (std::size_t i = 4; i + 1 < code.size(); ++i) ops.push_back(code[i].lane_op); // prologue: 4; ret last
    return ops;
}

} // namespace

TEST_CASE("the decoder's lane-op forms and the forms it leaves to the general semantics give the CPU's results") {
    SUBCASE("one whole 32-lane warp") { check_forms(32, 32); }
    SUBCASE("a partial warp (29 lanes)") { check_forms(29, 32); }
    SUBCASE("a 64-lane warp") { check_forms(64, 64); }
}

TEST_CASE("the decoder settles the frequent integer forms and leaves every other form to its opcode's semantics") {
    using L = LaneOp;
    const std::vector<LaneOp> ops = lane_ops_of(R"(
        add.s32 %r1, %r2, 4;
        add.u64 %rd1, %rd2, %rd3;
        sub.s32 %r1, %r2, %r3;
        mul.wide.s32 %rd1, %r2, 4;
        mul.wide.u32 %rd1, %r2, %r3;
        mul.lo.s32 %r1, %r2, %r3;
        mad.lo.s32 %r1, %r2, %r3, %r4;
        shl.b32 %r1, %r2, 2;
        shr.s32 %r1, %r2, 2;
        shr.u32 %r1, %r2, 2;
        and.pred %p1, %p2, %p3;
        setp.lo.s32 %p1, %r2, %r3;
        setp.ge.s64 %p1, %rd2, %rd3;
        setp.ne.b32 %p1, %r2, 0;
        add.sat.s32 %r1, %r2, %r3;
        add.cc.u32 %r1, %r2, %r3;
        addc.u32 %r1, %r2, %r3;
        mul.hi.s32 %r1, %r2, %r3;
        mad.wide.s32 %rd1, %r2, %r3, %rd4;
        add.f32 %f1, %f2, %f3;
        add.u16 %h1, %h2, %h3;
        shl.b64 %rd1, %rd2, 3;
        setp.lt.and.s32 %p1, %r2, %r3, %p2;
        setp.lt.s32 %p1|%p2, %r2, %r3;
        setp.lt.f32 %p1, %f2, %f3;
        mov.u32 %r1, %r2;
    )");
    const std::vector<LaneOp> expected = {
        L::add_32,    L::add_64,      L::sub_32,      L::mul_wide_s32, L::mul_wide_u32, L::mul_lo_32,  L::mad_lo_32,
        L::shl_32,    L::shr_s32,     L::shr_u32,     L::and_pred,     L::setp_lt_u32,  L::setp_ge_s64, L::setp_ne_32,
        L::none,      L::none,        L::none,        L::none,         L::none,         L::none,       L::none,
        L::none,      L::none,        L::none,        L::none,         L::none};
    REQUIRE(ops.size() == expected.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        INFO("instruction " << i);
        CHECK(static_cast<int>(ops[i]) == static_cast<int>(expected[i]));
    }
}
