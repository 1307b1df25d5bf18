#pragma once
// Driver and CPU reference for kernels/src/scan_block.cu (scan_block + scan_add_offsets). Integers: bit-exact.
#include "common.hpp"

namespace gpuarch::kernels {

inline std::vector<std::int32_t> inclusive_scan_reference(const std::vector<std::int32_t>& in) {
    std::vector<std::int32_t> out(in.size());
    std::int32_t running = 0;
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = running += in[i];
    return out;
}

// Block totals of a block-wise scan (what scan_block writes to block_sums).
inline std::vector<std::int32_t> scan_block_totals_reference(const std::vector<std::int32_t>& in, std::uint32_t block) {
    std::vector<std::int32_t> totals(ceil_div(in.size(), block), 0);
    for (std::size_t i = 0; i < in.size(); ++i) totals[i / block] += in[i];
    return totals;
}

// Three launches: scan_block (block-wise scan + block totals), scan_block on the totals (one block, no totals),
// scan_add_offsets. small: 1000 ints in blocks of 128 (8 blocks); large: 40000 ints in blocks of 256 (157
// blocks). Dynamic shared: 2 * block ints.
template <class Launcher>
CaseResult run_scan_block(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::uint32_t n = small ? 1000 : 40000;
    const std::uint32_t block = small ? 128 : 256;
    const std::uint32_t blocks = ceil_div(n, block);
    SplitMix64 rng(0x7ec7'0add'0000'0005ULL);
    const std::vector<std::int32_t> in = random_ints(rng, n, -50, 50);
    const std::vector<std::int32_t> totals = scan_block_totals_reference(in, block);

    DeviceBuffer din(device, in);
    DeviceBuffer dout = poisoned_buffer(device, n * sizeof(std::int32_t));
    DeviceBuffer dtotals = poisoned_buffer(device, blocks * sizeof(std::int32_t));
    DeviceBuffer dscanned = poisoned_buffer(device, blocks * sizeof(std::int32_t));
    const func::DevPtr no_totals = 0;
    launch(module, "scan_block", config_1d(blocks, block, 2 * block * 4),
           func::Args(din.ptr(), dout.ptr(), dtotals.ptr(), n));
    launch(module, "scan_block", config_1d(1, block, 2 * block * 4),
           func::Args(dtotals.ptr(), dscanned.ptr(), no_totals, blocks));
    const std::vector<std::int32_t> got_totals = dtotals.download<std::int32_t>(blocks);
    launch(module, "scan_add_offsets", config_1d(blocks, block), func::Args(dout.ptr(), dscanned.ptr(), n));

    Checker check;
    check.exact("block totals", got_totals, totals);
    check.exact("scanned block totals", dscanned.download<std::int32_t>(blocks), inclusive_scan_reference(totals));
    check.exact("scan", dout.download<std::int32_t>(n), inclusive_scan_reference(in));
    return check.result();
}

} // namespace gpuarch::kernels
