#pragma once
// Shared pieces of the kernel corpus drivers: sizes, results, the deterministic input generator, RAII device
// buffers and the result comparisons.
//
// Contract for every driver `run_<name>(device, module, launch, size)`:
//  - inputs come from SplitMix64 with a fixed seed per kernel, so every run (and every host) sees the same data;
//  - outputs are poisoned (all bytes 0xFF: NaN for float, -1 for int) before the launch, so an element the kernel
//    never writes cannot pass by accident;
//  - integers compare bit-exactly; floats compare exactly (operator==, so +0 == -0) wherever the CPU reference
//    performs the same IEEE operations in the same order as the PTX, else within a bound stated at the call;
//  - the CPU reference mirrors the PTX arithmetic: where nvcc contracted a*b+c into fma.rn.f32 the reference calls
//    std::fma, and a product that PTX rounds before an add goes through mul_rn (a host compiler allowed to
//    contract would otherwise fuse it and round differently from the PTX).
#include <gpuarch/func/host.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpuarch::kernels {

// Two input sizes per kernel: `small` runs in well under 0.1 s in the functional simulator; `large` executes a few
// 10^5 to ~10^7 thread instructions, enough for timing runs to reach a steady state.
enum class Size { small, large };

struct CaseResult {
    bool passed = false;
    std::string message; // empty when passed; else the first mismatches, with index and values
    std::uint64_t values_checked = 0; // output elements compared against the CPU reference
};

constexpr std::string_view size_name(Size size) { return size == Size::small ? "small" : "large"; }

constexpr std::uint32_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return static_cast<std::uint32_t>((a + b - 1) / b);
}

// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a 64-bit
// Weyl sequence through a bijective mixer. Chosen over std::rand / <random> distributions because its output is
// fully specified, so inputs are identical on every platform and standard library.
class SplitMix64 {
public:
    explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}

    constexpr std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

    constexpr std::uint32_t next_u32() { return static_cast<std::uint32_t>(next() >> 32); }

    // Uniform integer in [0, bound) by multiply-shift (Lemire 2019); the bias below 2^-32 is irrelevant here.
    constexpr std::uint32_t below(std::uint32_t bound) {
        return static_cast<std::uint32_t>((static_cast<std::uint64_t>(next_u32()) * bound) >> 32);
    }

    // Uniform integer in [lo, hi], both inclusive.
    constexpr std::int32_t uniform_int(std::int32_t lo, std::int32_t hi) {
        return lo + static_cast<std::int32_t>(below(static_cast<std::uint32_t>(hi - lo) + 1U));
    }

    // Uniform float in [lo, hi). u has 24 random bits, so (hi - lo) * u is exact in double and the single
    // rounding to float makes the value independent of host FP contraction.
    float uniform(float lo, float hi) {
        const double u = static_cast<double>(next() >> 40) * 0x1p-24;
        return static_cast<float>(static_cast<double>(lo) + (static_cast<double>(hi) - static_cast<double>(lo)) * u);
    }

private:
    std::uint64_t state_;
};

// A float product rounded on its own. Out of line so that no host compiler, whatever its -ffp-contract setting,
// can fuse it into a later add: for references that mirror a PTX mul.f32 whose result feeds add.f32.
[[gnu::noinline]] inline float mul_rn(float a, float b) { return a * b; }

inline func::LaunchConfig config_1d(std::uint32_t grid, std::uint32_t block, std::uint32_t dynamic_shared_bytes = 0) {
    return func::LaunchConfig{func::Dim3{grid, 1, 1}, func::Dim3{block, 1, 1}, dynamic_shared_bytes};
}

inline func::LaunchConfig config_2d(std::uint32_t grid_x, std::uint32_t grid_y, std::uint32_t block_x,
                                    std::uint32_t block_y) {
    return func::LaunchConfig{func::Dim3{grid_x, grid_y, 1}, func::Dim3{block_x, block_y, 1}, 0};
}

inline std::vector<float> random_floats(SplitMix64& rng, std::size_t count, float lo, float hi) {
    std::vector<float> values(count);
    for (float& v : values) v = rng.uniform(lo, hi);
    return values;
}

inline std::vector<std::int32_t> random_ints(SplitMix64& rng, std::size_t count, std::int32_t lo, std::int32_t hi) {
    std::vector<std::int32_t> values(count);
    for (std::int32_t& v : values) v = rng.uniform_int(lo, hi);
    return values;
}

// One device allocation, freed on scope exit (also when a launch throws).
class DeviceBuffer {
public:
    DeviceBuffer(func::Device& device, std::size_t bytes)
        : device_(&device), bytes_(bytes), ptr_(device.malloc(bytes)) {}

    template <class T>
    DeviceBuffer(func::Device& device, std::span<const T> host) : DeviceBuffer(device, host.size_bytes()) {
        device.copy_in(ptr_, host.data(), host.size_bytes());
    }

