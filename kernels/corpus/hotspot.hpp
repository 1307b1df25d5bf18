#pragma once
// Driver and CPU reference for kernels/src/hotspot.cu. Exact comparison; the reference mirrors the PTX, which
// nvcc contracted to (with 2.0f * tc computed as tc + tc):
//   s = fma((tn + ts) - (tc + tc), ry_inv, power)
//   s = fma((tw + te) - (tc + tc), rx_inv, s)
//   s = fma(amb - tc, rz_inv, s)
//   out = fma(s, cap_inv, tc)
#include "common.hpp"

namespace gpuarch::kernels {

struct HotspotParams {
    float cap_inv = 0.5f, rx_inv = 0.1f, ry_inv = 0.12f, rz_inv = 0.05f, amb = 80.0f;
};

inline std::vector<float> hotspot_step_reference(const std::vector<float>& power, const std::vector<float>& temp,
                                                 std::int32_t rows, std::int32_t cols, const HotspotParams& p) {
    std::vector<float> out(temp.size());
    auto at = [&](std::int32_t r, std::int32_t c) {
        r = std::clamp(r, 0, rows - 1);
        c = std::clamp(c, 0, cols - 1);
        return temp[static_cast<std::size_t>(r * cols + c)];
    };
    for (std::int32_t r = 0; r < rows; ++r) {
        for (std::int32_t c = 0; c < cols; ++c) {
            const float tc = at(r, c), tn = at(r - 1, c), ts = at(r + 1, c), tw = at(r, c - 1), te = at(r, c + 1);
            const float two_tc = tc + tc;
            float s = std::fma((tn + ts) - two_tc, p.ry_inv, power[static_cast<std::size_t>(r * cols + c)]);
            s = std::fma((tw + te) - two_tc, p.rx_inv, s);
            s = std::fma(p.amb - tc, p.rz_inv, s);
            out[static_cast<std::size_t>(r * cols + c)] = std::fma(s, p.cap_inv, tc);
        }
    }
    return out;
}

// small: 40 x 50 grid, 2 steps; large: 192 x 160 grid, 2 steps. Blocks of 16 x 16 (partial blocks on the edges of
// the small grid); temperatures ping-pong between two buffers.
template <class Launcher>
CaseResult run_hotspot(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const bool small = size == Size::small;
    const std::int32_t rows = small ? 40 : 192;
    const std::int32_t cols = small ? 50 : 160;
    constexpr int steps = 2;
    const HotspotParams p;
    const std::size_t cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    SplitMix64 rng(0x7ec7'0add'0000'0010ULL);
    const std::vector<float> power = random_floats(rng, cells, 0.0f, 1.0f);
    std::vector<float> temp = random_floats(rng, cells, 320.0f, 340.0f);

    DeviceBuffer dpower(device, power), dtemp(device, temp);
    DeviceBuffer dother = poisoned_buffer(device, cells * sizeof(float));
    constexpr std::uint32_t block = 16;
    for (int s = 0; s < steps; ++s) {
        launch(module, "hotspot",
               config_2d(ceil_div(static_cast<std::uint64_t>(cols), block),
                         ceil_div(static_cast<std::uint64_t>(rows), block), block, block),
               func::Args(dpower.ptr(), dtemp.ptr(), dother.ptr(), rows, cols, p.cap_inv, p.rx_inv, p.ry_inv, p.rz_inv,
                          p.amb));
        std::swap(dtemp, dother);
        temp = hotspot_step_reference(power, temp, rows, cols, p);
    }
    Checker check;
    check.exact("temperature", dtemp.download<float>(cells), temp);
    return check.result();
}

} // namespace gpuarch::kernels
