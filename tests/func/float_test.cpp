// Floating-point semantics through PTX: rounding modes, .ftz, .sat, NaN rules of min/max and comparisons, cvt
// between every float and integer type, half precision, and the approximate functions within the PTX ISA bounds.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "ptx_harness.hpp"

using namespace gpuarch::func;

namespace {

std::uint32_t bits(float v) { return std::bit_cast<std::uint32_t>(v); }

// |a - b| in units of the last place of b (binary32).
double ulp_distance(float a, double exact) {
    const float e = static_cast<float>(exact);
    const float next = std::nextafter(e, INFINITY);
    const double ulp = static_cast<double>(next) - static_cast<double>(e);
    return std::fabs(static_cast<double>(a) - exact) / ulp;
}

} // namespace

TEST_CASE("f32 add, mul, div and sqrt honour .rn/.rz/.rm/.rp and fma rounds once") {
    const auto r = test::run_body(R"(
        add.rz.f32 %f1, 0f3F800000, 0f30800000;    // 1 + 2^-30
        add.rp.f32 %f2, 0f3F800000, 0f30800000;
        add.rm.f32 %f3, 0fBF800000, 0fB0800000;    // -1 - 2^-30
        div.rn.f32 %f4, 0f3F800000, 0f40400000;    // 1/3
        div.rz.f32 %f5, 0f3F800000, 0f40400000;
        sqrt.rz.f32 %f6, 0f40000000;
        sqrt.rp.f32 %f7, 0f40000000;
        mul.rn.f32 %f8, 0f3F800800, 0f3F800800;    // (1 + 2^-12)^2: the 2^-24 term is a tie, to even
        neg.f32 %f9, 0f3F801000;
        fma.rn.f32 %f10, 0f3F800800, 0f3F800800, %f9; // exactly 2^-24
        rcp.rn.f32 %f11, 0f40400000;
        mul.rp.f32 %f12, 0f3F800001, 0f3F800001;
        st.global.v4.f32 [%rd62], {%f1, %f2, %f3, %f4};
        st.global.v4.f32 [%rd62+16], {%f5, %f6, %f7, %f8};
        st.global.v4.f32 [%rd62+32], {%f9, %f10, %f11, %f12};
    )",
                                  48);
    const std::uint32_t expected[] = {0x3f800000, 0x3f800001, 0xbf800001, 0x3eaaaaab, 0x3eaaaaaa, 0x3fb504f3,
                                      0x3fb504f4, 0x3f801000, 0xbf801000, 0x33800000, 0x3eaaaaab, 0x3f800003};
    for (unsigned i = 0; i < 12; ++i) {
        INFO("result " << i);
        CHECK(r.u32(i) == expected[i]);
    }
}

TEST_CASE("f32 .ftz flushes subnormal inputs and results, .sat clamps to [0, 1] and maps NaN to +0") {
    const auto r = test::run_body(R"(
        add.ftz.f32 %f1, 0f00000001, 0f00000000;
        add.f32 %f2, 0f00000001, 0f00000000;
        mul.f32 %f3, 0f00800000, 0f3F000000;       // min normal / 2: subnormal result kept
        mul.ftz.f32 %f4, 0f00800000, 0f3F000000;   // flushed
        mul.ftz.f32 %f5, 0f80800000, 0f3F000000;   // flushed to -0
        add.sat.f32 %f6, 0f3F400000, 0f3F000000;   // 0.75 + 0.5
        add.sat.f32 %f7, 0fBF000000, 0f00000000;   // -0.5
        add.sat.f32 %f8, 0f7F800000, 0fFF800000;   // inf - inf = NaN
        st.global.v4.f32 [%rd62], {%f1, %f2, %f3, %f4};
        st.global.v4.f32 [%rd62+16], {%f5, %f6, %f7, %f8};
    )",
                                  32);
    const std::uint32_t expected[] = {0, 1, 0x00400000, 0, 0x80000000, 0x3f800000, 0, 0};
    for (unsigned i = 0; i < 8; ++i) {
        INFO("result " << i);
        CHECK(r.u32(i) == expected[i]);
    }
}

