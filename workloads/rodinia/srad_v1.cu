// srad_v1: Rodinia's SRAD version 1 (speckle-reducing anisotropic diffusion, Yu & Acton), as measured by Wang et
// al. 2016 ("SRAD1"). The image is column-major; every kernel runs one thread per pixel in 1D blocks of 512:
//   extract (once):   J = exp(image / 255)
//   per iteration:    prepare (sums = J, sums2 = J^2), reduce (a shared-memory tree per block, relaunched on the
//                     strided partial sums until one block remains), host: q0^2 from the mean and variance,
//                     srad (directional derivatives and the diffusion coefficient c, neighbours through clamped
//                     index arrays), srad2 (divergence of c * gradient, J += lambda/4 * divergence)
//   compress (once):  image = 255 * log(J)
// Paper size: Rodinia's default command line "srad 100 0.5 502 458" (100 iterations, lambda 0.5, 502 x 458): with
// the two reduce launches per iteration that is 502 kernel launches, the count Wang et al. give. Rodinia reads an
// ultrasound image (image.pgm); a synthetic speckled image of the same size stands in for it.
#include "common.cuh"

#include <algorithm>

namespace {

// Uniform in [0, 1) from 24 random bits.
float unit(workload::Random& rng) { return static_cast<float>(rng.below(1u << 24)) * (1.0f / 16777216.0f); }

constexpr int kBlock = 512; // Rodinia's NUMBER_THREADS

__global__ void extract(float* image, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) image[i] = expf(image[i] / 255.0f);
}

__global__ void prepare(const float* image, float* sums, float* sums2, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = image[i];
        sums[i] = v;
        sums2[i] = v * v;
    }
}

// In-place reduction round: the live values sit at index k * stride for k < count; block b sums values
// b * 512 .. b * 512 + 511 and writes the sum at index (b * 512) * stride, where the next round finds it.
__global__ void reduce(float* sums, float* sums2, int count, long long stride) {
    __shared__ float s1[kBlock];
    __shared__ float s2[kBlock];
    const int t = threadIdx.x;
    const int k = blockIdx.x * kBlock + t;
    s1[t] = k < count ? sums[k * stride] : 0.0f;
    s2[t] = k < count ? sums2[k * stride] : 0.0f;
    __syncthreads();
    for (int half = kBlock / 2; half > 0; half /= 2) {
        if (t < half) {
            s1[t] += s1[t + half];
            s2[t] += s2[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[static_cast<long long>(blockIdx.x) * kBlock * stride] = s1[0];
        sums2[static_cast<long long>(blockIdx.x) * kBlock * stride] = s2[0];
    }
}

__global__ void srad(const float* J, const int* iN, const int* iS, const int* jW, const int* jE, float* dN, float* dS,
                     float* dW, float* dE, float* c, int rows, int n, float q0sqr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int row = i % rows;
    const int col = i / rows;
    const float jc = J[i];
    const float n_ = J[iN[row] + rows * col] - jc;
    const float s_ = J[iS[row] + rows * col] - jc;
    const float w_ = J[row + rows * jW[col]] - jc;
    const float e_ = J[row + rows * jE[col]] - jc;
    const float g2 = (n_ * n_ + s_ * s_ + w_ * w_ + e_ * e_) / (jc * jc);
    const float l = (n_ + s_ + w_ + e_) / jc;
    const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    const float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float cv = 1.0f / (1.0f + den);
    if (cv < 0.0f) cv = 0.0f;
    else if (cv > 1.0f) cv = 1.0f;
    dN[i] = n_;
    dS[i] = s_;
    dW[i] = w_;
    dE[i] = e_;
    c[i] = cv;
}

__global__ void srad2(float* J, const int* iS, const int* jE, const float* dN, const float* dS, const float* dW,
                      const float* dE, const float* c, int rows, int n, float lambda) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int row = i % rows;
    const int col = i / rows;
    const float cn = c[i];
    const float cs = c[iS[row] + rows * col];
    const float cw = c[i];
    const float ce = c[row + rows * jE[col]];
    const float d = cn * dN[i] + cs * dS[i] + cw * dW[i] + ce * dE[i];
    J[i] = J[i] + 0.25f * lambda * d;
}

__global__ void compress(float* image, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) image[i] = logf(image[i]) * 255.0f;
}

