// srad_v2: Rodinia's SRAD version 2 (speckle-reducing anisotropic diffusion), as measured by Wang et al. 2016
// ("SRAD2"). The image is row-major and tiled in 16 x 16 thread blocks. Every iteration the host computes the
// statistics of the region of interest from its copy of the image, copies the image to the device and runs:
//   srad_cuda_1: the block stages its tile and the neighbouring rows/columns (north, south, west, east halo
//                arrays, clamped at the image border) in shared memory, then computes the four directional
//                derivatives and the diffusion coefficient c per pixel;
//   srad_cuda_2: the block stages its tile of c and the south/east neighbours of c in shared memory and applies
//                J += lambda/4 * divergence;
// then copies the image back. Paper size: Rodinia's default command line "srad 2048 2048 0 127 0 127 0.5 2"
// (2048 x 2048 random image, ROI rows/columns 0..127, lambda 0.5, 2 iterations).
#include "common.cuh"

#include <algorithm>

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kTile = 16; // Rodinia's BLOCK_SIZE

__global__ void srad_cuda_1(float* E_C, float* W_C, float* N_C, float* S_C, const float* J, float* C, int cols,
                            int rows, float q0sqr) {
    const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    const int base = cols * kTile * by + kTile * bx;
    const int index = base + cols * ty + tx;
    int index_n = base + tx - cols;
    int index_s = base + cols * kTile + tx;
    int index_w = base + cols * ty - 1;
    int index_e = base + cols * ty + kTile;
    if (by == 0) index_n = kTile * bx + tx;                                           // clamp to row 0
    if (by == gridDim.y - 1) index_s = cols * (rows - 1) + kTile * bx + tx;            // clamp to the last row
    if (bx == 0) index_w = cols * (kTile * by + ty);                                   // clamp to column 0
    if (bx == gridDim.x - 1) index_e = cols * (kTile * by + ty) + cols - 1;            // clamp to the last column

    __shared__ float temp[kTile][kTile];
    __shared__ float north[kTile][kTile];
    __shared__ float south[kTile][kTile];
    __shared__ float west[kTile][kTile];
    __shared__ float east[kTile][kTile];
    temp[ty][tx] = J[index];
    north[ty][tx] = J[index_n];
    south[ty][tx] = J[index_s];
    west[ty][tx] = J[index_w];
    east[ty][tx] = J[index_e];
    __syncthreads();

    const float jc = temp[ty][tx];
    const float n = (ty == 0 ? north[ty][tx] : temp[ty - 1][tx]) - jc;
    const float s = (ty == kTile - 1 ? south[ty][tx] : temp[ty + 1][tx]) - jc;
    const float w = (tx == 0 ? west[ty][tx] : temp[ty][tx - 1]) - jc;
    const float e = (tx == kTile - 1 ? east[ty][tx] : temp[ty][tx + 1]) - jc;
    const float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    const float l = (n + s + w + e) / jc;
    const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    const float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float c = 1.0f / (1.0f + den);
    if (c < 0.0f) c = 0.0f;
    else if (c > 1.0f) c = 1.0f;
    C[index] = c;
    N_C[index] = n;
    S_C[index] = s;
    W_C[index] = w;
    E_C[index] = e;
}

__global__ void srad_cuda_2(const float* E_C, const float* W_C, const float* N_C, const float* S_C, float* J,
                            const float* C, int cols, int rows, float lambda) {
    const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
    const int base = cols * kTile * by + kTile * bx;
    const int index = base + cols * ty + tx;
    int index_s = base + cols * kTile + tx;
    int index_e = base + cols * ty + kTile;
    if (by == gridDim.y - 1) index_s = cols * (rows - 1) + kTile * bx + tx;
    if (bx == gridDim.x - 1) index_e = cols * (kTile * by + ty) + cols - 1;

    __shared__ float south_c[kTile][kTile];
    __shared__ float east_c[kTile][kTile];
    __shared__ float c_tile[kTile][kTile];
    south_c[ty][tx] = C[index_s];
    east_c[ty][tx] = C[index_e];
    c_tile[ty][tx] = C[index];
    __syncthreads();

    const float cc = c_tile[ty][tx];
    const float cs = ty == kTile - 1 ? south_c[ty][tx] : c_tile[ty + 1][tx];
    const float ce = tx == kTile - 1 ? east_c[ty][tx] : c_tile[ty][tx + 1];
    const float d = cc * N_C[index] + cs * S_C[index] + cc * W_C[index] + ce * E_C[index];
    J[index] = J[index] + 0.25f * lambda * d;
}

void roi_statistics(const std::vector<float>& J, int cols, int r1, int r2, int c1, int c2, float& q0sqr) {
    float sum = 0.0f, sum2 = 0.0f;
    for (int i = r1; i <= r2; ++i)
        for (int j = c1; j <= c2; ++j) {
            const float v = J[static_cast<std::size_t>(i) * cols + j];
            sum += v;
            sum2 += v * v;
        }
    const float size = static_cast<float>((r2 - r1 + 1) * (c2 - c1 + 1));
    const float mean = sum / size;
    const float var = sum2 / size - mean * mean;
    q0sqr = var / (mean * mean);
}