TEST_CASE("min/max ignore a single NaN, give the canonical NaN for two (or for .NaN), and order -0 below +0") {
    const auto r = test::run_body(R"(
        min.f32 %f1, 0f7FC00001, 0f3F800000;
        max.f32 %f2, 0f7FC00001, 0fFFC00002;
        min.f32 %f3, 0f80000000, 0f00000000;
        max.f32 %f4, 0f80000000, 0f00000000;
        min.NaN.f32 %f5, 0f7FC00001, 0f3F800000;
        max.f32 %f6, 0f00000000, 0f80000000;
        st.global.v4.f32 [%rd62], {%f1, %f2, %f3, %f4};
        st.global.v2.f32 [%rd62+16], {%f5, %f6};
    )",
                                  24);
    CHECK(r.u32(0) == 0x3f800000);
    CHECK(r.u32(1) == 0x7fffffff);
    CHECK(r.u32(2) == 0x80000000);
    CHECK(r.u32(3) == 0x00000000);
    CHECK(r.u32(4) == 0x7fffffff);
    CHECK(r.u32(5) == 0x00000000);
}

TEST_CASE("ordered comparisons are false on NaN, unordered ones true, and testp classifies every kind") {
    const auto r = test::run_body(R"(
        setp.eq.f32 %p1, 0f7FC00000, 0f3F800000;
        setp.equ.f32 %p2, 0f7FC00000, 0f3F800000;
        setp.ne.f32 %p3, 0f7FC00000, 0f3F800000;
        setp.neu.f32 %p4, 0f7FC00000, 0f3F800000;
        setp.num.f32 %p5, 0f3F800000, 0f3F800000;
        setp.nan.f32 %p6, 0f3F800000, 0f7FC00000;
        setp.lt.ftz.f32 %p7, 0f80000001, 0f00000000;  // -subnormal flushes to -0: not below +0
        setp.lt.f32 %p8, 0f80000001, 0f00000000;
        testp.finite.f32 %p9, 0f7F800000;
        testp.infinite.f32 %p10, 0fFF800000;
        testp.number.f32 %p11, 0f7FC00000;
        testp.notanumber.f32 %p12, 0f7FC00000;
        testp.normal.f32 %p13, 0f00000001;
        testp.subnormal.f32 %p14, 0f00000001;
        testp.normal.f64 %p15, 0d3FF0000000000000;
        selp.u32 %r1, 1, 0, %p1;
        selp.u32 %r2, 1, 0, %p2;
        selp.u32 %r3, 1, 0, %p3;
        selp.u32 %r4, 1, 0, %p4;
        selp.u32 %r5, 1, 0, %p5;
        selp.u32 %r6, 1, 0, %p6;
        selp.u32 %r7, 1, 0, %p7;
        selp.u32 %r8, 1, 0, %p8;
        selp.u32 %r9, 1, 0, %p9;
        selp.u32 %r10, 1, 0, %p10;
        selp.u32 %r11, 1, 0, %p11;
        selp.u32 %r12, 1, 0, %p12;
        selp.u32 %r13, 1, 0, %p13;
        selp.u32 %r14, 1, 0, %p14;
        selp.u32 %r15, 1, 0, %p15;
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.v4.u32 [%rd62+16], {%r5, %r6, %r7, %r8};
        st.global.v4.u32 [%rd62+32], {%r9, %r10, %r11, %r12};
        st.global.v4.u32 [%rd62+48], {%r13, %r14, %r15, %r15};
    )",
                                  64);
    const std::uint32_t expected[] = {0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1};
    for (unsigned i = 0; i < 15; ++i) {
        INFO("result " << i);
        CHECK(r.u32(i) == expected[i]);
    }
}