// Host reference in double precision, same formulas and clamped borders.
std::vector<float> reference(const std::vector<float>& input, int rows, int cols, int iterations, double lambda) {
    const int n = rows * cols;
    std::vector<double> J(n), dN(n), dS(n), dW(n), dE(n), c(n);
    for (int i = 0; i < n; ++i) J[i] = std::exp(input[i] / 255.0);
    auto at = [&](int r, int q) { return static_cast<std::size_t>(r) + static_cast<std::size_t>(rows) * q; };
    for (int it = 0; it < iterations; ++it) {
        double sum = 0, sum2 = 0;
        for (int i = 0; i < n; ++i) {
            sum += J[i];
            sum2 += J[i] * J[i];
        }
        const double mean = sum / n, var = sum2 / n - mean * mean, q0sqr = var / (mean * mean);
        for (int q = 0; q < cols; ++q)
            for (int r = 0; r < rows; ++r) {
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
        for (int q = 0; q < cols; ++q)
            for (int r = 0; r < rows; ++r) {
                const std::size_t i = at(r, q);
                const double d = c[i] * dN[i] + c[at(std::min(r + 1, rows - 1), q)] * dS[i] + c[i] * dW[i] +
                                 c[at(r, std::min(q + 1, cols - 1))] * dE[i];
                J[i] += 0.25 * lambda * d;
            }
    }
    std::vector<float> out(n);
    for (int i = 0; i < n; ++i) out[i] = static_cast<float>(std::log(J[i]) * 255.0);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    const workload::Size size = workload::parse_size(argc, argv, "srad_v1");
    const bool paper = size == workload::Size::paper;
    const int rows = paper ? 502 : 256;
    const int cols = paper ? 458 : 128;
    const int iterations = paper ? 100 : 3;
    const float lambda = 0.5f;
    const int n = rows * cols;

    // Synthetic ultrasound-like image: smooth bright blobs times multiplicative speckle, in 0..255.
    workload::Random rng(502458);
    std::vector<float> image(n);
    for (int q = 0; q < cols; ++q)
        for (int r = 0; r < rows; ++r) {
            const float y = static_cast<float>(r) / rows, x = static_cast<float>(q) / cols;
            const float base = 0.45f + 0.3f * std::sin(6.0f * x) * std::cos(5.0f * y);
            const float speckle = 0.6f + 0.8f * unit(rng);
            image[r + static_cast<std::size_t>(rows) * q] = std::min(255.0f, 255.0f * base * speckle);
        }

    std::vector<int> iN(rows), iS(rows), jW(cols), jE(cols);
    for (int r = 0; r < rows; ++r) {
        iN[r] = std::max(r - 1, 0);
        iS[r] = std::min(r + 1, rows - 1);
    }
    for (int q = 0; q < cols; ++q) {
        jW[q] = std::max(q - 1, 0);
        jE[q] = std::min(q + 1, cols - 1);
    }

    float* d_J = workload::to_device(image);
    int* d_iN = workload::to_device(iN);
    int* d_iS = workload::to_device(iS);
    int* d_jW = workload::to_device(jW);
    int* d_jE = workload::to_device(jE);
    float* d_dN = workload::device_zeros<float>(n);
    float* d_dS = workload::device_zeros<float>(n);
    float* d_dW = workload::device_zeros<float>(n);
    float* d_dE = workload::device_zeros<float>(n);
    float* d_c = workload::device_zeros<float>(n);
    float* d_sums = workload::device_zeros<float>(n);
    float* d_sums2 = workload::device_zeros<float>(n);

    const int blocks = (n + kBlock - 1) / kBlock;
    int launches = 0;
    extract<<<blocks, kBlock>>>(d_J, n);
    CHECK_LAUNCH();
    ++launches;
    for (int it = 0; it < iterations; ++it) {
        prepare<<<blocks, kBlock>>>(d_J, d_sums, d_sums2, n);
        CHECK_LAUNCH();
        ++launches;
        int count = n;
        long long stride = 1;
        while (true) {
            const int reduce_blocks = (count + kBlock - 1) / kBlock;
            reduce<<<reduce_blocks, kBlock>>>(d_sums, d_sums2, count, stride);
            CHECK_LAUNCH();
            ++launches;
            if (reduce_blocks == 1) break;
            count = reduce_blocks;
            stride *= kBlock;
        }
        float total = 0.0f, total2 = 0.0f;
        CHECK(cudaMemcpy(&total, d_sums, sizeof(float), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&total2, d_sums2, sizeof(float), cudaMemcpyDeviceToHost));
        const float mean = total / n;
        const float var = total2 / n - mean * mean;
        const float q0sqr = var / (mean * mean);
        srad<<<blocks, kBlock>>>(d_J, d_iN, d_iS, d_jW, d_jE, d_dN, d_dS, d_dW, d_dE, d_c, rows, n, q0sqr);
        CHECK_LAUNCH();
        srad2<<<blocks, kBlock>>>(d_J, d_iS, d_jE, d_dN, d_dS, d_dW, d_dE, d_c, rows, n, lambda);
        CHECK_LAUNCH();
        launches += 2;
    }
    compress<<<blocks, kBlock>>>(d_J, n);
    CHECK_LAUNCH();
    ++launches;
    const std::vector<float> got = workload::to_host(d_J, n);

    const std::vector<float> want = reference(image, rows, cols, iterations, lambda);
    // Output in 0..255; float vs double over many iterations: a small absolute tolerance.
    const bool ok = workload::close_enough("image", got, want, 1e-3, 0.05);

    for (void* p : {static_cast<void*>(d_J), static_cast<void*>(d_iN), static_cast<void*>(d_iS),
                    static_cast<void*>(d_jW), static_cast<void*>(d_jE), static_cast<void*>(d_dN),
                    static_cast<void*>(d_dS), static_cast<void*>(d_dW), static_cast<void*>(d_dE),
                    static_cast<void*>(d_c), static_cast<void*>(d_sums), static_cast<void*>(d_sums2)})
        CHECK(cudaFree(p));
    return workload::finish("srad_v1", size, ok,
                            std::to_string(rows) + "x" + std::to_string(cols) + ", iterations=" +
                                std::to_string(iterations) + ", launches=" + std::to_string(launches));
}
