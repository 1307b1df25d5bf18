#pragma once
// What the memory-aware schedulers (OAWSStatic, OAWSDynamic, SWL, CCWS, MASCAR) share: reading a warp's next
// instruction from the view, the age rank of a warp among the scheduler's warps, greedy-then-oldest selection
// over a subset of the ready warps, and compile-time policy names.
//
// Contract: nothing here keeps state across kernels by itself; every helper is deterministic.
#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>
#include <gpuarch/timing/concepts.hpp>
#include <gpuarch/timing/hooks.hpp>

namespace gpuarch::sched {

// A view that also shows each warp's next decoded instruction (timing/hooks.hpp; the SM's PoolView does, the
// archetype does not). Memory-aware schedulers need it: the helpers below stop compilation on a view without it, so
// that such a scheduler can never silently run as its base prioritization.
template <class V>
concept InstructionPreview = timing::PreviewsInstructions<V>;
// The sentence the helpers below stop with.
template <class View> constexpr void require_instruction_preview() {
    static_assert(timing::PreviewsInstructions<View>,
                  "a memory-aware scheduler reads each warp's next instruction, so its view must preview "
                  "instructions (timing::PreviewsInstructions, timing/hooks.hpp); the SM's view does");
}

// What a warp's next instruction does to the L1 data cache.
enum class NextAccess : std::uint8_t {
    unknown, // nothing decoded (the warp's instruction buffer is empty)
    compute, // not a memory instruction
    cached_load, // ld.global / ld.local / generic ld: goes through the L1 data cache and may take MSHR entries
    other_memory, // stores, atomics, shared/constant/parameter loads: no data-cache MSHR entry (Wang 2016 Sec. 2.1:
    // "stores require no MSHR")
};

constexpr NextAccess access_of(ir::OpClass c) {
    switch (c) {
    case ir::OpClass::load_global:
    case ir::OpClass::load_local:
    case ir::OpClass::load_generic:
    case ir::OpClass::prefetch: // a prefetch takes MSHR entries as a load does
    case ir::OpClass::texture: // so do texture fetches and surface loads (the L1 serves them as global loads)
        return NextAccess::cached_load;
    case ir::OpClass::async_copy: return NextAccess::cached_load; // cp.async: a global load
    default: return ir::is_memory(c) ? NextAccess::other_memory : NextAccess::compute;
    }
}

// Loads, stores and atomics to global, local or generic addresses: what needs the L1 data cache's MSHRs or its miss
// queue (MASCAR's "memory instructions" whose saturation it watches).
constexpr bool uses_data_path(ir::OpClass c) {
    switch (c) {
    case ir::OpClass::load_global:
    case ir::OpClass::load_local:
    case ir::OpClass::load_generic:
    case ir::OpClass::store_global:
    case ir::OpClass::store_local:
    case ir::OpClass::store_generic:
    case ir::OpClass::atomic_global:
    case ir::OpClass::atomic_generic:
    case ir::OpClass::prefetch:
    case ir::OpClass::texture: return true;
    case ir::OpClass::async_copy: return true;
    default: return false;
    }
}

// The op class of a warp's next instruction; nullopt when its instruction buffer is empty. A ready warp's is read
// from what the view keeps (PoolView::ready_next_class, under event-driven issue) instead of the decoded record.
template <class View> std::optional<ir::OpClass> next_class(const View& view, unsigned slot) {
    require_instruction_preview<View>();
    if constexpr (requires {
                      { view.ready_next_class(slot) } -> std::same_as<ir::OpClass>;
                  }) {
        if (view.ready(slot)) return view.ready_next_class(slot);
    }
    const ir::Instruction* inst = view.next_instruction(slot);
    if (inst == nullptr) return std::nullopt;
    return inst->op_class;
}
template <class View> NextAccess next_access(const View& view, unsigned slot) {
    const std::optional<ir::OpClass> c = next_class(view, slot);
    return c ? access_of(*c) : NextAccess::unknown;
}
template <class View> bool next_is_memory(const View& view, unsigned slot) {
    const NextAccess a = next_access(view, slot);
    return a == NextAccess::cached_load || a == NextAccess::other_memory;
}
template <class View> bool next_uses_data_path(const View& view, unsigned slot) {
    const std::optional<ir::OpClass> c = next_class(view, slot);
    return c && uses_data_path(*c);
}
template <class View> unsigned next_active_lanes(const View& view, unsigned slot) {
    require_instruction_preview<View>();
    return view.next_active_lanes(slot);
}
template <class View> ir::Pc next_pc(const View& view, unsigned slot) {
    require_instruction_preview<View>();
    return view.next_pc(slot);
}

// Greedy-then-oldest over the ready warps that `allowed` admits (Rogers 2012 Sec. 3): the warp that issued last
// while it is ready and admitted, else the oldest ready admitted warp (ties: lowest slot). With an `allowed` that
// admits everything it selects exactly as sched::GTO.
// `allowed` is asked only about ready slots, in ascending slot order (it may count what it refuses: OAWS does).
template <class View, class Allowed> unsigned greedy_then_oldest(const View& view, unsigned greedy, Allowed&& allowed) {
    if (greedy < view.pool_size() && view.ready(greedy) && allowed(greedy)) return greedy;
    unsigned best = timing::no_warp;
    std::uint64_t best_age = 0;
    auto consider = [&](unsigned slot) {
        if (!allowed(slot)) return;
        const std::uint64_t age = view.age(slot);
        if (best == timing::no_warp || age < best_age) {
            best = slot;
            best_age = age;
        }
    };
    // A view that offers its ready slots as one mask (the SM's, pools of at most 64 slots) is scanned by its set
    // bits: the same slots in the same order as the loop below, without asking about the others.
    if constexpr (requires {
                      { view.ready_mask() } -> std::convertible_to<std::uint64_t>;
                  }) {
        if (view.pool_size() <= 64) {
            for (std::uint64_t bits = view.ready_mask(); bits != 0; bits &= bits - 1)
                consider(static_cast<unsigned>(std::countr_zero(bits)));
            return best;
        }
    }
    for (unsigned slot = 0; slot < view.pool_size(); ++slot)
        if (view.ready(slot)) consider(slot);
    return best;
}

// Whether any slot of the view is ready (by its mask where the view offers one, as greedy_then_oldest).
template <class View> bool any_ready(const View& view) {
    if constexpr (requires {
                      { view.ready_mask() } -> std::convertible_to<std::uint64_t>;
                  }) {
        if (view.pool_size() <= 64) return view.ready_mask() != 0;
    }
    for (unsigned slot = 0; slot < view.pool_size(); ++slot)
        if (view.ready(slot)) return true;
    return false;
}

// The last select of a greedy-then-oldest scheduler, kept where it withheld every ready warp, so that the next
// select can return the same answer without asking about any warp (docs/concepts.md, "Repeating a withheld select").
// For views that show the SM's state epoch (timing::ShowsStateEpoch) and pools of at most 64 slots.
//
// Contract: such a select reads the ready mask, the ready warps' head instructions and the greedy warp; the epoch
// advances on every event that changes a head or the greedy warp. `Inputs` is everything else the scheduler's
// select reads (compared with ==, or by a predicate that says whether the remembered inputs withhold the same warps
// in the scheduler's state now: the _if forms); a scheduler that cannot name a change in its inputs calls forget().
// `Outcome` is what the withheld select counted, which a repeat counts again.
template <class Inputs, class Outcome = std::monostate> class WithheldSelect {
public:
    // The remembered select's outcome when this select repeats it (same epoch, ready mask and inputs), else null.
    // A repeat with some warp ready counts as a reused select.
    template <class View> const Outcome* repeat(const View& view, const Inputs& inputs) {
        return repeat_if(view, [&](const Inputs& remembered) { return remembered == inputs; });
    }
    template <class View, class Same> const Outcome* repeat_if(const View& view, Same&& same) {
        static_assert(timing::ShowsStateEpoch<View>,
                      "a withheld select can be repeated only under a view that shows the SM's state epoch "
                      "(timing::ShowsStateEpoch, timing/hooks.hpp)");
        if (!matches_if(view, same)) return nullptr;
        return &repeat_times(1);
    }
    // Whether a select on this view would repeat the remembered one (repeat_if, without counting).
    template <class View, class Same> bool matches_if(const View& view, Same&& same) const {
        return valid_ && epoch_ == view.state_epoch() && ready_ == view.ready_mask() && same(inputs_);
    }
    // `count` repeats at once (timing::WithheldCycleHook): the remembered outcome. Precondition: matches_if().
    const Outcome& repeat_times(std::uint64_t count) {
        if (ready_ != 0) repeated_ += count;
        return outcome_;
    }
    // Keeps this select when it picked no warp and the ready mask covers the pool; forgets the last one otherwise.
    template <class View>
    void remember(const View& view, unsigned pick, const Inputs& inputs, const Outcome& outcome = Outcome{}) {
        valid_ = pick == timing::no_warp && view.pool_size() <= 64;
        if (!valid_) return;
        epoch_ = view.state_epoch();
        ready_ = view.ready_mask();
        inputs_ = inputs;
        outcome_ = outcome;
    }
    void forget() { valid_ = false; }
    // Of the selects that withheld every ready warp (some warp ready), those that repeated the last one instead of
    // asking about each ready warp: a host-time figure, not a statistic of the simulated machine.
    std::uint64_t repeated() const { return repeated_; }

private:
    bool valid_ = false;
    std::uint64_t epoch_ = 0, ready_ = 0;
    Inputs inputs_{};
    Outcome outcome_{};
    std::uint64_t repeated_ = 0;
};

// The relative age of each occupied warp among a set of warps (rank 0 = oldest), as GTO orders warps it does not
// issue greedily (Wang 2016 Sec. 3.3 / Fig. 4: "age 0 represents the oldest warp"). Rebuilt lazily after a warp
// starts or exits. Ties in age break by slot.
class AgeRank {
public:
    void invalidate() { valid_ = false; }
    bool valid() const { return valid_; }