TEST_CASE("float-to-integer cvt rounds by its integer mode, saturates, and maps NaN to 0") {
    const auto r = test::run_body(R"(
        cvt.rni.s32.f32 %r1, 0f40200000;   // 2.5 -> 2
        cvt.rzi.s32.f32 %r2, 0fC02CCCCD;   // -2.7 -> -2
        cvt.rmi.s32.f32 %r3, 0fC0200000;   // -2.5 -> -3
        cvt.rpi.u32.f32 %r4, 0fBF800000;   // -1 -> clamps to 0
        cvt.rzi.s32.f32 %r5, 0f7FC00000;   // NaN -> 0
        cvt.rzi.s32.f32 %r6, 0f4F32D05E;   // 3e9 -> INT_MAX
        cvt.rzi.s32.f32 %r7, 0fCF32D05E;   // -3e9 -> INT_MIN
        cvt.rni.s64.f64 %rd1, 0d4415AF1D78B58C40; // 1e20 -> INT64_MAX
        cvt.rzi.u64.f32 %rd2, 0f5F800000;  // 2^64 -> UINT64_MAX
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.v4.u32 [%rd62+16], {%r5, %r6, %r7, %r7};
        st.global.v2.u64 [%rd62+32], {%rd1, %rd2};
    )",
                                  48);
    CHECK(r.u32(0) == 2);
    CHECK(r.u32(1) == static_cast<std::uint32_t>(-2));
    CHECK(r.u32(2) == static_cast<std::uint32_t>(-3));
    CHECK(r.u32(3) == 0);
    CHECK(r.u32(4) == 0);
    CHECK(r.u32(5) == 0x7fffffffU);
    CHECK(r.u32(6) == 0x80000000U);
    CHECK(r.u64(4) == 0x7fffffffffffffffULL);
    CHECK(r.u64(5) == ~0ULL);
}

TEST_CASE("cvt to and from float rounds in the requested direction, including f16/bf16 and the f16x2 pack") {
    const auto r = test::run_body(R"(
        cvt.rn.f32.s32 %f1, 16777217;
        cvt.rp.f32.s32 %f2, 16777217;
        cvt.rn.f32.u64 %f3, 0xffffffffffffffff;
        cvt.rn.f32.f64 %f4, 0d3FB999999999999A;      // 0.1
        cvt.rz.f32.f64 %f5, 0d3FB999999999999A;
        cvt.rni.f32.f32 %f6, 0f40200000;            // 2.5 -> 2.0
        cvt.sat.f32.f32 %f7, 0f3FC00000;            // 1.5 -> 1.0
        cvt.ftz.f32.f32 %f8, 0f00000010;
        cvt.rn.f16.f32 %h1, 0f477FF000;             // 65520 -> inf
        cvt.rz.f16.f32 %h2, 0f477FF000;             // -> 65504
        cvt.f32.f16 %f9, 0x3555;
        cvt.rn.bf16.f32 %h3, 0f3F818000;
        cvt.rn.f16x2.f32 %r1, 0f3F800000, 0f40000000;
        cvt.rpi.f64.f64 %fd1, 0dC004000000000000;   // -2.5 -> -2.0
        cvt.f64.f32 %fd2, 0f3DCCCCCD;
        cvt.rn.f16.s32 %h4, -3;
        cvt.rni.s32.f16 %r2, 0x4100;                // f16 2.5 -> 2
        st.global.v4.f32 [%rd62], {%f1, %f2, %f3, %f4};
        st.global.v4.f32 [%rd62+16], {%f5, %f6, %f7, %f8};
        st.global.v4.b16 [%rd62+32], {%h1, %h2, %h3, %h4};
        st.global.f32 [%rd62+40], %f9;
        st.global.u32 [%rd62+44], %r1;
        st.global.v2.f64 [%rd62+48], {%fd1, %fd2};
        st.global.u32 [%rd62+64], %r2;
    )",
                                  68);
    CHECK(r.u32(0) == bits(16777216.0f));
    CHECK(r.u32(1) == bits(16777218.0f));
    CHECK(r.u32(2) == 0x5f800000U);
    CHECK(r.u32(3) == 0x3dcccccdU);
    CHECK(r.u32(4) == 0x3dccccccU);
    CHECK(r.u32(5) == bits(2.0f));
    CHECK(r.u32(6) == bits(1.0f));
    CHECK(r.u32(7) == 0);
    CHECK(r.at<std::uint16_t>(16) == 0x7c00);
    CHECK(r.at<std::uint16_t>(17) == 0x7bff);
    CHECK(r.at<std::uint16_t>(18) == 0x3f82);
    CHECK(r.at<std::uint16_t>(19) == 0xc200);
    CHECK(r.f32(10) == 0.333251953125f);
    CHECK(r.u32(11) == 0x3c004000U);
    CHECK(r.f64(6) == -2.0);
    CHECK(r.f64(7) == static_cast<double>(0.1f));
    CHECK(r.u32(16) == 2);
}

