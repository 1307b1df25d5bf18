#pragma once
// The SM's scoreboard: per warp, the registers with a write in flight, and which of those a long-latency load
// (global or local) will write. One bit per register in each of two bit sets, so a hazard check is a few loads.
//
// Contract: reserve(w, r, long) when an instruction that writes r issues; release(w, r, long) with the same `long`
// when the write reaches the register file. hazard(w, inst) is RAW on a source or WAW on a destination, and says
// raw_long when one of the registers it waits for is a long-latency load's (the "long latency operation flag" of
// Gong 2020 Sec. 5.3.3; the Gong Fig. 1.2 stall class).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::timing::detail {

class Scoreboard {
public:
    enum class Hazard : std::uint8_t { none, raw_long, raw_other };

    // Room for `warps` warps of `registers` registers each; every bit clear.
    void assign(unsigned warps, std::size_t registers) {
        words_ = (registers + 63) / 64;
        pending_.assign(std::size_t(warps) * words_, 0);
        long_.assign(std::size_t(warps) * words_, 0);
    }
    void clear(unsigned w) {
        for (std::size_t i = 0; i < words_; ++i) pending_of(w)[i] = long_of(w)[i] = 0;
    }
    void reserve(unsigned w, ir::RegId r, bool long_latency) {
        set(pending_of(w), r);
        if (long_latency) set(long_of(w), r);
    }
    void release(unsigned w, ir::RegId r, bool long_latency) {
        reset(pending_of(w), r);
        if (long_latency) reset(long_of(w), r);
    }
    bool pending(unsigned w, ir::RegId r) const { return test(pending_of(w), r); }
    bool long_latency(unsigned w, ir::RegId r) const { return test(long_of(w), r); }

    Hazard hazard(unsigned w, const ir::Instruction& inst) const {
        const std::uint64_t* p = pending_of(w);
        const std::uint64_t* l = long_of(w);
        Hazard h = Hazard::none;
        for (unsigned k = 0; k < inst.num_uses; ++k) {
            const ir::RegId r = inst.uses[k];
            if (test(p, r)) {
                if (test(l, r)) return Hazard::raw_long;
                h = Hazard::raw_other;
            }
        }
        for (unsigned k = 0; k < inst.num_defs; ++k)
            if (test(p, inst.defs[k])) return test(l, inst.defs[k]) ? Hazard::raw_long : Hazard::raw_other;
        return h;
    }

private:
    std::uint64_t* pending_of(unsigned w) { return pending_.data() + std::size_t(w) * words_; }
    const std::uint64_t* pending_of(unsigned w) const { return pending_.data() + std::size_t(w) * words_; }
    std::uint64_t* long_of(unsigned w) { return long_.data() + std::size_t(w) * words_; }
    const std::uint64_t* long_of(unsigned w) const { return long_.data() + std::size_t(w) * words_; }
    static bool test(const std::uint64_t* bits, ir::RegId r) { return (bits[r / 64] >> (r % 64)) & 1U; }
    static void set(std::uint64_t* bits, ir::RegId r) { bits[r / 64] |= std::uint64_t{1} << (r % 64); }
    static void reset(std::uint64_t* bits, ir::RegId r) { bits[r / 64] &= ~(std::uint64_t{1} << (r % 64)); }

    std::size_t words_ = 0;
    std::vector<std::uint64_t> pending_, long_;
};

} // namespace gpuarch::timing::detail
