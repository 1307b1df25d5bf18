// Integer, bit-manipulation, comparison and integer-conversion semantics, against values computed by hand from
// the PTX ISA pseudo-code.
#include <doctest/doctest.h>

#include <cstdint>

#include <gpuarch/func/int_ops.hpp>

#include "ptx_harness.hpp"

using namespace gpuarch::func;
using gpuarch::ir::PrmtMode;

TEST_CASE("bfe extracts pos/len fields mod 256, clips at the msb and sign-extends from the field's top bit") {
    CHECK(bit_field_extract(0x12345678, 32, 8, 8, false) == 0x56);
    CHECK(bit_field_extract(0x00008000, 32, 8, 8, true) == 0xffffff80); // field 0x80, top bit set
    CHECK(bit_field_extract(0xf0000000, 32, 28, 8, false) == 0xf); // only 4 bits exist above pos 28
    CHECK(bit_field_extract(0xf0000000, 32, 28, 8, true) == 0xffffffff); // sign bit = a[min(35, 31)]
    CHECK(bit_field_extract(0xffffffff, 32, 4, 0, true) == 0); // len 0 gives 0, even signed
    CHECK(bit_field_extract(0x80000000, 32, 40, 4, true) == 0xffffffff); // pos past msb: all sign bits
    CHECK(bit_field_extract(0x80000000, 32, 40, 4, false) == 0);
    CHECK(bit_field_extract(0x12345678, 32, 0x108, 0x104, false) == 0x6); // pos 8, len 4 after mod 256
    CHECK(bit_field_extract(0x8000000000000000ULL, 64, 60, 4, true) == 0xfffffffffffffff8ULL); // field 0b1000
}

TEST_CASE("bfi inserts the low len bits at pos and drops what runs past the msb") {
    CHECK(bit_field_insert(0xff, 0x12345678, 8, 4, 32) == 0x12345f78);
    CHECK(bit_field_insert(0xff, 0x12345678, 30, 8, 32) == 0xd2345678);
    CHECK(bit_field_insert(0xff, 0x12345678, 8, 0, 32) == 0x12345678);
    CHECK(bit_field_insert(0xff, 0x12345678, 32, 4, 32) == 0x12345678);
    CHECK(bit_field_insert(0x1, 0x0, 63, 1, 64) == 0x8000000000000000ULL);
}

TEST_CASE("prmt selects bytes in the default mode with sign replication and in every named mode") {
    const std::uint32_t a = 0x33221100, b = 0x77665544;
    CHECK(permute_bytes(a, b, 0x3210, PrmtMode::none) == a);
    CHECK(permute_bytes(a, b, 0x7654, PrmtMode::none) == b);
    CHECK(permute_bytes(a, b, 0x0123, PrmtMode::none) == 0x00112233);
    CHECK(permute_bytes(0x80000080, 0, 0x0008, PrmtMode::none) == 0x808080ff);
    CHECK(permute_bytes(a, b, 1, PrmtMode::f4e) == 0x44332211);
    CHECK(permute_bytes(a, b, 0, PrmtMode::b4e) == 0x55667700);
    CHECK(permute_bytes(a, b, 2, PrmtMode::rc8) == 0x22222222);
    CHECK(permute_bytes(a, b, 1, PrmtMode::ecl) == 0x33221111);
    CHECK(permute_bytes(a, b, 2, PrmtMode::ecr) == 0x22221100);
    CHECK(permute_bytes(a, b, 1, PrmtMode::rc16) == 0x33223322);
}

TEST_CASE("bfind finds the most significant non-sign bit and reports 0xffffffff when there is none") {
    CHECK(find_msb(0x00010000, 32, false, false) == 16);
    CHECK(find_msb(0x00010000, 32, false, true) == 15);
    CHECK(find_msb(0, 32, false, false) == 0xffffffffU);
    CHECK(find_msb(0xffffffff, 32, true, false) == 0xffffffffU);
    CHECK(find_msb(0xffff0000, 32, true, false) == 15);
    CHECK(find_msb(0x00400000, 32, true, false) == 22);
    CHECK(find_msb(1ULL << 40, 64, false, false) == 40);
}

