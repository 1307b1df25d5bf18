#pragma once
// What occupancy needs to know about a kernel launch, per CTA (GPU computes it; every core checks it).
namespace gpuarch::timing {

struct CtaShape {
    unsigned threads = 0;
    unsigned warps = 0;
    unsigned registers = 0; // per CTA, after allocation granularity
    unsigned shared_bytes = 0; // static + dynamic
};

} // namespace gpuarch::timing

namespace gpuarch {
using timing::CtaShape; // the name the cores and GPU have always used
} // namespace gpuarch
