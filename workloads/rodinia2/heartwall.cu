// Heart Wall (Rodinia 3.1 "heartwall"): tracks 51 points of the heart's inner (20 endocardial) and outer
// (31 epicardial) walls through an ultrasound sequence. One launch per frame, one CTA of 256 threads per point. On
// the first frame each CTA cuts its point's (2*tSize+1)^2 template out of the frame. On every later frame it copies
// the (2*sSize+1)^2 search area around the point into a per-point global scratch array, builds the area's integral
// images of values and squares (vertical then horizontal cumulative sums, one thread per column/row, as the
// benchmark's cumulative-sum steps do), computes the normalized cross-correlation of the template with every
// placement within maxMove of the point (template and area read from global memory), takes the best placement as
// the point's new location (shared-memory arg-max reduction), and every 10th frame blends the patch at the new
// location into the template (alpha = 0.87).
//
// Simplified from the benchmark: the correlation is evaluated only at the candidate placements instead of as a full
// 2D convolution followed by a movement mask, and the video is a synthetic textured sequence with a beating radial
// motion (the benchmark decodes test.avi). The kernel/CTA decomposition, the per-point global scratch and the
// integral-image local sums follow the benchmark.
#include <algorithm>
#include <cmath>
#include <string>

#include "common.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kPoints = 51;  // 20 endocardial + 31 epicardial
constexpr float kAlpha = 0.87f;