    template <class T>
    DeviceBuffer(func::Device& device, const std::vector<T>& host) : DeviceBuffer(device, std::span<const T>(host)) {}

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept
        : device_(other.device_), bytes_(other.bytes_), ptr_(std::exchange(other.ptr_, func::DevPtr{0})) {}
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
        if (this != &other) {
            release();
            device_ = other.device_;
            bytes_ = other.bytes_;
            ptr_ = std::exchange(other.ptr_, func::DevPtr{0});
        }
        return *this;
    }
    ~DeviceBuffer() { release(); }

    func::DevPtr ptr() const { return ptr_; }
    std::size_t bytes() const { return bytes_; }

    // Fills every byte with 0xFF: NaN as float/double, -1 as a signed integer.
    void poison() { device_->memset(ptr_, 0xFF, bytes_); }
    void zero() { device_->memset(ptr_, 0, bytes_); }

    template <class T> void upload(std::span<const T> host) { device_->copy_in(ptr_, host.data(), host.size_bytes()); }

    template <class T> std::vector<T> download(std::size_t count) const {
        std::vector<T> host(count);
        device_->copy_out(host.data(), ptr_, count * sizeof(T));
        return host;
    }

private:
    void release() noexcept {
        if (ptr_ == 0) return;
        try {
            device_->free(ptr_);
        } catch (...) {
            // A failing free during unwinding must not terminate; the device is torn down with the test anyway.
        }
        ptr_ = 0;
    }

    func::Device* device_;
    std::size_t bytes_;
    func::DevPtr ptr_;
};

inline DeviceBuffer poisoned_buffer(func::Device& device, std::size_t bytes) {
    DeviceBuffer buffer(device, bytes);
    buffer.poison();
    return buffer;
}

namespace detail {

template <class T> std::string show_value(T value) {
    std::ostringstream out;
    if constexpr (std::is_floating_point_v<T>) {
        out.precision(std::numeric_limits<T>::max_digits10);
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        out << value << " (0x" << std::hex << std::bit_cast<Bits>(value) << ')';
    } else if constexpr (sizeof(T) == 1) {
        out << static_cast<int>(value);
    } else {
        out << value;
    }
    return out.str();
}

} // namespace detail

// Accumulates the comparisons of one case; reports the first few mismatches of each output.
class Checker {
public:
    static constexpr std::size_t max_reported = 4;

    // Bit-exact for integers; operator== for floating point (+0 == -0, NaN never matches).
    template <class T> void exact(std::string_view what, std::span<const T> got, std::span<const T> want) {
        compare(
            what, got, want, [](T g, T w) { return g == w; }, "");
    }
    template <class T> void exact(std::string_view what, const std::vector<T>& got, const std::vector<T>& want) {
        exact(what, std::span<const T>(got), std::span<const T>(want));
    }

    // |got - want| <= abs_tol + rel_tol * |want|, for results whose summation order differs from the reference.
    template <class T>
    void near(std::string_view what, const std::vector<T>& got, const std::vector<T>& want, double rel_tol,
              double abs_tol) {
        std::ostringstream bound;
        bound << " (bound: rel " << rel_tol << ", abs " << abs_tol << ')';
        compare(
            what, std::span<const T>(got), std::span<const T>(want),
            [=](T g, T w) {
                const double diff = std::fabs(static_cast<double>(g) - static_cast<double>(w));
                return diff <= abs_tol + rel_tol * std::fabs(static_cast<double>(w));
            },
            bound.str());
    }

    // A scalar property of the run (a level count, a counter) that must hold.
    void expect(bool condition, std::string_view description) {
        ++checked_;
        if (!condition) fail(std::string(description));
    }

    CaseResult result() const { return CaseResult{failures_ == 0, message_, checked_}; }

private:
    template <class T, class Equal>
    void compare(std::string_view what, std::span<const T> got, std::span<const T> want, Equal equal,
                 const std::string& suffix) {
        if (got.size() != want.size()) {
            fail(std::string(what) + ": got " + std::to_string(got.size()) + " values, want " +
                 std::to_string(want.size()));
            return;
        }
        std::size_t mismatches = 0;
        std::string first;
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (equal(got[i], want[i])) continue;
            if (mismatches < max_reported) {
                first += "\n  " + std::string(what) + '[' + std::to_string(i) + "]: got " + detail::show_value(got[i]) +
                         ", want " + detail::show_value(want[i]);
            }
            ++mismatches;
        }
        checked_ += got.size();
        if (mismatches != 0) {
            fail(std::string(what) + ": " + std::to_string(mismatches) + " of " + std::to_string(got.size()) +
                 " values differ" + suffix + first);
        }
    }

    void fail(std::string text) {
        ++failures_;
        if (!message_.empty()) message_ += '\n';
        message_ += std::move(text);
    }

    std::uint64_t checked_ = 0;
    std::size_t failures_ = 0;
    std::string message_;
};

} // namespace gpuarch::kernels