TEST_CASE("lop3 evaluates the lookup table bitwise and funnel shifts wrap or clamp their amount") {
    CHECK(lop3(0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa, 0xe8) == 0xe8e8e8e8);
    CHECK(lop3(0x12345678, 0xffff0000, 0x0f0f0f0f, 0x80) == (0x12345678U & 0xffff0000U & 0x0f0f0f0fU));
    CHECK(lop3(0x12345678, 0xffff0000, 0x0f0f0f0f, 0x96) == (0x12345678U ^ 0xffff0000U ^ 0x0f0f0f0fU));
    CHECK(funnel_shift(0x89abcdef, 0x01234567, 8, false, false) == 0x23456789);
    CHECK(funnel_shift(0x89abcdef, 0x01234567, 8, true, false) == 0x6789abcd);
    CHECK(funnel_shift(0x89abcdef, 0x01234567, 40, false, false) == 0x23456789); // wrap: 40 & 31 = 8
    CHECK(funnel_shift(0x89abcdef, 0x01234567, 40, false, true) == 0x89abcdef); // clamp: 32
    CHECK(funnel_shift(0x89abcdef, 0x01234567, 32, true, true) == 0x01234567);
}

TEST_CASE("shifts past the width give zero or the sign fill") {
    CHECK(shift_left(1, 32, 32) == 0);
    CHECK(shift_left(1, 31, 32) == 0x80000000);
    CHECK(shift_right(0x80000000, 40, 32, true) == 0xffffffff);
    CHECK(shift_right(0x80000000, 32, 32, false) == 0);
    CHECK(shift_right(0x8000, 3, 16, true) == 0xf000);
}

TEST_CASE("integer division edge cases: by zero, INT_MIN / -1, and C rounding toward zero") {
    CHECK(int_div<std::uint32_t>(7, 0) == 0xffffffffU);
    CHECK(int_div<std::int32_t>(INT32_MIN, -1) == INT32_MIN);
    CHECK(int_rem<std::int32_t>(INT32_MIN, -1) == 0);
    CHECK(int_rem<std::uint32_t>(7, 0) == 7);
    CHECK(int_div<std::int32_t>(-7, 2) == -3);
    CHECK(int_rem<std::int32_t>(-7, 2) == -1);
    CHECK(mul_hi<std::uint32_t>(0xffffffffU, 0xffffffffU) == 0xfffffffeU);
    CHECK(mul_hi<std::int32_t>(-2, 3) == -1);
    CHECK(mul_hi<std::uint64_t>(1ULL << 63, 4) == 2);
    CHECK(mul_hi<std::int64_t>(-1, 1) == -1);
    CHECK(mul24(0x01000003, 0x02000005, false, false) == 15);
    CHECK(mul24(0xffffff, 0xffffff, false, true) == 0xfffffe00U);
    CHECK(mul24(0x00ffffff, 2, true, false) == 0xfffffffeU);
}

TEST_CASE("PTX carry chains: add.cc/addc and sub.cc/subc build 64-bit arithmetic, madc carries into the high word") {
    const auto r = test::run_body(R"(
        // 0x00000001_ffffffff + 0x00000002_00000001 = 0x00000004_00000000
        add.cc.u32 %r1, 0xffffffff, 1;
        addc.u32 %r2, 1, 2;
        st.global.v2.u32 [%rd62], {%r1, %r2};
        // 0x00000002_00000000 - 0x00000000_00000001 = 0x00000001_ffffffff
        sub.cc.u32 %r3, 0, 1;
        subc.u32 %r4, 2, 0;
        st.global.v2.u32 [%rd62+8], {%r3, %r4};
        // 0xffffffff * 0xffffffff + 0xffffffff: low word 0 with carry, high word 0xfffffffe + carry
        mov.u32 %r5, 0xffffffff;
        mad.lo.cc.u32 %r6, %r5, %r5, %r5;
        madc.hi.u32 %r7, %r5, %r5, 0;
        st.global.v2.u32 [%rd62+16], {%r6, %r7};
        // addc.cc propagates a carry through a third word
        add.cc.u32 %r8, 0xffffffff, 1;
        addc.cc.u32 %r9, 0xffffffff, 0;
        addc.u32 %r10, 0, 0;
        st.global.v2.u32 [%rd62+24], {%r9, %r10};
    )",
                                  32);
    CHECK(r.u32(0) == 0);
    CHECK(r.u32(1) == 4);
    CHECK(r.u32(2) == 0xffffffffU);
    CHECK(r.u32(3) == 1);
    CHECK(r.u32(4) == 0);
    CHECK(r.u32(5) == 0xffffffffU);
    CHECK(r.u32(6) == 0);
    CHECK(r.u32(7) == 1);
}

