#pragma once
// Clock-domain crossing by a fractional accumulator. The memory system is ticked once per core cycle; each
// other domain (interconnect, L2, DRAM) advances by domain_freq / core_freq cycles per core cycle on average.
// Contract: frequencies are rounded to whole kHz and the accumulator is an integer, so the tick pattern is
// exact and identical on every run and platform (no floating point on the per-cycle path).
#include <cmath>
#include <cstdint>
#include <string>

#include <gpuarch/core/cycle.hpp>
#include <gpuarch/core/error.hpp>

namespace gpuarch::mem {

class ClockDomain {
public:
    ClockDomain() : ClockDomain(core::ClockMHz{1.0}, core::ClockMHz{1.0}) {}
    ClockDomain(core::ClockMHz domain, core::ClockMHz core_clock)
        : domain_khz_(to_khz(domain, "domain")), core_khz_(to_khz(core_clock, "core")),
          most_ticks_((~std::uint64_t{0} - domain_khz_) / core_khz_) {}

    // Domain cycles that elapse during the next core cycle: floor of the accumulated fraction.
    std::uint32_t advance() {
        accumulator_ += domain_khz_;
        std::uint32_t ticks = 0;
        while (accumulator_ >= core_khz_) {
            accumulator_ -= core_khz_;
            ++ticks;
        }
        return ticks;
    }
    // The number of further advance() calls after which `ticks` (>= 1) more domain cycles will have elapsed: the
    // domain's `ticks`-th next cycle falls in the core cycle of that call. Exact, from the accumulator: after j
    // calls floor((accumulator + j * domain) / core) cycles have elapsed (the accumulator stays below core).
    // Saturates at the largest value instead of overflowing.
    // The memory system asks this of every awake partition in every cycle: the overflow bound is kept, not divided.
    std::uint64_t calls_until(std::uint64_t ticks) const {
        if (ticks == 0) return 0;
        if (ticks > most_ticks_) return ~std::uint64_t{0};
        return (ticks * core_khz_ - accumulator_ + domain_khz_ - 1) / domain_khz_;
    }
    std::uint64_t domain_khz() const { return domain_khz_; }
    std::uint64_t core_khz() const { return core_khz_; }

private:
    static std::uint64_t to_khz(core::ClockMHz f, const char* what) {
        if (!(f.value > 0) || !std::isfinite(f.value))
            throw Error(std::string("the ") + what + " clock must be a positive frequency in MHz");
        const auto khz = static_cast<std::uint64_t>(std::llround(f.value * 1000.0));
        if (khz == 0) throw Error(std::string("the ") + what + " clock is below 1 kHz");
        return khz;
    }
    std::uint64_t domain_khz_;
    std::uint64_t core_khz_;
    std::uint64_t most_ticks_; // the largest `ticks` whose calls_until does not overflow
    std::uint64_t accumulator_ = 0;
};

} // namespace gpuarch::mem
