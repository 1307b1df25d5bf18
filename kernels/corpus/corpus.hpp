#pragma once
// The kernel corpus: every CUDA kernel written for gpuarch (kernels/src/*.cu), the PTX nvcc made from it
// (kernels/ptx/*.ptx), a CPU reference and a driver that launches it and checks the result.
//
// A driver is generic over a Launcher, a callable with the shape
//     launch(const func::Module&, std::string_view entry, const func::LaunchConfig&, const func::Args&)
// (the functional-only launcher wraps func::launch; the timing GPU provides its own), so the same driver runs a
// kernel functionally and under timing.
//
// Tags: "memory" (memory-bound) or "compute" (compute-bound), and "divergent" (branch- or memory-divergent:
// lanes take different paths or touch scattered addresses) or "coherent" (lanes of a warp run in lock step over
// contiguous data).
#include "atax.hpp"
#include "bfs.hpp"
#include "bicg.hpp"
#include "bitonic_sort.hpp"
#include "common.hpp"
#include "conv2d.hpp"
#include "devfunc_local.hpp"
#include "histogram_global.hpp"
#include "histogram_shared.hpp"
#include "hotspot.hpp"
#include "jacobi2d.hpp"
#include "kmeans_assign.hpp"
#include "mandelbrot.hpp"
#include "mvt.hpp"
#include "nw.hpp"
#include "reduce_shared.hpp"
#include "reduce_shfl.hpp"
#include "saxpy.hpp"
#include "scan_block.hpp"
#include "sgemm_naive.hpp"
#include "sgemm_tiled.hpp"
#include "spmv_csr_scalar.hpp"
#include "transpose_naive.hpp"
#include "transpose_tiled.hpp"
#include "vector_add.hpp"

#include <gpuarch/core/error.hpp>

#include <span>
#include <string>
#include <string_view>

namespace gpuarch::kernels {

struct CaseInfo {
    std::string_view name; // the case name, also the stem of its .cu, .ptx and driver header
    std::string_view ptx_file; // relative to kernels/ptx
    std::string_view tags; // comma-separated
};

inline std::span<const CaseInfo> corpus_cases() {
    static constexpr CaseInfo cases[] = {
        {"vector_add", "vector_add.ptx", "memory,coherent"},
        {"saxpy", "saxpy.ptx", "memory,coherent"},
        {"reduce_shared", "reduce_shared.ptx", "memory,coherent"},
        {"reduce_shfl", "reduce_shfl.ptx", "memory,coherent"},
        {"scan_block", "scan_block.ptx", "compute,coherent"},
        {"histogram_shared", "histogram_shared.ptx", "memory,divergent"},
        {"histogram_global", "histogram_global.ptx", "memory,divergent"},
        {"sgemm_naive", "sgemm_naive.ptx", "memory,coherent"},
        {"sgemm_tiled", "sgemm_tiled.ptx", "compute,coherent"},
        {"transpose_naive", "transpose_naive.ptx", "memory,divergent"},
        {"transpose_tiled", "transpose_tiled.ptx", "memory,coherent"},
        {"spmv_csr_scalar", "spmv_csr_scalar.ptx", "memory,divergent"},
        {"bfs", "bfs.ptx", "memory,divergent"},
        {"jacobi2d", "jacobi2d.ptx", "memory,coherent"},
        {"hotspot", "hotspot.ptx", "compute,coherent"},
        {"nw", "nw.ptx", "compute,divergent"},
        {"kmeans_assign", "kmeans_assign.ptx", "memory,divergent"},
        {"bitonic_sort", "bitonic_sort.ptx", "compute,coherent"},
        {"conv2d", "conv2d.ptx", "compute,coherent"},
        {"atax", "atax.ptx", "memory,divergent"},
        {"bicg", "bicg.ptx", "memory,divergent"},
        {"mvt", "mvt.ptx", "memory,divergent"},
        {"devfunc_local", "devfunc_local.ptx", "compute,divergent"},
        {"mandelbrot", "mandelbrot.ptx", "compute,divergent"},
    };
    return cases;
}

// Whether `info` carries `tag` as one of its comma-separated tags.
constexpr bool has_tag(const CaseInfo& info, std::string_view tag) {
    std::string_view rest = info.tags;
    while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        if (rest.substr(0, comma) == tag) return true;
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return false;
}

// Throws gpuarch::Error for a name that is not in corpus_cases().
inline const CaseInfo& find_case(std::string_view name) {
    for (const CaseInfo& info : corpus_cases())
        if (info.name == name) return info;
    throw Error("kernel corpus: no case named '" + std::string(name) + "'");
}

// Runs the named case. `module` must be the module parsed from that case's ptx_file.
template <class Launcher>
CaseResult run_case(std::string_view name, func::Device& device, const func::Module& module, Launcher&& launch,
                    Size size) {
    if (name == "vector_add") return run_vector_add(device, module, launch, size);
    if (name == "saxpy") return run_saxpy(device, module, launch, size);
    if (name == "reduce_shared") return run_reduce_shared(device, module, launch, size);
    if (name == "reduce_shfl") return run_reduce_shfl(device, module, launch, size);
    if (name == "scan_block") return run_scan_block(device, module, launch, size);
    if (name == "histogram_shared") return run_histogram_shared(device, module, launch, size);
    if (name == "histogram_global") return run_histogram_global(device, module, launch, size);
    if (name == "sgemm_naive") return run_sgemm_naive(device, module, launch, size);
    if (name == "sgemm_tiled") return run_sgemm_tiled(device, module, launch, size);
    if (name == "transpose_naive") return run_transpose_naive(device, module, launch, size);
    if (name == "transpose_tiled") return run_transpose_tiled(device, module, launch, size);
    if (name == "spmv_csr_scalar") return run_spmv_csr_scalar(device, module, launch, size);
    if (name == "bfs") return run_bfs(device, module, launch, size);
    if (name == "jacobi2d") return run_jacobi2d(device, module, launch, size);
    if (name == "hotspot") return run_hotspot(device, module, launch, size);
    if (name == "nw") return run_nw(device, module, launch, size);
    if (name == "kmeans_assign") return run_kmeans_assign(device, module, launch, size);
    if (name == "bitonic_sort") return run_bitonic_sort(device, module, launch, size);
    if (name == "conv2d") return run_conv2d(device, module, launch, size);
    if (name == "atax") return run_atax(device, module, launch, size);
    if (name == "bicg") return run_bicg(device, module, launch, size);
    if (name == "mvt") return run_mvt(device, module, launch, size);
    if (name == "devfunc_local") return run_devfunc_local(device, module, launch, size);
    if (name == "mandelbrot") return run_mandelbrot(device, module, launch, size);
    throw Error("kernel corpus: no driver for a case named '" + std::string(name) + "'");
}

} // namespace gpuarch::kernels