    // The test inline, the rebuild out of line: schedulers call this in every select, and it rebuilds only after a
    // warp started or exited.
    template <class View> void refresh(const View& view) {
        if (!valid_ || rank_.size() != view.pool_size()) rebuild(view);
    }
    // Rank of `slot` (unranked when it holds no warp).
    unsigned rank(unsigned slot) const { return slot < rank_.size() ? rank_[slot] : unranked; }
    unsigned occupied() const { return static_cast<unsigned>(order_.size()); }
    // Slots from oldest to youngest.
    const std::vector<unsigned>& order() const { return order_; }
    // Ages of order(), oldest first.
    const std::vector<std::uint64_t>& ages() const { return ages_; }

    static constexpr unsigned unranked = ~0U;

private:
    // Ranks the occupied slots by age, ties by slot.
    template <class View> [[gnu::noinline]] void rebuild(const View& view) {
        const unsigned n = view.pool_size();
        rank_.assign(n, unranked);
        order_.clear();
        ages_.clear();
        for (unsigned i = 0; i < n; ++i)
            if (view.occupied(i)) order_.push_back(i);
        std::sort(order_.begin(), order_.end(), [&view](unsigned a, unsigned b) {
            const std::uint64_t aa = view.age(a), ab = view.age(b);
            return aa != ab ? aa < ab : a < b;
        });
        for (unsigned r = 0; r < order_.size(); ++r) {
            rank_[order_[r]] = r;
            ages_.push_back(view.age(order_[r]));
        }
        valid_ = true;
    }