TEST_CASE("PTX integer arithmetic: saturation, wide and high multiplies, 24-bit forms, abs/neg of INT_MIN") {
    const auto r = test::run_body(R"(
        add.sat.s32 %r1, 2147483647, 1;
        sub.sat.s32 %r2, -2147483648, 1;
        mul.wide.s32 %rd1, -3, 4;
        mul.wide.u32 %rd2, 0xffffffff, 2;
        mul.hi.s32 %r3, -2, 3;
        mad.wide.u32 %rd3, 0xffffffff, 0xffffffff, 1;
        mad.hi.sat.s32 %r4, 0x7fffffff, 0x7fffffff, 0x7fffffff;
        mul24.hi.u32 %r5, 0xffffff, 0xffffff;
        mad24.lo.s32 %r6, 0xffffff, 2, 10;
        abs.s32 %r7, -2147483648;
        neg.s32 %r8, -2147483648;
        min.u32 %r9, 0xffffffff, 1;
        min.s32 %r10, 0xffffffff, 1;
        div.s32 %r11, -2147483648, -1;
        rem.s32 %r12, -7, 2;
        div.u32 %r13, 7, 0;
        st.global.u32 [%rd62], %r1;
        st.global.u32 [%rd62+4], %r2;
        st.global.u64 [%rd62+8], %rd1;
        st.global.u64 [%rd62+16], %rd2;
        st.global.u32 [%rd62+24], %r3;
        st.global.u32 [%rd62+28], %r4;
        st.global.u64 [%rd62+32], %rd3;
        st.global.u32 [%rd62+40], %r5;
        st.global.u32 [%rd62+44], %r6;
        st.global.u32 [%rd62+48], %r7;
        st.global.u32 [%rd62+52], %r8;
        st.global.u32 [%rd62+56], %r9;
        st.global.u32 [%rd62+60], %r10;
        st.global.u32 [%rd62+64], %r11;
        st.global.u32 [%rd62+68], %r12;
        st.global.u32 [%rd62+72], %r13;
    )",
                                  80);
    CHECK(r.u32(0) == 0x7fffffffU);
    CHECK(r.u32(1) == 0x80000000U);
    CHECK(r.u64(1) == 0xfffffffffffffff4ULL);
    CHECK(r.u64(2) == 0x1fffffffeULL);
    CHECK(r.u32(6) == 0xffffffffU);
    CHECK(r.u32(7) == 0x7fffffffU); // hi(0x7fffffff^2) = 0x3fffffff, + 0x7fffffff saturates
    CHECK(r.u64(4) == 0xfffffffe00000002ULL);
    CHECK(r.u32(10) == 0xfffffe00U);
    CHECK(r.u32(11) == 8); // 24-bit -1 * 2 + 10
    CHECK(r.u32(12) == 0x80000000U);
    CHECK(r.u32(13) == 0x80000000U);
    CHECK(r.u32(14) == 1);
    CHECK(r.u32(15) == 0xffffffffU);
    CHECK(r.u32(16) == 0x80000000U);
    CHECK(r.u32(17) == 0xffffffffU); // -1
    CHECK(r.u32(18) == 0xffffffffU);
}

TEST_CASE("PTX bit instructions: popc, clz, brev, bfe, bfi, prmt, lop3, shf, shl/shr past the width, not/cnot") {
    const auto r = test::run_body(R"(
        popc.b64 %r1, 0xf0f0;
        clz.b32 %r2, 0x00010000;
        clz.b32 %r3, 0;
        clz.b64 %r4, 1;
        brev.b32 %r5, 1;
        bfe.s32 %r6, 0x00008000, 8, 8;
        bfi.b32 %r7, 0xff, 0x12345678, 30, 8;
        prmt.b32.f4e %r8, 0x33221100, 0x77665544, 1;
        lop3.b32 %r9, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa, 0xe8;
        shf.l.wrap.b32 %r10, 0x89abcdef, 0x01234567, 8;
        shf.r.clamp.b32 %r11, 0x89abcdef, 0x01234567, 40;
        shl.b32 %r12, 1, 32;
        shr.s32 %r13, 0x80000000, 40;
        shr.u32 %r14, 0x80000000, 31;
        cnot.b32 %r15, 0;
        not.b32 %r16, 0;
        bfind.shiftamt.u32 %r17, 0x00010000;
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.v4.u32 [%rd62+16], {%r5, %r6, %r7, %r8};
        st.global.v4.u32 [%rd62+32], {%r9, %r10, %r11, %r12};
        st.global.v4.u32 [%rd62+48], {%r13, %r14, %r15, %r16};
        st.global.u32 [%rd62+64], %r17;
    )",
                                  68);
    const std::uint32_t expected[] = {8,          15,         32,         63,         0x80000000, 0xffffff80,
                                      0xd2345678, 0x44332211, 0xe8e8e8e8, 0x23456789, 0x01234567, 0,
                                      0xffffffff, 1,          1,          0xffffffff, 15};
    for (unsigned i = 0; i < 17; ++i) {
        INFO("result " << i);
        CHECK(r.u32(i) == expected[i]);
    }
}

