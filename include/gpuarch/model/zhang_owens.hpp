#pragma once
// Zhang & Owens quantitative throughput model (HPCA 2011; Lai 2013 Sec. 1.3.3).
//
// The GPU is three components: instruction pipeline, shared memory, global memory. Each
// component's time is its load divided by its throughput; the components overlap, so the
// predicted time is that of the slowest one, the bottleneck. Instruction classes differ in how
// many functional units run them; the peak rate of a class is (Eq. 1.4)
//   T_I = #functional_units * frequency * #SM / warp_size       [warp instructions / s]
// Shared and global throughputs are measured with microbenchmarks in the original; here they
// are inputs. Per Lai, the peak shared throughput is derived from the SP count and frequency,
// which is Eq. 1.4 with #SP as the unit count (zhang_owens_peak_shared_throughput).

#include <cstdint>
#include <span>
#include <stdexcept>

namespace gpuarch::model {

constexpr double zhang_owens_peak_throughput(double functional_units, double frequency_hz, int sm_count,
                                             int warp_size) {
    if (!(functional_units > 0.0) || !(frequency_hz > 0.0) || sm_count <= 0 || warp_size <= 0) {
        throw std::invalid_argument("zhang_owens: units, frequency, SM count and warp size must be positive");
    }
    return functional_units * frequency_hz * sm_count / warp_size; // Eq. 1.4
}

constexpr double zhang_owens_peak_shared_throughput(int sp_per_sm, double frequency_hz, int sm_count, int warp_size) {
    return zhang_owens_peak_throughput(sp_per_sm, frequency_hz, sm_count, warp_size);
}

// Dynamic warp instructions of one class and the functional units per SM that run it.
struct PipelineLoad {
    double warp_instructions = 0.0;
    double functional_units = 0.0;
};

enum class ZhangOwensComponent : std::uint8_t { instruction_pipeline, shared_memory, global_memory };

struct ZhangOwensInputs {
    std::span<const PipelineLoad> pipeline;
    double frequency_hz = 0.0;
    int sm_count = 0;
    int warp_size = 32;
    double shared_transactions = 0.0; // effective (conflict-expanded) warp transactions
    double shared_throughput = 0.0; // transactions per second, whole GPU
    double global_bytes = 0.0; // effective bytes moved
    double global_bandwidth = 0.0; // bytes per second, measured
};

struct ZhangOwensResult {
    double pipeline_seconds = 0.0;
    double shared_seconds = 0.0;
    double global_seconds = 0.0;
    double predicted_seconds = 0.0;
    ZhangOwensComponent bottleneck = ZhangOwensComponent::instruction_pipeline;
};

constexpr ZhangOwensResult zhang_owens(const ZhangOwensInputs& in) {
    if (!(in.shared_throughput > 0.0) || !(in.global_bandwidth > 0.0)) {
        throw std::invalid_argument("zhang_owens: shared throughput and global bandwidth must be positive");
    }
    ZhangOwensResult r{};
    for (const PipelineLoad& p : in.pipeline) {
        if (p.warp_instructions < 0.0) throw std::invalid_argument("zhang_owens: negative instruction count");
        if (p.warp_instructions == 0.0) continue;
        r.pipeline_seconds += p.warp_instructions / zhang_owens_peak_throughput(p.functional_units, in.frequency_hz,
                                                                                in.sm_count, in.warp_size);
    }
    r.shared_seconds = in.shared_transactions / in.shared_throughput;
    r.global_seconds = in.global_bytes / in.global_bandwidth;
    r.predicted_seconds = r.pipeline_seconds;
    if (r.shared_seconds > r.predicted_seconds) {
        r.predicted_seconds = r.shared_seconds;
        r.bottleneck = ZhangOwensComponent::shared_memory;
    }
    if (r.global_seconds > r.predicted_seconds) {
        r.predicted_seconds = r.global_seconds;
        r.bottleneck = ZhangOwensComponent::global_memory;
    }
    return r;
}

} // namespace gpuarch::model
