// Shared by the workloads: error checks, the --size argument, deterministic inputs and result comparison.
// Every workload is a plain CUDA program: it runs on a real GPU as it runs under gpuarch-run.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        cudaError_t check_error_ = (call);                                                                             \
        if (check_error_ != cudaSuccess) {                                                                             \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,                            \
                         cudaGetErrorName(check_error_), cudaGetErrorString(check_error_));                            \
            std::exit(3);                                                                                              \
        }                                                                                                              \
    } while (0)

// Checks the last launch: a launch error or a fault during the kernel.
#define CHECK_LAUNCH()                                                                                                 \
    do {                                                                                                               \
        CHECK(cudaGetLastError());                                                                                     \
        CHECK(cudaDeviceSynchronize());                                                                                \
    } while (0)

namespace workload {

enum class Size { small, demo, paper };

// `--size small` (the default: seconds under timing simulation, what CI runs on every machine), `--size paper` (the
// suite's standard input, what the papers ran; `repro` uses it) or, for the programs the main job runs, `--size demo`
// (an input whose grid fills the warp pools of every SM of the gtx480 and kepler machines while a timing run stays
// within seconds; scripts/demo.py). A program without a demo input passes has_demo = false, and `--size demo` then
// stops with the usage line, as anything else unknown does.
inline Size parse_size(int argc, char** argv, const char* name, bool has_demo = false) {
    Size size = Size::small;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string value;
        if (a == "--size" && i + 1 < argc) value = argv[++i];
        else if (a.rfind("--size=", 0) == 0) value = a.substr(7);
        else value = "?";
        if (value == "small") size = Size::small;
        else if (value == "paper") size = Size::paper;
        else if (value == "demo" && has_demo) size = Size::demo;
        else {
            std::fprintf(stderr, "usage: %s [--size small|paper%s]\n", name, has_demo ? "|demo" : "");
            std::exit(2);
        }
    }
    return size;
}
inline const char* size_name(Size s) { return s == Size::small ? "small" : s == Size::demo ? "demo" : "paper"; }

// Deterministic inputs: a 64-bit LCG (Knuth's MMIX constants), so every run sees the same data.
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed * 2862933555777941757ULL + 3037000493ULL) {}
    // 31 random bits (the state's top bits, the best of an LCG).
    std::uint32_t next() {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<std::uint32_t>(state_ >> 33);
    }
    // Uniform in [0, 1): 24 of those bits over 2^24.
    float uniform() { return static_cast<float>(next() >> 7) * (1.0f / 16777216.0f); }
    std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>((static_cast<std::uint64_t>(next()) * n) >> 31); }

private:
    std::uint64_t state_;
};

// Compares a device result with the host reference: |got - want| <= abs_tol + rel_tol * |want| for every element.
// Prints the first mismatches and returns false when any element is out of tolerance.
inline bool close_enough(const char* what, const std::vector<float>& got, const std::vector<float>& want,
                         double rel_tol = 1e-4, double abs_tol = 1e-4) {
    if (got.size() != want.size()) {
        std::fprintf(stderr, "%s: %zu results, expected %zu\n", what, got.size(), want.size());
        return false;
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], w = want[i];
        if (!(std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w))) {
            if (bad < 5) std::fprintf(stderr, "%s[%zu] = %.9g, expected %.9g\n", what, i, g, w);
            ++bad;
        }
    }
    if (bad != 0) std::fprintf(stderr, "%s: %zu of %zu elements differ\n", what, bad, got.size());
    return bad == 0;
}

template <class T>
bool equal(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
    if (got.size() != want.size()) {
        std::fprintf(stderr, "%s: %zu results, expected %zu\n", what, got.size(), want.size());
        return false;
    }
    std::size_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (!(got[i] == want[i])) {
            if (bad < 5)
                std::fprintf(stderr, "%s[%zu] = %lld, expected %lld\n", what, i, static_cast<long long>(got[i]),
                             static_cast<long long>(want[i]));
            ++bad;
        }
    }
    if (bad != 0) std::fprintf(stderr, "%s: %zu of %zu elements differ\n", what, bad, got.size());
    return bad == 0;
}

// The last line every workload prints: "<name>: ok (<size> ...)" on success (what the tests look for), or
// "<name>: FAILED" with exit status 1.
inline int finish(const char* name, Size size, bool ok, const std::string& detail = "") {
    if (ok) std::printf("%s: ok (%s%s%s)\n", name, size_name(size), detail.empty() ? "" : ", ", detail.c_str());
    else std::printf("%s: FAILED (%s)\n", name, size_name(size));
    return ok ? 0 : 1;
}

template <class T>
T* to_device(const std::vector<T>& host) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, host.size() * sizeof(T) + (host.empty() ? sizeof(T) : 0)));
    if (!host.empty()) CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <class T>
T* device_zeros(std::size_t n) {
    T* d = nullptr;
    CHECK(cudaMalloc(&d, (n == 0 ? 1 : n) * sizeof(T)));
    CHECK(cudaMemset(d, 0, (n == 0 ? 1 : n) * sizeof(T)));
    return d;
}
template <class T>
std::vector<T> to_host(const T* device, std::size_t n) {
    std::vector<T> host(n);
    if (n != 0) CHECK(cudaMemcpy(host.data(), device, n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

} // namespace workload
