#pragma once
// Sampled timing within one launch (TimingOptions::cta_sampling; docs/sampling.md): which CTAs a GPU simulates in
// detail, and when it measures.
//
// Systematic sampling of waves. A wave is what the whole GPU holds at once (CTAs per SM x SMs); CTA c belongs to
// wave c / wave_size. Contract, for GPU::launch:
// - The first `ramp_waves` waves fill the machine and the last wave drains it: both always run in detail, so the
//   launch's start and end are simulated, not estimated.
// - Of the waves between, a chunk of two runs in detail every k waves, k chosen so that about `batches` chunks
//   do; the others are skipped: when dispatch reaches a skipped CTA, it and the rest of its run of skipped waves
//   execute at once on the functional engine (their results land in memory as in a full run, their global
//   accesses warm the L2), and dispatch goes on with the next chunk, so the machine stays full of detailed CTAs.
// - A chunk's first wave re-warms what the skip left cold (the L1s, the CTAs' staggering) and is not measured:
//   the batch is from the dispatch of its second wave's first CTA to the dispatch of the next chunk (or of the
//   last wave). The cycles, thread instructions and statistics over a batch feed the extrapolation
//   (sample/ratio_estimate.hpp): the skipped CTAs' cycles and statistics follow from their thread instructions.
//   Spreading the batches over the grid measures CTAs from every part of it, and keeps them far enough apart to
//   be nearly independent.
// - A launch with fewer than three waves per chunk period, and a cooperative launch, run every CTA in detail: the
//   result is then the unsampled one, exactly.
#include <cstdint>

namespace gpuarch::sample {

struct CtaSamplingOptions {
    bool enabled = false;
    // Measured waves between the ramp and the last wave, about; at least 2 (an error estimate needs two batches).
    unsigned batches = 10;
};

class CtaSampler {
public:
    static constexpr std::uint64_t ramp_waves = 2; // the initial dispatch, then a wave of staggered refills

    CtaSampler(const CtaSamplingOptions& options, std::uint64_t wave_size, std::uint64_t total_ctas, bool cooperative)
        : wave_(wave_size == 0 ? 1 : wave_size), total_(total_ctas) {
        waves_ = (total_ctas + wave_ - 1) / wave_;
        const std::uint64_t batches = options.batches < 2 ? 2 : options.batches;
        const std::uint64_t middle = waves_ > ramp_waves + 1 ? waves_ - ramp_waves - 1 : 0;
        period_ = middle / batches;
        active_ = options.enabled && !cooperative && wave_size != 0 && period_ >= 3;
    }

    bool active() const { return active_; }
    std::uint64_t wave_size() const { return wave_; }
    std::uint64_t period() const { return period_; } // a chunk of two middle waves runs in detail every period

    bool detailed(std::uint64_t cta) const {
        if (!active_) return true;
        const std::uint64_t w = cta / wave_;
        return w < ramp_waves || w + 1 >= waves_ || (w - ramp_waves) % period_ < 2;
    }
    // The first CTA at or after `cta` that runs in detail (total_ctas when none does).
    std::uint64_t next_detailed(std::uint64_t cta) const {
        if (detailed(cta)) return cta;
        const std::uint64_t w = cta / wave_;
        std::uint64_t next = ramp_waves + ((w - ramp_waves) / period_ + 1) * period_;
        if (next + 1 > waves_) next = waves_ - 1;
        const std::uint64_t first = next * wave_;
        return first < total_ ? first : total_;
    }
    // Whether dispatching `cta` opens a batch: the first CTA of a chunk's second wave (not the last wave).
    bool opens_batch(std::uint64_t cta) const {
        if (!active_ || cta % wave_ != 0 || cta >= total_) return false;
        const std::uint64_t w = cta / wave_;
        return w >= ramp_waves && w + 1 < waves_ && (w - ramp_waves) % period_ == 1;
    }
    // Whether dispatching `cta` closes the open batch: the first CTA of a chunk or of the last wave.
    bool closes_batch(std::uint64_t cta) const {
        if (!active_ || cta % wave_ != 0 || cta >= total_) return false;
        const std::uint64_t w = cta / wave_;
        return w >= ramp_waves && (w + 1 == waves_ || (w - ramp_waves) % period_ == 0);
    }

private:
    std::uint64_t wave_, total_, waves_ = 0, period_ = 0;
    bool active_ = false;
};

} // namespace gpuarch::sample
