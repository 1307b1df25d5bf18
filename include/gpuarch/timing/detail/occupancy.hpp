#pragma once
// CTA residency of one core under the CUDA occupancy rules (threads, warps, CTAs, registers and shared memory per
// SM), shared by SM and BarrelSM: `Limits` is the core's Frontend (max_ctas, max_warps, max_threads, max_registers,
// max_shared_bytes).
#include <algorithm>

#include <gpuarch/timing/cta_shape.hpp>

namespace gpuarch::timing::detail {

template <class Limits> class Occupancy {
public:
    bool can_accept(const CtaShape& shape) const {
        return resident_ctas_ < Limits::max_ctas && used_warps_ + shape.warps <= Limits::max_warps &&
               used_threads_ + shape.threads <= Limits::max_threads &&
               used_registers_ + shape.registers <= Limits::max_registers &&
               used_shared_ + shape.shared_bytes <= Limits::max_shared_bytes;
    }
    // Maximum CTAs of this shape one core holds at once (0: the CTA does not fit at all).
    static unsigned max_resident(const CtaShape& s) {
        unsigned n = Limits::max_ctas;
        auto limit = [&n](unsigned used, unsigned cap) {
            if (used != 0) n = std::min(n, cap / used);
        };
        limit(s.warps, Limits::max_warps);
        limit(s.threads, Limits::max_threads);
        limit(s.registers, Limits::max_registers);
        limit(s.shared_bytes, Limits::max_shared_bytes);
        return n;
    }
    void add(const CtaShape& s) {
        ++resident_ctas_;
        used_warps_ += s.warps;
        used_threads_ += s.threads;
        used_registers_ += s.registers;
        used_shared_ += s.shared_bytes;
    }
    void remove(const CtaShape& s) {
        --resident_ctas_;
        used_warps_ -= s.warps;
        used_threads_ -= s.threads;
        used_registers_ -= s.registers;
        used_shared_ -= s.shared_bytes;
    }
    unsigned resident_ctas() const { return resident_ctas_; }
    unsigned used_warps() const { return used_warps_; }

private:
    unsigned resident_ctas_ = 0, used_warps_ = 0, used_threads_ = 0, used_registers_ = 0, used_shared_ = 0;
};

} // namespace gpuarch::timing::detail