// Rounded float arithmetic without contraction, so the host reference reproduces the GPU bit for bit.
__host__ __device__ inline float fmul(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
__host__ __device__ inline float fadd(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
__host__ __device__ inline float fsub(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fsub_rn(a, b);
#else
    return a - b;
#endif
}

struct Params {
    int frame_rows, frame_cols, frames;
    int t_size, s_size, max_move;
    const float* frame;  // the current frame
    int* row;            // current location of each point
    int* col;
    int* row_loc;  // location per point and frame: [point * frames + frame]
    int* col_loc;
    float* templates;  // per point: (2*t_size+1)^2
    float* area;       // per point: (2*s_size+1)^2 scratch
    float* integral;   // per point: (2*s_size+2)^2 scratch, values
    float* integral2;  // per point: (2*s_size+2)^2 scratch, squares
};

// Keeps a tracked point far enough from the frame's edges for the next search area.
__host__ __device__ inline int keep_inside(int v, int margin, int n) {
    return v < margin ? margin : v > n - 1 - margin ? n - 1 - margin : v;
}

// Sum of the integral image over rows [y, y+n) and columns [x, x+n).
__host__ __device__ inline float box_sum(const float* ii, int pitch, int y, int x, int n) {
    return fadd(fsub(fsub(ii[(y + n) * pitch + x + n], ii[y * pitch + x + n]), ii[(y + n) * pitch + x]),
                ii[y * pitch + x]);
}

// Normalized cross-correlation of the template with the area at offset (y, x).
__host__ __device__ inline float ncc_at(const float* tmpl, const float* area, const float* ii, const float* ii2,
                                        int tn, int an, int y, int x, float t_sum, float t_sqr) {
    float cross = 0.0f;
    for (int i = 0; i < tn; ++i)
        for (int j = 0; j < tn; ++j) cross = fadd(cross, fmul(tmpl[i * tn + j], area[(y + i) * an + x + j]));
    const float n = static_cast<float>(tn * tn);
    const float a_sum = box_sum(ii, an + 1, y, x, tn);
    const float a_sqr = box_sum(ii2, an + 1, y, x, tn);
    const float num = fsub(cross, fmul(t_sum, a_sum) / n);
    const float var_t = fsub(t_sqr, fmul(t_sum, t_sum) / n);
    const float var_a = fsub(a_sqr, fmul(a_sum, a_sum) / n);
    const float den = fmul(var_t, var_a);
    return den > 0.0f ? num / sqrtf(den) : -2.0f;
}

__global__ void heartwall_kernel(Params p, int frame_no) {
    __shared__ float partial[kThreads];
    __shared__ float partial2[kThreads];
    __shared__ float best_value[kThreads];
    __shared__ int best_index[kThreads];
    __shared__ float t_stats[2];

    const int t = threadIdx.x, point = blockIdx.x;
    const int tn = 2 * p.t_size + 1, an = 2 * p.s_size + 1, ip = an + 1;
    float* tmpl = p.templates + point * tn * tn;
    float* area = p.area + point * an * an;
    float* ii = p.integral + point * ip * ip;
    float* ii2 = p.integral2 + point * ip * ip;
    const int row = p.row[point], col = p.col[point];

    if (frame_no == 0) {
        for (int k = t; k < tn * tn; k += kThreads)
            tmpl[k] = p.frame[(row - p.t_size + k / tn) * p.frame_cols + col - p.t_size + k % tn];
        if (t == 0) {
            p.row_loc[point * p.frames] = row;
            p.col_loc[point * p.frames] = col;
        }
        return;
    }

    // Search area around the point.
    for (int k = t; k < an * an; k += kThreads)
        area[k] = p.frame[(row - p.s_size + k / an) * p.frame_cols + col - p.s_size + k % an];
    for (int k = t; k < ip; k += kThreads) {
        ii[k] = ii2[k] = 0.0f;                    // top row
        ii[k * ip] = ii2[k * ip] = 0.0f;          // left column
    }
    __syncthreads();
    // Integral images: vertical running sums (one thread per column), then horizontal (one thread per row).
    for (int c = t; c < an; c += kThreads) {
        float s = 0.0f, s2 = 0.0f;
        for (int r = 0; r < an; ++r) {
            const float v = area[r * an + c];
            s = fadd(s, v);
            s2 = fadd(s2, fmul(v, v));
            ii[(r + 1) * ip + c + 1] = s;
            ii2[(r + 1) * ip + c + 1] = s2;
        }
    }
    __syncthreads();
    for (int r = t; r < an; r += kThreads) {
        float s = 0.0f, s2 = 0.0f;
        for (int c = 0; c < an; ++c) {
            s = fadd(s, ii[(r + 1) * ip + c + 1]);
            s2 = fadd(s2, ii2[(r + 1) * ip + c + 1]);
            ii[(r + 1) * ip + c + 1] = s;
            ii2[(r + 1) * ip + c + 1] = s2;
        }
    }
    // Template sums: per-thread strided partials, then thread 0 adds them in order.
    float s = 0.0f, s2 = 0.0f;
    for (int k = t; k < tn * tn; k += kThreads) {
        s = fadd(s, tmpl[k]);
        s2 = fadd(s2, fmul(tmpl[k], tmpl[k]));
    }
    partial[t] = s;
    partial2[t] = s2;
    __syncthreads();
    if (t == 0) {
        float a = 0.0f, b = 0.0f;
        for (int k = 0; k < kThreads; ++k) {
            a = fadd(a, partial[k]);
            b = fadd(b, partial2[k]);
        }
        t_stats[0] = a;
        t_stats[1] = b;
    }
    __syncthreads();

    // Correlation at every placement within max_move of the point; best per thread, then a tree arg-max.
    const int side = 2 * p.max_move + 1, base = p.s_size - p.t_size - p.max_move;
    float best = -3.0f;
    int best_k = 0x7fffffff;
    for (int k = t; k < side * side; k += kThreads) {
        const float v = ncc_at(tmpl, area, ii, ii2, tn, an, base + k / side, base + k % side, t_stats[0], t_stats[1]);
        if (v > best) {
            best = v;
            best_k = k;
        }
    }
    best_value[t] = best;
    best_index[t] = best_k;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            const float ov = best_value[t + stride];
            const int ok = best_index[t + stride];
            if (ov > best_value[t] || (ov == best_value[t] && ok < best_index[t])) {
                best_value[t] = ov;
                best_index[t] = ok;
            }
        }
        __syncthreads();
    }
    const int k = best_index[0];
    const int new_row = keep_inside(row + k / side - p.max_move, p.s_size + p.max_move, p.frame_rows);
    const int new_col = keep_inside(col + k % side - p.max_move, p.s_size + p.max_move, p.frame_cols);
    if (t == 0) {
        p.row[point] = new_row;
        p.col[point] = new_col;
        p.row_loc[point * p.frames + frame_no] = new_row;
        p.col_loc[point * p.frames + frame_no] = new_col;
    }

    // Template update every 10th frame.
    if (frame_no % 10 == 0) {
        for (int q = t; q < tn * tn; q += kThreads) {
            const float v = p.frame[(new_row - p.t_size + q / tn) * p.frame_cols + new_col - p.t_size + q % tn];
            tmpl[q] = fadd(fmul(kAlpha, tmpl[q]), fmul(1.0f - kAlpha, v));
        }
    }
}

