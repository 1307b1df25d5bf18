// The software IEEE arithmetic against the host FPU run under each rounding direction (the host is IEEE-754
// compliant for binary32/binary64 in every direction), and half-precision cases computed by hand.
#include <doctest/doctest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <ios>
#include <random>

#include <gpuarch/func/softfloat.hpp>

using namespace gpuarch::func;

namespace {

// Keeps the compiler from moving an operation across fesetround: every value goes through memory that an opaque
// volatile asm statement may read and write.
template <class T> void pin(T& v) { asm volatile("" : "+m"(v)); }

int host_mode(RoundMode m) {
    switch (m) {
    case RoundMode::nearest_even: return FE_TONEAREST;
    case RoundMode::toward_zero: return FE_TOWARDZERO;
    case RoundMode::down: return FE_DOWNWARD;
    case RoundMode::up: return FE_UPWARD;
    case RoundMode::nearest_away: break;
    }
    return FE_TONEAREST;
}

template <class T, class Op> T host_under(RoundMode m, Op op) {
    std::fesetround(host_mode(m));
    T r = op();
    pin(r);
    std::fesetround(FE_TONEAREST);
    return r;
}

// Random bit patterns biased toward interesting exponents: subnormals, near-overflow, and close exponents.
std::uint32_t random_f32(std::mt19937_64& rng) {
    const std::uint32_t bits = static_cast<std::uint32_t>(rng());
    switch (rng() % 8) {
    case 0: return bits & 0x807fffffU; // subnormal or zero
    case 1: return (bits & 0x80ffffffU) | 0x7e000000U; // near overflow
    case 2: return (bits & 0x807fffffU) | 0x3f800000U; // [1, 2)
    case 3: return (bits & 0x807fffffU) | (0x3f000000U + ((bits >> 8) & 0x01800000U));
    default: return bits;
    }
}
std::uint64_t random_f64(std::mt19937_64& rng) {
    const std::uint64_t bits = rng();
    switch (rng() % 8) {
    case 0: return bits & 0x800fffffffffffffULL;
    case 1: return (bits & 0x801fffffffffffffULL) | 0x7fc0000000000000ULL;
    case 2: return (bits & 0x800fffffffffffffULL) | 0x3ff0000000000000ULL;
    case 3: return (bits & 0x800fffffffffffffULL) | 0x3fe0000000000000ULL;
    default: return bits;
    }
}

bool same_f32(std::uint32_t soft, float host) {
    if (std::isnan(host)) return soft == 0x7fffffffU;
    return soft == std::bit_cast<std::uint32_t>(host);
}
bool same_f64(std::uint64_t soft, double host) {
    if (std::isnan(host)) return soft == 0x7fffffffffffffffULL;
    return soft == std::bit_cast<std::uint64_t>(host);
}

constexpr RoundMode directed_and_nearest[] = {RoundMode::nearest_even, RoundMode::toward_zero, RoundMode::down,
                                              RoundMode::up};

} // namespace

TEST_CASE("binary32 add, mul, div, sqrt and fma round exactly like the host FPU in all four directions") {
    std::mt19937_64 rng(1234);
    for (RoundMode m : directed_and_nearest) {
        for (int i = 0; i < 20000; ++i) {
            const std::uint32_t xa = random_f32(rng), xb = random_f32(rng), xc = random_f32(rng);
            float a = std::bit_cast<float>(xa), b = std::bit_cast<float>(xb), c = std::bit_cast<float>(xc);
            pin(a);
            pin(b);
            pin(c);
            const float sum = host_under<float>(m, [&] {
                float r = a + b;
                pin(r);
                return r;
            });
            const float dif = host_under<float>(m, [&] {
                float r = a - b;
                pin(r);
                return r;
            });
            const float prd = host_under<float>(m, [&] {
                float r = a * b;
                pin(r);
                return r;
            });
            const float quo = host_under<float>(m, [&] {
                float r = a / b;
                pin(r);
                return r;
            });
            const float sq = host_under<float>(m, [&] {
                float r = std::sqrt(a);
                pin(r);
                return r;
            });
            const float fm = host_under<float>(m, [&] {
                float r = std::fma(a, b, c);
                pin(r);
                return r;
            });
            INFO("mode " << int(m) << " a=" << std::hex << xa << " b=" << xb << " c=" << xc);
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_add(xa, xb, f32_format, m, false)), sum));
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_sub(xa, xb, f32_format, m, false)), dif));
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_mul(xa, xb, f32_format, m, false)), prd));
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_div(xa, xb, f32_format, m, false)), quo));
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_sqrt(xa, f32_format, m, false)), sq));
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_fma(xa, xb, xc, f32_format, m, false)), fm));
        }
    }
}

