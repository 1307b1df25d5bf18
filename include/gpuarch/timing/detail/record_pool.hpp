#pragma once
// The in-flight instruction records of a core (SM and BarrelSM share it): a pool that reuses records and names each
// use by a token, so that a late notification for a retired instruction can never reach the record's next user.
//
// Contract: Record has `std::uint32_t index`, `std::uint32_t generation` and `bool alive`. A record keeps its
// address for life (callers hold references across allocations): each lives in its own heap block behind an index
// vector, one load per access (a std::deque of large records paid a block computation on every access: 15% of host
// time on Kepler sgemm_tiled). allocate() bumps the generation of a reused record; token_of(rec) is
// (generation << 32) | index; find(token) is the live record a token names, or nullptr once it was released.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace gpuarch::timing::detail {

template <class Record> class RecordPool {
public:
    // A free record's index (its generation bumped), or a new one constructed from `args`. Not yet alive: the caller
    // fills it and sets `alive`.
    template <class... Args> std::uint32_t allocate(Args&&... args) {
        if (!free_.empty()) {
            const std::uint32_t r = free_.back();
            free_.pop_back();
            ++items_[r]->generation;
            return r;
        }
        Record& rec = *items_.emplace_back(std::make_unique<Record>(std::forward<Args>(args)...));
        rec.index = static_cast<std::uint32_t>(items_.size() - 1);
        return rec.index;
    }
    void release(std::uint32_t r) {
        items_[r]->alive = false;
        free_.push_back(r);
    }
    Record& operator[](std::size_t i) { return *items_[i]; }
    const Record& operator[](std::size_t i) const { return *items_[i]; }
    std::size_t size() const { return items_.size(); }

    static std::uint64_t token_of(const Record& rec) { return (std::uint64_t{rec.generation} << 32) | rec.index; }
    Record* find(std::uint64_t token) {
        const auto index = static_cast<std::uint32_t>(token);
        if (index >= items_.size()) return nullptr;
        Record& rec = *items_[index];
        return rec.alive && rec.generation == static_cast<std::uint32_t>(token >> 32) ? &rec : nullptr;
    }

private:
    std::vector<std::unique_ptr<Record>> items_;
    std::vector<std::uint32_t> free_;
};

} // namespace gpuarch::timing::detail