// The host reference: the same steps in the same order for one point and one frame.
void reference_step(const Params& p, const float* frame, std::vector<float>& tmpl, int& row, int& col, int frame_no) {
    const int tn = 2 * p.t_size + 1, an = 2 * p.s_size + 1, ip = an + 1;
    if (frame_no == 0) {
        for (int k = 0; k < tn * tn; ++k)
            tmpl[k] = frame[(row - p.t_size + k / tn) * p.frame_cols + col - p.t_size + k % tn];
        return;
    }
    std::vector<float> area(an * an), ii(ip * ip, 0.0f), ii2(ip * ip, 0.0f);
    for (int k = 0; k < an * an; ++k) area[k] = frame[(row - p.s_size + k / an) * p.frame_cols + col - p.s_size + k % an];
    for (int c = 0; c < an; ++c) {
        float s = 0.0f, s2 = 0.0f;
        for (int r = 0; r < an; ++r) {
            const float v = area[r * an + c];
            s = fadd(s, v);
            s2 = fadd(s2, fmul(v, v));
            ii[(r + 1) * ip + c + 1] = s;
            ii2[(r + 1) * ip + c + 1] = s2;
        }
    }
    for (int r = 0; r < an; ++r) {
        float s = 0.0f, s2 = 0.0f;
        for (int c = 0; c < an; ++c) {
            s = fadd(s, ii[(r + 1) * ip + c + 1]);
            s2 = fadd(s2, ii2[(r + 1) * ip + c + 1]);
            ii[(r + 1) * ip + c + 1] = s;
            ii2[(r + 1) * ip + c + 1] = s2;
        }
    }
    float t_sum = 0.0f, t_sqr = 0.0f;
    for (int t = 0; t < kThreads; ++t) {
        float s = 0.0f, s2 = 0.0f;
        for (int k = t; k < tn * tn; k += kThreads) {
            s = fadd(s, tmpl[k]);
            s2 = fadd(s2, fmul(tmpl[k], tmpl[k]));
        }
        t_sum = fadd(t_sum, s);
        t_sqr = fadd(t_sqr, s2);
    }
    const int side = 2 * p.max_move + 1, base = p.s_size - p.t_size - p.max_move;
    float best = -3.0f;
    int best_k = 0;
    for (int k = 0; k < side * side; ++k) {
        const float v = ncc_at(tmpl.data(), area.data(), ii.data(), ii2.data(), tn, an, base + k / side,
                               base + k % side, t_sum, t_sqr);
        if (v > best) {
            best = v;
            best_k = k;
        }
    }
    row = keep_inside(row + best_k / side - p.max_move, p.s_size + p.max_move, p.frame_rows);
    col = keep_inside(col + best_k % side - p.max_move, p.s_size + p.max_move, p.frame_cols);
    if (frame_no % 10 == 0)
        for (int q = 0; q < tn * tn; ++q) {
            const float v = frame[(row - p.t_size + q / tn) * p.frame_cols + col - p.t_size + q % tn];
            tmpl[q] = fadd(fmul(kAlpha, tmpl[q]), fmul(1.0f - kAlpha, v));
        }
}