TEST_CASE("PTX comparisons: signed vs unsigned setp, bool-op combination with a negated predicate, set, selp, slct") {
    const auto r = test::run_body(R"(
        setp.lt.s32 %p1, -1, 1;
        setp.lt.u32 %p2, -1, 1;
        setp.hi.u32 %p3, -1, 1;
        setp.eq.u32 %p4, 0, 1;
        setp.lt.and.s32 %p5|%p6, 1, 2, !%p4;
        setp.ge.or.s32 %p7|%p8, 1, 2, %p4;
        selp.u32 %r1, 1, 0, %p1;
        selp.u32 %r2, 1, 0, %p2;
        selp.u32 %r3, 1, 0, %p3;
        selp.u32 %r4, 1, 0, %p5;
        selp.u32 %r5, 1, 0, %p6;
        selp.u32 %r6, 1, 0, %p7;
        selp.u32 %r7, 1, 0, %p8;
        set.gt.u32.s32 %r8, 5, -5;
        set.lt.f32.s32 %f1, -5, 5;
        mov.b32 %r9, %f1;
        slct.s32.s32 %r10, 10, 20, -1;
        slct.s32.s32 %r11, 10, 20, 0;
        slct.s32.f32 %r12, 10, 20, 0f80000000;
        slct.s32.f32 %r13, 10, 20, 0f7fffffff;
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.v4.u32 [%rd62+16], {%r5, %r6, %r7, %r8};
        st.global.v4.u32 [%rd62+32], {%r9, %r10, %r11, %r12};
        st.global.u32 [%rd62+48], %r13;
    )",
                                  52);
    const std::uint32_t expected[] = {1, 0, 1, 1, 0, 0, 1, 0xffffffff, 0x3f800000, 20, 10, 10, 20};
    for (unsigned i = 0; i < 13; ++i) {
        INFO("result " << i);
        CHECK(r.u32(i) == expected[i]);
    }
}

TEST_CASE("PTX integer cvt: sign/zero extension by the source type, truncation, and .sat clamping") {
    const auto r = test::run_body(R"(
        mov.u32 %r20, 0x1ff80;
        cvt.s32.s8 %r1, %r20;       // low byte 0x80, sign-extended
        shr.u32 %r21, %r20, 7;
        cvt.u32.u8 %r2, %r21;       // 0x3ff: the low byte 0xff only
        cvt.sat.s32.u32 %r3, 0xffffffff;
        cvt.u16.u32 %h1, 0x12345;
        cvt.u32.u16 %r4, %h1;
        cvt.sat.u8.s32 %h2, -5;
        cvt.u32.u16 %r5, %h2;
        cvt.sat.u8.s32 %h3, 300;
        cvt.u32.u16 %r6, %h3;
        cvt.sat.s8.s32 %h4, 300;
        cvt.u32.u16 %r7, %h4;
        cvt.s64.s32 %rd1, -1;
        cvt.sat.u64.s64 %rd2, -1;
        cvt.sat.s64.u64 %rd3, 0xffffffffffffffff;
        cvt.u64.u32 %rd4, 0xffffffff;
        st.global.v4.u32 [%rd62], {%r1, %r2, %r3, %r4};
        st.global.v4.u32 [%rd62+16], {%r5, %r6, %r7, %r7};
        st.global.v2.u64 [%rd62+32], {%rd1, %rd2};
        st.global.v2.u64 [%rd62+48], {%rd3, %rd4};
    )",
                                  64);
    CHECK(r.u32(0) == 0xffffff80U);
    CHECK(r.u32(1) == 0xff);
    CHECK(r.u32(2) == 0x7fffffffU);
    CHECK(r.u32(3) == 0x2345);
    CHECK(r.u32(4) == 0);
    CHECK(r.u32(5) == 255);
    CHECK(r.u32(6) == 127);
    CHECK(r.u64(4) == ~0ULL);
    CHECK(r.u64(5) == 0);
    CHECK(r.u64(6) == 0x7fffffffffffffffULL);
    CHECK(r.u64(7) == 0xffffffffULL);
}