TEST_CASE("binary64 add, mul, div, sqrt and fma round exactly like the host FPU in all four directions") {
    std::mt19937_64 rng(99);
    for (RoundMode m : directed_and_nearest) {
        for (int i = 0; i < 20000; ++i) {
            const std::uint64_t xa = random_f64(rng), xb = random_f64(rng), xc = random_f64(rng);
            double a = std::bit_cast<double>(xa), b = std::bit_cast<double>(xb), c = std::bit_cast<double>(xc);
            pin(a);
            pin(b);
            pin(c);
            const double sum = host_under<double>(m, [&] {
                double r = a + b;
                pin(r);
                return r;
            });
            const double prd = host_under<double>(m, [&] {
                double r = a * b;
                pin(r);
                return r;
            });
            const double quo = host_under<double>(m, [&] {
                double r = a / b;
                pin(r);
                return r;
            });
            const double sq = host_under<double>(m, [&] {
                double r = std::sqrt(a);
                pin(r);
                return r;
            });
            const double fm = host_under<double>(m, [&] {
                double r = std::fma(a, b, c);
                pin(r);
                return r;
            });
            INFO("mode " << int(m) << " a=" << std::hex << xa << " b=" << xb << " c=" << xc);
            REQUIRE(same_f64(soft_add(xa, xb, f64_format, m, false), sum));
            REQUIRE(same_f64(soft_mul(xa, xb, f64_format, m, false), prd));
            REQUIRE(same_f64(soft_div(xa, xb, f64_format, m, false), quo));
            REQUIRE(same_f64(soft_sqrt(xa, f64_format, m, false), sq));
            REQUIRE(same_f64(soft_fma(xa, xb, xc, f64_format, m, false), fm));
        }
    }
}

TEST_CASE("fma cancellation with a far smaller addend rounds by the sticky addend in every direction") {
    const std::uint64_t one = 0x3ff0000000000000ULL;
    const std::uint64_t tiny = 0x0000000000000001ULL; // smallest subnormal
    // 1 * 1 - tiny: just below 1, so toward zero / down give the predecessor of 1, nearest and up give 1.
    const std::uint64_t minus_tiny = tiny | 0x8000000000000000ULL;
    CHECK(soft_fma(one, one, minus_tiny, f64_format, RoundMode::nearest_even, false) == one);
    CHECK(soft_fma(one, one, minus_tiny, f64_format, RoundMode::up, false) == one);
    CHECK(soft_fma(one, one, minus_tiny, f64_format, RoundMode::toward_zero, false) == one - 1);
    CHECK(soft_fma(one, one, minus_tiny, f64_format, RoundMode::down, false) == one - 1);
    CHECK(soft_fma(one, one, tiny, f64_format, RoundMode::up, false) == one + 1);
}

TEST_CASE("narrowing conversions from binary64 to binary32 match the host in all four directions") {
    std::mt19937_64 rng(7);
    for (RoundMode m : directed_and_nearest) {
        for (int i = 0; i < 50000; ++i) {
            std::uint64_t x = rng();
            if (i % 3 == 0) x = (x & 0x800fffffffffffffULL) | ((0x380ULL + rng() % 0x100) << 52); // near f32 range
            double d = std::bit_cast<double>(x);
            pin(d);
            const float host = host_under<float>(m, [&] {
                float r = static_cast<float>(d);
                pin(r);
                return r;
            });
            INFO(std::hex << x);
            REQUIRE(same_f32(static_cast<std::uint32_t>(soft_convert(x, f64_format, f32_format, m, false)), host));
        }
    }
}

TEST_CASE("binary16 conversions round to nearest even and saturate to infinity past 65504") {
    auto to_half = [](float v, RoundMode m = RoundMode::nearest_even) {
        return soft_convert(std::bit_cast<std::uint32_t>(v), f32_format, f16_format, m, false);
    };
    CHECK(to_half(1.0f) == 0x3c00);
    CHECK(to_half(-2.0f) == 0xc000);
    CHECK(to_half(65504.0f) == 0x7bff);
    CHECK(to_half(65520.0f) == 0x7c00); // halfway to 2^16 rounds to even: infinity
    CHECK(to_half(65519.0f) == 0x7bff);
    CHECK(to_half(65520.0f, RoundMode::toward_zero) == 0x7bff); // directed rounding stops at the largest finite
    CHECK(to_half(1.0f + 1.0f / 2048) == 0x3c00); // exact tie between 1 and 1+2^-10: even
    CHECK(to_half(1.0f + 3.0f / 2048) == 0x3c02); // tie between odd and even: to even
    CHECK(to_half(std::ldexp(1.0f, -24)) == 0x0001); // smallest subnormal
    CHECK(to_half(std::ldexp(1.0f, -25)) == 0x0000); // half of it: tie to even zero
    CHECK(to_half(std::ldexp(1.5f, -25)) == 0x0001);
    CHECK(to_half(std::ldexp(1.0f, -25), RoundMode::up) == 0x0001);
    CHECK(to_half(std::nanf("")) == 0x7fff);
    CHECK(soft_convert(0x3555, f16_format, f32_format, RoundMode::nearest_even, false) ==
          std::bit_cast<std::uint32_t>(0.333251953125f));
    CHECK(soft_convert(0x0001, f16_format, f32_format, RoundMode::nearest_even, false) ==
          std::bit_cast<std::uint32_t>(std::ldexp(1.0f, -24)));
    CHECK(soft_convert(0x0001, f16_format, f32_format, RoundMode::nearest_even, true) == 0); // ftz input
}

