#pragma once
// Driver and CPU reference for kernels/src/mandelbrot.cu. Trip counts are integers compared bit-exactly, which
// needs the float recurrence mirrored exactly. nvcc keeps zx^2 and zy^2 as separate products (both are reused)
// and emits, per trip:
//   t = cx + (zx2 - zy2);  zy = fma(zx + zx, zy, cy);  ++it;  zx2 = t * t;  zy2 = zy * zy;  zx = t
// looping while it < max_iter && zx2 + zy2 <= 4, with cx = fma(float(px), dx, x0) and likewise cy.
#include "common.hpp"

namespace gpuarch::kernels {

struct MandelbrotView {
    std::int32_t width, height, max_iter;
    float x0, y0, dx, dy;
};

inline MandelbrotView mandelbrot_view(Size size) {
    const bool small = size == Size::small;
    MandelbrotView v{small ? 48 : 160, small ? 32 : 120, small ? 48 : 100, -2.2f, -1.25f, 0.0f, 0.0f};
    v.dx = 3.0f / static_cast<float>(v.width);
    v.dy = 2.5f / static_cast<float>(v.height);
    return v;
}

inline std::vector<std::uint32_t> mandelbrot_reference(const MandelbrotView& v) {
    std::vector<std::uint32_t> out(static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.height));
    for (std::int32_t py = 0; py < v.height; ++py) {
        for (std::int32_t px = 0; px < v.width; ++px) {
            const float cx = std::fma(static_cast<float>(px), v.dx, v.x0);
            const float cy = std::fma(static_cast<float>(py), v.dy, v.y0);
            float zx = 0.0f, zy = 0.0f, zx2 = 0.0f, zy2 = 0.0f;
            std::int32_t it = 0;
            if (v.max_iter >= 1) {
                do {
                    const float t = cx + (zx2 - zy2);
                    zy = std::fma(zx + zx, zy, cy);
                    ++it;
                    zx2 = mul_rn(t, t);
                    zy2 = mul_rn(zy, zy);
                    zx = t;
                } while (it < v.max_iter && zx2 + zy2 <= 4.0f);
            }
            out[static_cast<std::size_t>(py * v.width + px)] = static_cast<std::uint32_t>(it);
        }
    }
    return out;
}

// small: 48 x 32 pixels, at most 48 trips; large: 160 x 120 pixels, at most 100 trips. Blocks of 16 x 8, over
// the view [-2.2, 0.8] x [-1.25, 1.25].
template <class Launcher>
CaseResult run_mandelbrot(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const MandelbrotView v = mandelbrot_view(size);
    const std::size_t pixels = static_cast<std::size_t>(v.width) * static_cast<std::size_t>(v.height);
    DeviceBuffer dout = poisoned_buffer(device, pixels * sizeof(std::uint32_t));
    launch(module, "mandelbrot",
           config_2d(ceil_div(static_cast<std::uint64_t>(v.width), 16),
                     ceil_div(static_cast<std::uint64_t>(v.height), 8), 16, 8),
           func::Args(dout.ptr(), v.width, v.height, v.x0, v.y0, v.dx, v.dy, v.max_iter));
    Checker check;
    check.exact("iterations", dout.download<std::uint32_t>(pixels), mandelbrot_reference(v));
    return check.result();
}

} // namespace gpuarch::kernels