TEST_CASE("PTX sub-word loads sign- or zero-extend into the wider destination register") {
    const auto r = test::run_body(R"(
        ld.global.s8 %r1, [%rd63];
        ld.global.u8 %r2, [%rd63];
        ld.global.s16 %r3, [%rd63];
        ld.global.s8 %rd1, [%rd63];
        st.global.v2.u32 [%rd62], {%r1, %r2};
        st.global.u32 [%rd62+8], %r3;
        st.global.u64 [%rd62+16], %rd1;
    )",
                                  24, test::bytes_of(std::vector<std::uint8_t>{0x80, 0xff, 0, 0}));
    CHECK(r.u32(0) == 0xffffff80U);
    CHECK(r.u32(1) == 0x80);
    CHECK(r.u32(2) == 0xffffff80U);
    CHECK(r.u64(2) == 0xffffffffffffff80ULL);
}

// Byte-wise and dot-product semantics at the edges of their element types, each value worked by hand from the
// PTX ISA pseudo-code (the feature kernel byte_dot checks the same functions on nvcc's output).
TEST_CASE("dp4a and dp2a extend each element by its own operand's type and wrap the sum modulo 2^32") {
    // Signed bytes: 4 x (-128 x -128) = 65536.
    CHECK(dot4a(0x80808080U, 0x80808080U, 0, true, true) == 65536U);
    // Unsigned bytes: 4 x 255 x 255 + 4 = 260104.
    CHECK(dot4a(0xffffffffU, 0xffffffffU, 4, false, false) == 260104U);
    // Unsigned a against signed b: 4 x (255 x -1) = -1020.
    CHECK(dot4a(0xffffffffU, 0xffffffffU, 0, false, true) == static_cast<std::uint32_t>(-1020));
    // c wraps: 0xffffffff + 1 x 1 = 0.
    CHECK(dot4a(0x00000001U, 0x00000001U, 0xffffffffU, false, false) == 0U);
    // a's halves are 32767 (low) and -32768 (high) as .s32; b's bytes are -128, -1, 2, 1 as .s32.
    CHECK(dot2a(0x80007fffU, 0x0102ff80U, 0, true, true, false) ==
          static_cast<std::uint32_t>(32767 * -128 + -32768 * -1));
    CHECK(dot2a(0x80007fffU, 0x0102ff80U, 10, true, true, true) ==
          static_cast<std::uint32_t>(10 + 32767 * 2 + -32768 * 1));
    // The same halves unsigned (32767, 32768) against unsigned bytes 2 and 1.
    CHECK(dot2a(0x80007fffU, 0x0102ff80U, 0, false, false, true) == 32767U * 2 + 32768U * 1);
}

TEST_CASE(
    "vabsdiff4 merges byte differences or accumulates them unclamped; .sat clamps to the destination byte range") {
    // Byte 0: 127 against -128 (signed): 255. Without .sat its low byte is merged, with .sat on .s32 it clamps to 127.
    CHECK(vabsdiff4(0x0000007fU, 0x00000080U, 0, true, true, true, false, false) == 0x000000ffU);
    CHECK(vabsdiff4(0x0000007fU, 0x00000080U, 0, true, true, true, true, false) == 0x0000007fU);
    // Unsigned: |0x7f - 0x80| = 1 per byte.
    CHECK(vabsdiff4(0x7f7f7f7fU, 0x80808080U, 0, false, false, false, false, false) == 0x01010101U);
    // Unsigned a (255) against signed b (-1): 256, whose low byte is 0 in the merge form; .add keeps 256.
    CHECK(vabsdiff4(0x000000ffU, 0x000000ffU, 0, false, true, false, false, false) == 0U);
    CHECK(vabsdiff4(0x000000ffU, 0x000000ffU, 100, false, true, false, false, true) == 356U);
    // __vsadu4: the sum of the four unsigned byte differences, plus c.
    CHECK(vabsdiff4(0x10203040U, 0x40302010U, 1, false, false, false, false, true) == 1U + 0x30 + 0x10 + 0x10 + 0x30);
}

TEST_CASE("sad adds |a - b| to c at the instruction's width and signedness") {
    CHECK(sum_abs_diff(0x80000000U, 0x7fffffffU, 0, 32, true) == 0xffffffffU); // |INT_MIN - INT_MAX| = 2^32 - 1
    CHECK(sum_abs_diff(0x80000000U, 0x7fffffffU, 0, 32, false) == 1U); // unsigned: they are adjacent
    CHECK(sum_abs_diff(0, 0xffff, 1, 16, false) == 0U); // 0xffff + 1 wraps at 16 bits
    CHECK(sum_abs_diff(0, 0xffff, 1, 16, true) == 2U); // signed: |0 - (-1)| + 1
    CHECK(sum_abs_diff(~std::uint64_t{0} - 4, 5, 3, 64, true) == 13U); // |-5 - 5| + 3
}
