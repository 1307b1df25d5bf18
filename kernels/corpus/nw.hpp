#pragma once
// Driver and CPU reference for kernels/src/nw.cu (Needleman-Wunsch score matrix). Integers: bit-exact.
#include "common.hpp"

namespace gpuarch::kernels {

struct NwProblem {
    std::int32_t n = 0; // sequence length, a multiple of 16
    std::int32_t penalty = 10; // gap penalty
    std::vector<std::int32_t> ref; // (n+1) x (n+1): similarity of seq1[i-1] and seq2[j-1] at (i, j), i, j >= 1
    std::vector<std::int32_t> score; // (n+1) x (n+1): row 0 and column 0 set to -index * penalty, rest 0
};

// Two random sequences over a 24-letter alphabet scored with a random symmetric BLOSUM-like table in [-4, 11].
inline NwProblem nw_problem(std::int32_t n, std::uint64_t seed) {
    SplitMix64 rng(seed);
    constexpr std::size_t letters = 24;
    std::int32_t table[letters][letters];
    for (std::size_t i = 0; i < letters; ++i)
        for (std::size_t j = 0; j <= i; ++j)
            table[i][j] = table[j][i] = (i == j) ? rng.uniform_int(4, 11) : rng.uniform_int(-4, 2);
    std::vector<std::size_t> seq1(static_cast<std::size_t>(n)), seq2(static_cast<std::size_t>(n));
    for (std::size_t& s : seq1) s = rng.below(letters);
    for (std::size_t& s : seq2) s = rng.below(letters);

    NwProblem p;
    p.n = n;
    const auto w = static_cast<std::size_t>(n) + 1;
    p.ref.assign(w * w, 0);
    p.score.assign(w * w, 0);
    for (std::size_t i = 1; i < w; ++i)
        for (std::size_t j = 1; j < w; ++j) p.ref[i * w + j] = table[seq1[i - 1]][seq2[j - 1]];
    for (std::size_t i = 0; i < w; ++i) {
        p.score[i * w] = -static_cast<std::int32_t>(i) * p.penalty;
        p.score[i] = -static_cast<std::int32_t>(i) * p.penalty;
    }
    return p;
}

inline std::vector<std::int32_t> nw_reference(const NwProblem& p) {
    std::vector<std::int32_t> s = p.score;
    const auto w = static_cast<std::size_t>(p.n) + 1;
    for (std::size_t i = 1; i < w; ++i)
        for (std::size_t j = 1; j < w; ++j)
            s[i * w + j] = std::max({s[(i - 1) * w + j - 1] + p.ref[i * w + j], s[(i - 1) * w + j] - p.penalty,
                                     s[i * w + j - 1] - p.penalty});
    return s;
}

// One launch per tile anti-diagonal (2 * tiles - 1 launches), one block of 16 threads per tile on it.
// small: n = 64 (4 x 4 tiles, 7 launches); large: n = 320 (20 x 20 tiles, 39 launches).
template <class Launcher>
CaseResult run_nw(func::Device& device, const func::Module& module, Launcher&& launch, Size size) {
    constexpr std::int32_t tile = 16;
    const NwProblem p = nw_problem(size == Size::small ? 64 : 320, 0x7ec7'0add'0000'0011ULL);
    const std::int32_t tiles = p.n / tile;
    DeviceBuffer dscore(device, p.score), dref(device, p.ref);
    for (std::int32_t diag = 0; diag < 2 * tiles - 1; ++diag) {
        const std::int32_t first = std::max(0, diag - (tiles - 1));
        const std::int32_t last = std::min(diag, tiles - 1);
        launch(module, "nw_diagonal", config_1d(static_cast<std::uint32_t>(last - first + 1), tile),
               func::Args(dscore.ptr(), dref.ptr(), p.n, p.penalty, diag));
    }
    Checker check;
    check.exact("score", dscore.download<std::int32_t>(p.score.size()), nw_reference(p));
    return check.result();
}

} // namespace gpuarch::kernels
