#pragma once
// Search-space pruning metrics of Ryoo et al. (CGO 2008; Lai 2013 Sec. 1.3, Eq. 1.5-1.6).
// Efficiency rewards configurations that execute fewer instructions in total; Utilization
// estimates how much independent work other warps offer while one warp is blocked. The
// Pareto-optimal set over the two prunes the search space, valid only when global bandwidth
// is not the bottleneck.

#include <stdexcept>

namespace gpuarch::model {

// Eq. 1.5: Efficiency = 1 / (Instr * Threads).
constexpr double ryoo_efficiency(double instructions_per_thread, double threads) {
    if (!(instructions_per_thread > 0.0) || !(threads > 0.0))
        throw std::invalid_argument("ryoo: counts must be positive");
    return 1.0 / (instructions_per_thread * threads);
}

// Eq. 1.6: Utilization = Instr / Regions * ((W_TB - 1) / 2 + (B_SM - 1) * W_TB), where Regions
// are the instruction intervals delimited by blocking instructions, W_TB the warps per block
// and B_SM the active blocks per SM.
constexpr double ryoo_utilization(double instructions_per_thread, double regions, double warps_per_block,
                                  double blocks_per_sm) {
    if (!(instructions_per_thread > 0.0) || !(regions > 0.0) || !(warps_per_block >= 1.0) || !(blocks_per_sm >= 1.0)) {
        throw std::invalid_argument("ryoo: need positive instructions and regions, at least one warp and one block");
    }
    return instructions_per_thread / regions *
           ((warps_per_block - 1.0) / 2.0 + (blocks_per_sm - 1.0) * warps_per_block);
}

} // namespace gpuarch::model