TEST_CASE("half-precision arithmetic rounds to f16 per element of packed x2 values") {
    const auto r = test::run_body(R"(
        add.f16 %h1, 0x3c00, 0x3c00;           // 1 + 1
        mul.f16 %h2, 0x7bff, 0x4000;           // 65504 * 2 overflows to inf
        fma.rn.f16 %h3, 0x3c01, 0x3c01, 0xbc00;// (1+2^-10)^2 - 1 = 2^-9 + 2^-20 -> 2^-9 (0x1800)
        add.sat.f16 %h4, 0x3c00, 0x3800;       // 1.5 -> 1.0
        mov.b32 %r1, {%h1, %h2};
        add.f16x2 %r2, 0x3c004000, 0x3c003c00; // {lo: 2+1, hi: 1+1}
        neg.f16x2 %r3, 0x3c00bc00;
        min.f16 %h5, 0xbc00, 0x3c00;
        ex2.approx.f16 %h6, 0x3c00;            // 2^1
        mul.rn.bf16 %h7, 0x3fc0, 0x3fc0;       // 1.5 * 1.5 = 2.25
        st.global.v4.b16 [%rd62], {%h1, %h2, %h3, %h4};
        st.global.v2.u32 [%rd62+8], {%r2, %r3};
        st.global.v4.b16 [%rd62+16], {%h5, %h6, %h7, %h7};
    )",
                                  24);
    CHECK(r.at<std::uint16_t>(0) == 0x4000);
    CHECK(r.at<std::uint16_t>(1) == 0x7c00);
    CHECK(r.at<std::uint16_t>(2) == 0x1800);
    CHECK(r.at<std::uint16_t>(3) == 0x3c00);
    CHECK(r.u32(2) == 0x40004200U);
    CHECK(r.u32(3) == 0xbc003c00U);
    CHECK(r.at<std::uint16_t>(8) == 0xbc00);
    CHECK(r.at<std::uint16_t>(9) == 0x4000);
    CHECK(r.at<std::uint16_t>(10) == 0x4010);
}

TEST_CASE("f64 arithmetic honours directed rounding and copysign/abs/neg act on the sign bit only") {
    const auto r = test::run_body(R"(
        add.rp.f64 %fd1, 0d3FF0000000000000, 0d3C80000000000000;   // 1 + 2^-55
        add.rn.f64 %fd2, 0d3FF0000000000000, 0d3C80000000000000;
        div.rz.f64 %fd3, 0d3FF0000000000000, 0d4008000000000000;   // 1/3
        div.rn.f64 %fd4, 0d3FF0000000000000, 0d4008000000000000;
        sqrt.rn.f64 %fd5, 0d4000000000000000;
        fma.rm.f64 %fd6, 0d3FF0000000000001, 0d3FF0000000000001, 0dBFF0000000000000;
        copysign.f64 %fd7, 0dBFF0000000000000, 0d4000000000000000;
        abs.f64 %fd8, 0dFFF0000000000001;                           // NaN payload kept, sign cleared
        st.global.v2.f64 [%rd62], {%fd1, %fd2};
        st.global.v2.f64 [%rd62+16], {%fd3, %fd4};
        st.global.v2.f64 [%rd62+32], {%fd5, %fd6};
        st.global.v2.f64 [%rd62+48], {%fd7, %fd8};
    )",
                                  64);
    CHECK(r.u64(0) == 0x3ff0000000000001ULL);
    CHECK(r.u64(1) == 0x3ff0000000000000ULL);
    CHECK(r.u64(2) == 0x3fd5555555555555ULL);
    CHECK(r.u64(3) == 0x3fd5555555555555ULL);
    CHECK(r.f64(4) == std::sqrt(2.0));
    CHECK(r.u64(5) == 0x3cc0000000000000ULL); // 2^-51 + 2^-104 rounded down to 2^-51
    CHECK(r.f64(6) == -2.0);
    CHECK(r.u64(7) == 0x7ff0000000000001ULL);
}

