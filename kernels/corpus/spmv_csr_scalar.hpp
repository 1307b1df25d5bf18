#pragma once
// Driver, matrix generator and CPU reference for kernels/src/spmv_csr_scalar.cu. Exact comparison: each row is an
// fma.rn.f32 chain in CSR order starting from 0, mirrored with std::fma.
#include "common.hpp"

namespace gpuarch::kernels {

struct CsrMatrix {
    std::int32_t rows = 0, cols = 0;
    std::vector<std::int32_t> row_ptr, col_idx;
    std::vector<float> vals;
};

// Square matrix with irregular rows: most rows hold 0..12 entries, every 32nd row 40..96 (so some lanes of a warp
// loop many more trips than the rest). Column indices are random and sorted within a row.
inline CsrMatrix spmv_matrix(std::int32_t rows, std::uint64_t seed) {
    SplitMix64 rng(seed);
    CsrMatrix m;
    m.rows = m.cols = rows;
    m.row_ptr.push_back(0);
    for (std::int32_t r = 0; r < rows; ++r) {
        const std::int32_t length = (r % 32 == 5) ? rng.uniform_int(40, 96) : rng.uniform_int(0, 12);
        std::vector<std::int32_t> cols(static_cast<std::size_t>(length));
        for (std::int32_t& c : cols) c = static_cast<std::int32_t>(rng.below(static_cast<std::uint32_t>(rows)));
        std::sort(cols.begin(), cols.end());
        for (std::int32_t c : cols) {
            m.col_idx.push_back(c);
            m.vals.push_back(rng.uniform(-1.0f, 1.0f));
        }
        m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
    }
    return m;
}

inline std::vector<float> spmv_reference(const CsrMatrix& m, const std::vector<float>& x) {
    std::vector<float> y(static_cast<std::size_t>(m.rows));
    for (std::size_t r = 0; r < y.size(); ++r) {
        float dot = 0.0f;
        for (auto j = static_cast<std::size_t>(m.row_ptr[r]); j < static_cast<std::size_t>(m.row_ptr[r + 1]); ++j)
            dot = std::fma(m.vals[j], x[static_cast<std::size_t>(m.col_idx[j])], dot);
        y[r] = dot;
    }
    return y;
}

// small: 300 rows; large: 20000 rows (about 150000 non-zeros). Blocks of 128 threads, one per row.
template <class Launcher>
CaseResult run_spmv_csr_scalar(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    const std::int32_t rows = size == Size::small ? 300 : 20000;
    constexpr std::uint32_t block = 128;
    const CsrMatrix m = spmv_matrix(rows, 0x7ec7'0add'0000'000cULL);
    SplitMix64 rng(0x7ec7'0add'0000'000dULL);
    const std::vector<float> x = random_floats(rng, static_cast<std::size_t>(m.cols), -2.0f, 2.0f);

    DeviceBuffer drow(device, m.row_ptr), dcol(device, m.col_idx), dval(device, m.vals), dx(device, x);
    DeviceBuffer dy = poisoned_buffer(device, static_cast<std::size_t>(rows) * sizeof(float));
    launch(module, "spmv_csr_scalar", config_1d(ceil_div(static_cast<std::uint64_t>(rows), block), block),
           func::Args(rows, drow.ptr(), dcol.ptr(), dval.ptr(), dx.ptr(), dy.ptr()));
    Checker check;
    check.exact("y", dy.download<float>(static_cast<std::size_t>(rows)), spmv_reference(m, x));
    return check.result();
}

} // namespace gpuarch::kernels
