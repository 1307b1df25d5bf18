// Byte-wise and dot-product integer instructions nvcc emits for the SIMD and dot-product intrinsics: vabsdiff4
// (__vabsdiffu4, __vabsdiffs4 and, in its accumulate form, __vsadu4), dp4a (__dp4a), dp2a (__dp2a_lo, __dp2a_hi) and
// sad (__sad, __usad); plus, as inline PTX, the forms no intrinsic reaches (mixed-sign dp4a, vabsdiff4 with .sat and
// signed sources, signed 64-bit sad).
extern "C" __global__ void byte_dot(const unsigned* a, const unsigned* b, unsigned* out) {
    const int t = threadIdx.x;
    const unsigned x = a[t], y = b[t];
    unsigned* o = out + t * 14;
    o[0] = __vabsdiffu4(x, y);
    o[1] = __vabsdiffs4(x, y);
    o[2] = __vsadu4(x, y);
    o[3] = __dp4a(static_cast<int>(x), static_cast<int>(y), t - 7);
    o[4] = __dp4a(x, y, static_cast<unsigned>(t));
    o[5] = __dp2a_lo(static_cast<int>(x), static_cast<int>(y), -t);
    o[6] = __dp2a_hi(x, y, static_cast<unsigned>(t));
    o[7] = static_cast<unsigned>(__sad(static_cast<int>(x), static_cast<int>(y), 3u));
    o[8] = __usad(x, y, static_cast<unsigned>(t));
    unsigned mixed, saturated, merged;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(mixed) : "r"(x), "r"(y), "r"(t));
    asm("vabsdiff4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(saturated) : "r"(x), "r"(y), "r"(0u));
    asm("vabsdiff4.u32.s32.u32.add %0, %1, %2, %3;" : "=r"(merged) : "r"(x), "r"(y), "r"(100u));
    o[9] = mixed;
    o[10] = saturated;
    o[11] = merged;
    long long wide;
    asm("sad.s64 %0, %1, %2, %3;" : "=l"(wide) : "l"(static_cast<long long>(static_cast<int>(x)) << 20),
        "l"(static_cast<long long>(static_cast<int>(y))), "l"(-5ll));
    o[12] = static_cast<unsigned>(wide);
    o[13] = static_cast<unsigned>(wide >> 32);
}