// Synthetic ultrasound-like sequence: smooth random texture (bilinear value noise at two scales plus speckle),
// warped by a radial displacement that beats around the heart's centre.
std::vector<float> make_frames(int rows, int cols, int frames, workload::Random& rng) {
    const int cell = 6;
    const int gr = rows / cell + 2, gc = cols / cell + 2;
    std::vector<float> grid(gr * gc), speckle(rows * cols);
    for (float& g : grid) g = rng.uniform();
    for (float& s : speckle) s = rng.uniform();
    auto texture = [&](float y, float x) {
        const float gy = y / cell, gx = x / cell;
        int y0 = static_cast<int>(std::floor(gy)), x0 = static_cast<int>(std::floor(gx));
        y0 = std::min(std::max(y0, 0), gr - 2);
        x0 = std::min(std::max(x0, 0), gc - 2);
        const float fy = gy - y0, fx = gx - x0;
        const float a = grid[y0 * gc + x0], b = grid[y0 * gc + x0 + 1], c = grid[(y0 + 1) * gc + x0],
                    d = grid[(y0 + 1) * gc + x0 + 1];
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
    };
    const float cy = 400.0f, cx = 310.0f;
    std::vector<float> out(static_cast<std::size_t>(frames) * rows * cols);
    for (int f = 0; f < frames; ++f) {
        const float beat = 4.0f * std::sin(6.2831853f * f / 12.0f);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < cols; ++x) {
                const float dy = y - cy, dx = x - cx;
                const float r = std::sqrt(dy * dy + dx * dx) + 1.0f;
                const float shrink = beat * std::exp(-r / 250.0f);
                const float sy = y + shrink * dy / r, sx = x + shrink * dx / r;
                const int si = std::min(std::max(static_cast<int>(sy + 0.5f), 0), rows - 1);
                const int sj = std::min(std::max(static_cast<int>(sx + 0.5f), 0), cols - 1);
                out[(static_cast<std::size_t>(f) * rows + y) * cols + x] =
                    0.75f * texture(sy, sx) + 0.25f * speckle[si * cols + sj];
            }
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "heartwall");
    // Rodinia's run script: `heartwall test.avi 20` (20 frames); main.cu: tSize 25, sSize 40, maxMove 10, 51 points.
    const bool paper = size == workload::Size::paper;
    Params p{};
    p.frame_rows = 609;
    p.frame_cols = 590;
    p.frames = paper ? 20 : 3;
    p.t_size = paper ? 25 : 6;
    p.s_size = paper ? 40 : 12;
    p.max_move = paper ? 10 : 5;

    // The benchmark's initial point locations (row, column), endocardial then epicardial.
    const int rows0[kPoints] = {369, 400, 429, 452, 476, 486, 479, 458, 433, 404, 374, 346, 318, 294, 277, 269, 275,
                                287, 311, 339, 390, 419, 448, 474, 501, 519, 535, 542, 543, 538, 528, 511, 491, 466,
                                438, 406, 376, 347, 318, 291, 275, 259, 256, 252, 252, 257, 266, 283, 305, 331, 360};
    const int cols0[kPoints] = {408, 406, 397, 383, 354, 322, 294, 270, 250, 237, 235, 241, 254, 273, 300, 328, 356,
                                383, 401, 411, 457, 454, 446, 431, 411, 388, 361, 331, 301, 273, 243, 218, 196, 178,
                                166, 157, 155, 165, 177, 197, 218, 248, 276, 304, 333, 361, 391, 415, 434, 448, 455};

    workload::Random rng(51);
    const std::vector<float> frames = make_frames(p.frame_rows, p.frame_cols, p.frames, rng);
    const std::size_t frame_elems = static_cast<std::size_t>(p.frame_rows) * p.frame_cols;
    const int tn = 2 * p.t_size + 1, an = 2 * p.s_size + 1, ip = an + 1;

    float* d_frame = workload::device_zeros<float>(frame_elems);
    p.frame = d_frame;
    p.row = workload::to_device(std::vector<int>(rows0, rows0 + kPoints));
    p.col = workload::to_device(std::vector<int>(cols0, cols0 + kPoints));
    p.row_loc = workload::device_zeros<int>(kPoints * p.frames);
    p.col_loc = workload::device_zeros<int>(kPoints * p.frames);
    p.templates = workload::device_zeros<float>(kPoints * tn * tn);
    p.area = workload::device_zeros<float>(kPoints * an * an);
    p.integral = workload::device_zeros<float>(kPoints * ip * ip);
    p.integral2 = workload::device_zeros<float>(kPoints * ip * ip);
    for (int f = 0; f < p.frames; ++f) {
        CHECK(cudaMemcpy(d_frame, frames.data() + f * frame_elems, frame_elems * sizeof(float),
                         cudaMemcpyHostToDevice));
        heartwall_kernel<<<kPoints, kThreads>>>(p, f);
        CHECK_LAUNCH();
    }
    const std::vector<int> got_rows = workload::to_host(p.row_loc, kPoints * p.frames);
    const std::vector<int> got_cols = workload::to_host(p.col_loc, kPoints * p.frames);

    std::vector<int> want_rows(kPoints * p.frames), want_cols(kPoints * p.frames);
    int moved = 0;
    for (int q = 0; q < kPoints; ++q) {
        std::vector<float> tmpl(tn * tn);
        int row = rows0[q], col = cols0[q];
        for (int f = 0; f < p.frames; ++f) {
            reference_step(p, frames.data() + f * frame_elems, tmpl, row, col, f);
            want_rows[q * p.frames + f] = row;
            want_cols[q * p.frames + f] = col;
        }
        moved += (row != rows0[q] || col != cols0[q]) ? 1 : 0;
    }
    bool ok = workload::equal("row", got_rows, want_rows);
    ok = workload::equal("col", got_cols, want_cols) && ok;

    CHECK(cudaFree(d_frame));
    for (void* ptr : {static_cast<void*>(p.row), static_cast<void*>(p.col), static_cast<void*>(p.row_loc),
                      static_cast<void*>(p.col_loc), static_cast<void*>(p.templates), static_cast<void*>(p.area),
                      static_cast<void*>(p.integral), static_cast<void*>(p.integral2)})
        CHECK(cudaFree(ptr));
    return workload::finish("heartwall", size, ok,
                            std::to_string(kPoints) + " points, " + std::to_string(p.frames) + " frames " +
                                std::to_string(p.frame_rows) + "x" + std::to_string(p.frame_cols) + ", template " +
                                std::to_string(tn) + "x" + std::to_string(tn) + ", " + std::to_string(moved) +
                                " points moved");
}
