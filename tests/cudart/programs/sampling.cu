// A program for sampled timing (tests/cudart/check_sampling.py, docs/sampling.md):
//   1. `polynomial`: one long launch of many waves (CTA sampling), each thread evaluating a polynomial by Horner's
//      rule over its own element;
//   2. `relax`: 30 launches of one small kernel with the same grid (repeated-launch sampling), a Jacobi step on
//      a 1D array that alternates between two buffers.
// Every result is checked on the host: a sampled run must compute exactly what a full run computes.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "check.cuh"

__global__ void polynomial(const float* x, float* y, int n, int degree) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = degree; k >= 0; --k) acc = acc * x[i] + 1.0f / float(k + 1);
    y[i] = acc;
}

__global__ void relax(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float left = i > 0 ? in[i - 1] : 0.0f;
    const float right = i + 1 < n ? in[i + 1] : 0.0f;
    out[i] = 0.25f * left + 0.5f * in[i] + 0.25f * right;
}

int main() {
    const int n = 4000 * 128, degree = 6, relax_n = 64 * 128, steps = 30;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 97) / 97.0f;
    float *dx = nullptr, *dy = nullptr, *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    polynomial<<<n / 128, 128>>>(dx, dy, n, degree);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = degree; k >= 0; --k) acc = acc * x[i] + 1.0f / float(k + 1);
        EXPECT(std::fabs(acc - y[i]) <= 1e-5f * std::fabs(acc) + 1e-6f, "y[%d] = %g, expected %g", i, y[i], acc);
    }

    std::vector<float> u(relax_n), v(relax_n);
    for (int i = 0; i < relax_n; ++i) u[i] = float((i * 37) % 101);
    CHECK(cudaMalloc(&a, relax_n * sizeof(float)));
    CHECK(cudaMalloc(&b, relax_n * sizeof(float)));
    CHECK(cudaMemcpy(a, u.data(), relax_n * sizeof(float), cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; ++s) {
        relax<<<relax_n / 128, 128>>>(s % 2 == 0 ? a : b, s % 2 == 0 ? b : a, relax_n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpy(v.data(), steps % 2 == 0 ? a : b, relax_n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int s = 0; s < steps; ++s) {
        std::vector<float> next(relax_n);
        for (int i = 0; i < relax_n; ++i)
            next[i] = 0.25f * (i > 0 ? u[i - 1] : 0.0f) + 0.5f * u[i] + 0.25f * (i + 1 < relax_n ? u[i + 1] : 0.0f);
        u.swap(next);
    }
    for (int i = 0; i < relax_n; ++i)
        EXPECT(std::fabs(u[i] - v[i]) <= 1e-4f * std::fabs(u[i]) + 1e-5f, "u[%d] = %g, expected %g", i, v[i], u[i]);
    std::printf("sampling: ok\n");
    return 0;
}