    bool valid_ = false;
    std::vector<unsigned> rank_;
    std::vector<unsigned> order_;
    std::vector<std::uint64_t> ages_;
};

// A view that tells which warps wait at a barrier (timing/hooks.hpp; the SM's does); schedulers that keep warps out
// of a pool use it so that a barrier wait does not hold a place.
template <class V>
concept BarrierView = timing::ReportsBarrierWaits<V>;

// ---- compile-time names ("SWL<2>", "OAWSStatic<50>") from the policy's parameters ----
namespace detail {

template <std::size_t N> struct Name {
    std::array<char, N + 1> chars{};
    constexpr std::string_view view() const { return std::string_view(chars.data(), N); }
};

constexpr std::size_t digits(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 10) {
        v /= 10;
        ++n;
    }
    return n;
}
constexpr std::size_t length(const char* s) {
    std::size_t n = 0;
    while (s[n] != '\0') ++n;
    return n;
}

// "<prefix><V>" followed by `suffix`.
template <std::size_t N> constexpr Name<N> numbered(const char* prefix, std::uint64_t v, const char* suffix) {
    Name<N> out;
    std::size_t at = 0;
    for (std::size_t i = 0; prefix[i] != '\0'; ++i) out.chars[at++] = prefix[i];
    const std::size_t d = digits(v);
    for (std::size_t i = d; i > 0; --i) {
        out.chars[at + i - 1] = static_cast<char>('0' + v % 10);
        v /= 10;
    }
    at += d;
    for (std::size_t i = 0; suffix[i] != '\0'; ++i) out.chars[at++] = suffix[i];
    return out;
}

} // namespace detail

} // namespace gpuarch::sched
