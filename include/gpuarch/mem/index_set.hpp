#pragma once
// IndexSet: a set of small indices (ports, partitions, table entries) fixed in size at construction, kept as bits so
// that a loop over its members costs one step per member instead of one per possible index. The memory system's
// per-cycle loops use it to visit only the ports, partitions and entries with something to do, in increasing index
// order, the order a scan of every index gives (so results do not depend on it).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuarch::mem {

class IndexSet {
public:
    static constexpr std::uint32_t none = ~std::uint32_t{0};

    explicit IndexSet(std::uint32_t size) : size_(size), words_((std::size_t{size} + 63) / 64, 0) {}

    std::uint32_t size() const { return size_; }
    bool test(std::uint32_t i) const { return (words_[i / 64] >> (i % 64) & 1) != 0; }
    void insert(std::uint32_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
    void erase(std::uint32_t i) { words_[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
    void insert_all() {
        for (std::uint32_t i = 0; i < size_; ++i) insert(i);
    }
    // The lowest member, or none.
    std::uint32_t first() const {
        for (std::size_t w = 0; w < words_.size(); ++w)
            if (words_[w] != 0) return member(w, words_[w]);
        return none;
    }
    // f(i) for every member, in increasing i. f may erase i; members f inserts are not visited.
    template <class F> void for_each(F&& f) const {
        for (std::size_t w = 0; w < words_.size(); ++w)
            for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) f(member(w, bits));
    }
    // f(i) for every member, in increasing i, emptying the set as it goes. f must not insert.
    template <class F> void drain(F&& f) {
        for (std::size_t w = 0; w < words_.size(); ++w) {
            for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) f(member(w, bits));
            words_[w] = 0;
        }
    }

private:
    static std::uint32_t member(std::size_t word, std::uint64_t bits) {
        return static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    }

    std::uint32_t size_;
    std::vector<std::uint64_t> words_;
};

} // namespace gpuarch::mem