TEST_CASE("approximate f32 functions stay within the PTX ISA error bounds and give the stated special values") {
    std::vector<float> inputs;
    for (int i = -64; i <= 64; ++i) inputs.push_back(static_cast<float>(i) * 0.0981748f); // spans [-2pi, 2pi]
    for (float v : {0.5001f, 0.75f, 1.0f, 1.5f, 1.9999f, 3.0f, 1e-3f, 1e3f, 1e30f, 7.5e-39f}) inputs.push_back(v);
    const std::size_t n = inputs.size();
    const auto r = test::run_body(R"(
        mov.u32 %r1, 0;
    LOOP:
        mul.wide.u32 %rd1, %r1, 4;
        add.s64 %rd2, %rd63, %rd1;
        ld.global.f32 %f1, [%rd2];
        mul.wide.u32 %rd3, %r1, 32;
        add.s64 %rd4, %rd62, %rd3;
        sin.approx.f32 %f2, %f1;
        cos.approx.f32 %f3, %f1;
        abs.f32 %f9, %f1;
        lg2.approx.f32 %f4, %f9;
        ex2.approx.f32 %f5, %f1;
        rcp.approx.f32 %f6, %f1;
        rsqrt.approx.f32 %f7, %f9;
        tanh.approx.f32 %f8, %f1;
        st.global.v4.f32 [%rd4], {%f2, %f3, %f4, %f5};
        sqrt.approx.f32 %f10, %f9;
        st.global.v4.f32 [%rd4+16], {%f6, %f7, %f8, %f10};
        add.u32 %r1, %r1, 1;
        setp.lt.u32 %p1, %r1, )" + std::to_string(n) +
                                      R"(;
        @%p1 bra LOOP;
    )",
                                  n * 32, test::bytes_of(inputs));
    for (std::size_t i = 0; i < n; ++i) {
        const double x = inputs[i];
        const double ax = std::fabs(x);
        INFO("x = " << x);
        const float s = r.f32(8 * i + 0), c = r.f32(8 * i + 1), lg = r.f32(8 * i + 2), e2 = r.f32(8 * i + 3);
        const float rc = r.f32(8 * i + 4), rs = r.f32(8 * i + 5), th = r.f32(8 * i + 6), sq = r.f32(8 * i + 7);
        if (ax <= 2 * M_PI) {
            CHECK(std::fabs(s - std::sin(x)) <= std::pow(2.0, -20.5));
            CHECK(std::fabs(c - std::cos(x)) <= std::pow(2.0, -20.5));
        }
        if (ax > 0) {
            const double exact = std::log2(ax);
            if (ax > 0.5 && ax < 2) CHECK(std::fabs(lg - exact) <= std::ldexp(1.0, -22));
            else CHECK(std::fabs(lg - exact) <= std::ldexp(std::fabs(exact), -22));
            CHECK(std::fabs(rs - 1 / std::sqrt(ax)) <= std::ldexp(1 / std::sqrt(ax), -22)); // 2^-22.9 < 2^-22
            CHECK(ulp_distance(sq, std::sqrt(ax)) <= 1.0);
        }
        if (std::exp2(x) < 3e38 && std::exp2(x) > 1e-37) CHECK(ulp_distance(e2, std::exp2(x)) <= 2.0);
        if (x != 0 && ax < 1e37) CHECK(ulp_distance(rc, 1 / x) <= 1.0);
        CHECK(std::fabs(th - std::tanh(x)) <= std::ldexp(std::fabs(std::tanh(x)), -11) + 1e-30);
    }
    // Special values (PTX ISA tables for each function).
    const auto s = test::run_body(R"(
        sin.approx.f32 %f1, 0f80000000;
        lg2.approx.f32 %f2, 0f00000000;
        ex2.approx.f32 %f3, 0fFF800000;
        rsqrt.approx.f32 %f4, 0f00000000;
        rcp.approx.f32 %f5, 0f80000000;
        lg2.approx.f32 %f6, 0fBF800000;
        div.approx.f32 %f7, 0f3F800000, 0f7F000000;   // |b| = 2^127 > 2^126: 0
        div.approx.f32 %f8, 0f7F800000, 0f7F000000;   // infinity / 2^127: NaN
        st.global.v4.f32 [%rd62], {%f1, %f2, %f3, %f4};
        st.global.v4.f32 [%rd62+16], {%f5, %f6, %f7, %f8};
    )",
                                  32);
    CHECK(s.u32(0) == 0x80000000U);
    CHECK(s.u32(1) == 0xff800000U);
    CHECK(s.u32(2) == 0);
    CHECK(s.u32(3) == 0x7f800000U);
    CHECK(s.u32(4) == 0xff800000U);
    CHECK(std::isnan(s.f32(5)));
    CHECK(s.u32(6) == 0);
    CHECK(std::isnan(s.f32(7)));
}