// Host reference (double arithmetic, the same q0^2 as the device run saw is recomputed from the reference image).
std::vector<float> reference(const std::vector<float>& J0, int rows, int cols, int iterations, double lambda, int r1,
                             int r2, int c1, int c2) {
    const std::size_t n = J0.size();
    std::vector<double> J(J0.begin(), J0.end()), dN(n), dS(n), dW(n), dE(n), c(n);
    auto at = [&](int r, int q) { return static_cast<std::size_t>(r) * cols + q; };
    for (int it = 0; it < iterations; ++it) {
        double sum = 0, sum2 = 0;
        for (int i = r1; i <= r2; ++i)
            for (int j = c1; j <= c2; ++j) {
                sum += J[at(i, j)];
                sum2 += J[at(i, j)] * J[at(i, j)];
            }
        const double size = (r2 - r1 + 1) * (c2 - c1 + 1);
        const double mean = sum / size, var = sum2 / size - mean * mean, q0sqr = var / (mean * mean);
        for (int r = 0; r < rows; ++r)
            for (int q = 0; q < cols; ++q) {
                const std::size_t i = at(r, q);
                const double jc = J[i];
                const double n_ = J[at(std::max(r - 1, 0), q)] - jc, s_ = J[at(std::min(r + 1, rows - 1), q)] - jc;
                const double w_ = J[at(r, std::max(q - 1, 0))] - jc, e_ = J[at(r, std::min(q + 1, cols - 1))] - jc;
                const double g2 = (n_ * n_ + s_ * s_ + w_ * w_ + e_ * e_) / (jc * jc);
                const double l = (n_ + s_ + w_ + e_) / jc;
                const double num = 0.5 * g2 - (1.0 / 16.0) * (l * l);
                double den = 1.0 + 0.25 * l;
                const double qsqr = num / (den * den);
                den = (qsqr - q0sqr) / (q0sqr * (1.0 + q0sqr));
                c[i] = std::min(1.0, std::max(0.0, 1.0 / (1.0 + den)));
                dN[i] = n_;
                dS[i] = s_;
                dW[i] = w_;
                dE[i] = e_;
            }
        for (int r = 0; r < rows; ++r)
            for (int q = 0; q < cols; ++q) {
                const std::size_t i = at(r, q);
                const double d = c[i] * dN[i] + c[at(std::min(r + 1, rows - 1), q)] * dS[i] + c[i] * dW[i] +
                                 c[at(r, std::min(q + 1, cols - 1))] * dE[i];
                J[i] += 0.25 * lambda * d;
            }
    }
    return std::vector<float>(J.begin(), J.end());
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "srad_v2");
    const bool paper = size == workload::Size::paper;
    const int rows = paper ? 2048 : 256;
    const int cols = paper ? 2048 : 256;
    const int r1 = 0, r2 = 127, c1 = 0, c2 = 127;
    const int iterations = 2;
    const float lambda = 0.5f;
    const std::size_t n = static_cast<std::size_t>(rows) * cols;

    // Rodinia's input: a random image, J = exp(uniform[0,1)).
    workload::Random rng(2048);
    std::vector<float> J(n);
    for (float& v : J) v = std::exp(unit(rng));
    const std::vector<float> J0 = J;

    float* d_J = workload::device_zeros<float>(n);
    float* d_C = workload::device_zeros<float>(n);
    float* d_E = workload::device_zeros<float>(n);
    float* d_W = workload::device_zeros<float>(n);
    float* d_N = workload::device_zeros<float>(n);
    float* d_S = workload::device_zeros<float>(n);
    const dim3 block(kTile, kTile);
    const dim3 grid(cols / kTile, rows / kTile);
    int launches = 0;
    for (int it = 0; it < iterations; ++it) {
        float q0sqr = 0.0f;
        roi_statistics(J, cols, r1, r2, c1, c2, q0sqr);
        CHECK(cudaMemcpy(d_J, J.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        srad_cuda_1<<<grid, block>>>(d_E, d_W, d_N, d_S, d_J, d_C, cols, rows, q0sqr);
        CHECK_LAUNCH();
        srad_cuda_2<<<grid, block>>>(d_E, d_W, d_N, d_S, d_J, d_C, cols, rows, lambda);
        CHECK_LAUNCH();
        launches += 2;
        CHECK(cudaMemcpy(J.data(), d_J, n * sizeof(float), cudaMemcpyDeviceToHost));
    }

    const std::vector<float> want = reference(J0, rows, cols, iterations, lambda, r1, r2, c1, c2);
    const bool ok = workload::close_enough("J", J, want, 1e-4, 1e-4);

    for (float* p : {d_J, d_C, d_E, d_W, d_N, d_S}) CHECK(cudaFree(p));
    return workload::finish("srad_v2", size, ok,
                            std::to_string(rows) + "x" + std::to_string(cols) + ", iterations=" +
                                std::to_string(iterations) + ", launches=" + std::to_string(launches));
}
