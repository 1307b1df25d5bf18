#pragma once
// SplitMix64 (Steele, Lea, Flood 2014): the deterministic generator the law tests draw random warp pools and
// register-file traffic from, so a failing seed reproduces exactly.
#include <cstdint>

namespace gpuarch::test_support {

struct SplitMix {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
};

} // namespace gpuarch::test_support