TEST_CASE("bfloat16 conversions keep the f32 exponent range and round the fraction to 7 bits") {
    auto to_bf16 = [](std::uint32_t bits, RoundMode m) {
        return soft_convert(bits, f32_format, bf16_format, m, false);
    };
    CHECK(to_bf16(0x3f800000, RoundMode::nearest_even) == 0x3f80);
    CHECK(to_bf16(0x3f808000, RoundMode::nearest_even) == 0x3f80); // tie, even
    CHECK(to_bf16(0x3f818000, RoundMode::nearest_even) == 0x3f82); // tie, odd -> up
    CHECK(to_bf16(0x3f808001, RoundMode::nearest_even) == 0x3f81);
    CHECK(to_bf16(0x3f80ffff, RoundMode::toward_zero) == 0x3f80);
    CHECK(to_bf16(0x7f7fffff, RoundMode::nearest_even) == 0x7f80); // rounds up to infinity
    CHECK(to_bf16(0x7f7fffff, RoundMode::toward_zero) == 0x7f7f);
}

TEST_CASE("float to integer conversion saturates, maps NaN to zero, and honours the integer rounding mode") {
    auto f = [](float v) { return static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(v)); };
    CHECK(soft_to_integer(f(2.5f), f32_format, RoundMode::nearest_even, true, 32, false) == 2);
    CHECK(soft_to_integer(f(3.5f), f32_format, RoundMode::nearest_even, true, 32, false) == 4);
    CHECK(soft_to_integer(f(-2.5f), f32_format, RoundMode::down, true, 32, false) == 0xfffffffdULL);
    CHECK(soft_to_integer(f(-2.5f), f32_format, RoundMode::up, true, 32, false) == 0xfffffffeULL);
    CHECK(soft_to_integer(f(-2.5f), f32_format, RoundMode::toward_zero, true, 32, false) == 0xfffffffeULL);
    CHECK(soft_to_integer(f(3e9f), f32_format, RoundMode::toward_zero, true, 32, false) == 0x7fffffffULL);
    CHECK(soft_to_integer(f(-3e9f), f32_format, RoundMode::toward_zero, true, 32, false) == 0x80000000ULL);
    CHECK(soft_to_integer(f(-1.0f), f32_format, RoundMode::toward_zero, false, 32, false) == 0);
    CHECK(soft_to_integer(f(300.0f), f32_format, RoundMode::toward_zero, false, 8, false) == 255);
    CHECK(soft_to_integer(f(-300.0f), f32_format, RoundMode::toward_zero, true, 8, false) == 0x80);
    CHECK(soft_to_integer(f(std::nanf("")), f32_format, RoundMode::toward_zero, true, 32, false) == 0);
    CHECK(soft_to_integer(f(INFINITY), f32_format, RoundMode::toward_zero, false, 64, false) == ~0ULL);
    CHECK(soft_to_integer(0x43e0000000000000ULL /* 2^63 */, f64_format, RoundMode::toward_zero, true, 64, false) ==
          0x7fffffffffffffffULL);
    CHECK(soft_to_integer(0xc3e0000000000000ULL /* -2^63 */, f64_format, RoundMode::toward_zero, true, 64, false) ==
          0x8000000000000000ULL);
    CHECK(soft_to_integer(0x43e0000000000000ULL, f64_format, RoundMode::toward_zero, false, 64, false) ==
          0x8000000000000000ULL);
}

TEST_CASE("rounding to an integral value keeps the sign of zero and the format") {
    auto f = [](float v) { return static_cast<std::uint64_t>(std::bit_cast<std::uint32_t>(v)); };
    CHECK(soft_round_integral(f(-0.3f), f32_format, RoundMode::nearest_even, false) == f(-0.0f));
    CHECK(soft_round_integral(f(2.5f), f32_format, RoundMode::nearest_even, false) == f(2.0f));
    CHECK(soft_round_integral(f(2.5f), f32_format, RoundMode::up, false) == f(3.0f));
    CHECK(soft_round_integral(f(-2.5f), f32_format, RoundMode::down, false) == f(-3.0f));
    CHECK(soft_round_integral(f(1e20f), f32_format, RoundMode::toward_zero, false) == f(1e20f));
}

TEST_CASE("integer to float conversion rounds in the requested direction") {
    const std::uint64_t big = (1ULL << 24) + 1; // not representable in binary32
    CHECK(soft_from_integer(false, big, f32_format, RoundMode::nearest_even, false) ==
          std::bit_cast<std::uint32_t>(16777216.0f));
    CHECK(soft_from_integer(false, big, f32_format, RoundMode::up, false) == std::bit_cast<std::uint32_t>(16777218.0f));
    CHECK(soft_from_integer(true, big, f32_format, RoundMode::down, false) ==
          std::bit_cast<std::uint32_t>(-16777218.0f));
    CHECK(soft_from_integer(false, ~0ULL, f64_format, RoundMode::toward_zero, false) == 0x43efffffffffffffULL);
    CHECK(soft_from_integer(false, 70000, f16_format, RoundMode::nearest_even, false) == 0x7c00);
}
