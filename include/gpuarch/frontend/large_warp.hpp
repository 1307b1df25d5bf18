#pragma once
// The Large Warp Microarchitecture front end (Narasiman et al. 2010, Sec. 3.1): fewer but larger warps whose
// active threads are packed, each cycle, into SIMD-width sub-warps.
//
//   SubWarpFormer<Rows, Columns, Priority>   the sub-warping logic of Fig. 5 on its own (usable without an SM)
//   LargeWarpFrontend<Size, Simd, Knobs...>  the machine personality a barrel::BarrelSM reads: large-warp size,
//                                             SIMD width, the Sec. 3.1.2 optimizations, the core constants
//
// The active mask of a large warp of K x N threads is a K-row, N-column matrix (Fig. 4): thread t sits at row
// t / N, column t % N, and column c is SIMD lane c (the threads of one row are the consecutive threads one
// baseline warp would hold). A thread never leaves its column, which is what lets the register file be split
// into one bank per lane (Fig. 6b, regfile::PerLaneBankedRF).
//
// Contract of the sub-warping logic (Sec. 3.1.1, "Sub-warp Creation"): start() copies the large warp's active
// mask (the real mask must stay intact); each next() picks at most one active thread per column from the copy,
// clears those bits and returns the sub-warp's lane mask and the row ID of each lane; while bits remain, busy()
// is true and the fetch stage must stall. The number of sub-warps of a packed instruction is therefore the largest
// number of active threads in any one column. Which row a column gives up first is the RowPriority knob (the
// paper does not say; the default, lowest row first, is a priority encoder per column).
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <gpuarch/core/lane_mask.hpp>
#include <gpuarch/frontend/narasiman.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::frontend {

// Which active thread a column contributes first.
enum class RowPriority : std::uint8_t {
    lowest_first, // documented default: a priority encoder from row 0
    highest_first,
};

// How one instruction of a large warp is cut into sub-warps.
enum class SubWarpMode : std::uint8_t {
    packed, // Sec. 3.1.1: one active thread per column per cycle
    row_wise, // Sec. 3.1.2, memory divergence optimization: one sub-warp per non-empty row (global memory)
    single, // Sec. 3.1.2, unconditional control flow optimization: one sub-warp updates the PC for all threads
};

constexpr std::string_view name(SubWarpMode m) {
    switch (m) {
    case SubWarpMode::packed: return "packed";
    case SubWarpMode::row_wise: return "row_wise";
    case SubWarpMode::single: return "single";
    }
    return "?";
}

// One sub-warp: the SIMD lanes it occupies and, per lane, the row of the thread in that lane (Fig. 7: "an active
// mask and row IDs are created for the newly formed sub-warp"). A `whole_warp` sub-warp (the single sub-warp of a
// jump) stands for every active thread of the large warp; its lanes and rows are those of the first packed
// sub-warp, which is what occupies the SIMD lanes.
template <std::size_t Columns> struct SubWarp {
    core::LaneMask<Columns> lanes;
    std::array<std::uint16_t, Columns> row{}; // valid for lanes set in `lanes`
    bool whole_warp = false;
    // Thread index inside the large warp of the thread in `lane`.
    constexpr std::size_t thread(std::size_t lane) const { return std::size_t{row[lane]} * Columns + lane; }
};

template <std::size_t Rows, std::size_t Columns, RowPriority Priority = RowPriority::lowest_first> class SubWarpFormer {
    static_assert(Columns >= 1 && Columns <= 64, "the sub-warping logic handles SIMD widths of 1 to 64 lanes");
    static_assert(Rows >= 1 && Rows <= 4096, "a large warp has between 1 and 4096 rows");

public:
    static constexpr std::size_t rows = Rows;
    static constexpr std::size_t columns = Columns;
    static constexpr RowPriority priority = Priority;
    using Mask = core::LargeWarpMask<Rows, Columns>;
    using Result = SubWarp<Columns>;
    // Sec. 3.3: the copy of the active mask is one bit per thread of the large warp.
    static constexpr std::size_t copy_bits = Rows * Columns;

    constexpr void start(const Mask& active, SubWarpMode mode) { start_flat(active.flat(), mode); }
    // The same from a flat mask whose bit t is thread t (a functional warp's mask); bits past Rows x Columns are
    // ignored.
    template <std::size_t N> constexpr void start_flat(const core::LaneMask<N>& active, SubWarpMode mode) {
        mode_ = mode;
        for (std::size_t r = 0; r < Rows; ++r) rows_[r] = bits_at(active, r * Columns);
    }

    // Bits remain in the copy: the fetch stage must stall (Sec. 3.1.1).
    constexpr bool busy() const {
        for (std::uint64_t r : rows_)
            if (r != 0) return true;
        return false;
    }
    constexpr SubWarpMode mode() const { return mode_; }
    constexpr std::size_t remaining_threads() const {
        std::size_t n = 0;
        for (std::uint64_t r : rows_) n += static_cast<std::size_t>(std::popcount(r));
        return n;
    }

    // Forms one sub-warp and clears its threads from the copy. Precondition: busy().
    constexpr Result next() {
        Result out;
        switch (mode_) {
        case SubWarpMode::packed: out = take_packed(); break;
        case SubWarpMode::row_wise: out = take_row(); break;
        case SubWarpMode::single:
            out = take_packed();
            out.whole_warp = true;
            rows_.fill(0);
            break;
        }
        return out;
    }

    // Sub-warps `active` yields in `mode` (what next() would return before busy() turns false).
    static constexpr std::size_t count(const Mask& active, SubWarpMode mode) {
        SubWarpFormer f;
        f.start(active, mode);
        return f.count_remaining();
    }
    template <std::size_t N>
    static constexpr std::size_t count_flat(const core::LaneMask<N>& active, SubWarpMode mode) {
        SubWarpFormer f;
        f.start_flat(active, mode);
        return f.count_remaining();
    }

private:
    static constexpr std::uint64_t column_mask = Columns == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << Columns) - 1;

    template <std::size_t N> static constexpr std::uint64_t bits_at(const core::LaneMask<N>& m, std::size_t first) {
        if (first >= N) return 0;
        const std::size_t w = first / 64, offset = first % 64;
        std::uint64_t v = m.word(w) >> offset;
        if (offset != 0 && offset + Columns > 64 && w + 1 < core::LaneMask<N>::words)
            v |= m.word(w + 1) << (64 - offset);
        return v & column_mask;
    }

    constexpr std::size_t count_remaining() const {
        switch (mode_) {
        case SubWarpMode::single: return busy() ? 1 : 0;
        case SubWarpMode::row_wise: {
            std::size_t n = 0;
            for (std::uint64_t r : rows_) n += r != 0 ? 1 : 0;
            return n;
        }
        case SubWarpMode::packed: break;
        }
        std::size_t worst = 0;
        for (std::size_t c = 0; c < Columns; ++c) {
            std::size_t n = 0;
            for (std::uint64_t r : rows_) n += (r >> c) & 1U;
            worst = std::max(worst, n);
        }
        return worst;
    }

    static constexpr std::size_t row_at(std::size_t k) {
        return Priority == RowPriority::lowest_first ? k : Rows - 1 - k;
    }

    // Every column gives its first active row (in priority order): the rows are scanned once, each row giving the
    // columns no earlier row has given yet.
    constexpr Result take_packed() {
        Result out;
        std::uint64_t taken = 0;
        for (std::size_t k = 0; k < Rows && taken != column_mask; ++k) {
            const std::size_t r = row_at(k);
            std::uint64_t pick = rows_[r] & ~taken;
            if (pick == 0) continue;
            taken |= pick;
            rows_[r] &= ~pick;
            while (pick != 0) {
                const auto c = static_cast<std::size_t>(std::countr_zero(pick));
                pick &= pick - 1;
                out.row[c] = static_cast<std::uint16_t>(r);
            }
        }
        out.lanes = core::LaneMask<Columns>::from_word(taken);
        return out;
    }
    // The next non-empty row, whole (its threads keep their consecutive order, so its memory accesses coalesce as
    // the baseline warp's would).
    constexpr Result take_row() {
        Result out;
        for (std::size_t k = 0; k < Rows; ++k) {
            const std::size_t r = row_at(k);
            if (rows_[r] == 0) continue;
            out.lanes = core::LaneMask<Columns>::from_word(rows_[r]);
            for (std::size_t c = 0; c < Columns; ++c) out.row[c] = static_cast<std::uint16_t>(r);
            rows_[r] = 0;
            break;
        }
        return out;
    }

    std::array<std::uint64_t, Rows> rows_{};
    SubWarpMode mode_ = SubWarpMode::packed;
};

// ---------------------------------------------------------------------------------------------------------
// Knobs of LargeWarpFrontend. Each names its kind; a kind may be given at most once.
enum class LargeWarpKnobKind : std::uint8_t { row_pick, row_wise_global_memory, single_subwarp_jumps, core };

// Which row each column gives up first (default RowPriority::lowest_first).
template <RowPriority P> struct RowPick {
    static constexpr LargeWarpKnobKind kind = LargeWarpKnobKind::row_pick;
    static constexpr RowPriority value = P;
};
// Sec. 3.1.2, memory divergence optimization: global-memory instructions form one sub-warp per row (default on).
template <bool On> struct RowWiseGlobalMemory {
    static constexpr LargeWarpKnobKind kind = LargeWarpKnobKind::row_wise_global_memory;
    static constexpr bool value = On;
};
// Sec. 3.1.2, unconditional control flow optimization: an unguarded `bra` forms a single sub-warp (default on).
template <bool On> struct SingleSubWarpJumps {
    static constexpr LargeWarpKnobKind kind = LargeWarpKnobKind::single_subwarp_jumps;
    static constexpr bool value = On;
};
// The core constants (thread count, pipeline, register file); default Narasiman2010Core.
template <class Core> struct CoreConstants {
    static constexpr LargeWarpKnobKind kind = LargeWarpKnobKind::core;
    using type = Core;
};

template <class K>
concept LargeWarpKnob = requires {
    { K::kind } -> std::convertible_to<LargeWarpKnobKind>;
};

namespace detail {

template <LargeWarpKnobKind Kind, class... Knobs> struct FindKnob { using type = void; };
template <LargeWarpKnobKind Kind, class First, class... Rest> struct FindKnob<Kind, First, Rest...> {
    using type = std::conditional_t<First::kind == Kind, First, typename FindKnob<Kind, Rest...>::type>;
};
template <LargeWarpKnobKind Kind, auto Default, class... Knobs> constexpr auto knob_value() {
    using K = typename FindKnob<Kind, Knobs...>::type;
    if constexpr (std::is_void_v<K>) return Default;
    else return K::value;
}
template <class... Knobs> constexpr bool knob_kinds_unique() {
    constexpr std::array<LargeWarpKnobKind, sizeof...(Knobs)> kinds{Knobs::kind...};
    for (std::size_t i = 0; i < kinds.size(); ++i)
        for (std::size_t j = i + 1; j < kinds.size(); ++j)
            if (kinds[i] == kinds[j]) return false;
    return true;
}
template <class Fallback, class... Knobs> struct CoreOf {
    using Found = typename FindKnob<LargeWarpKnobKind::core, Knobs...>::type;
    using type = typename std::conditional_t<std::is_void_v<Found>, std::type_identity<Fallback>, Found>::type;
};

// A short constexpr text buffer for names built from the knobs.
struct NameText {
    std::array<char, 64> data{};
    std::size_t size = 0;
    constexpr NameText& append(std::string_view s) {
        for (char c : s) data[size++] = c;
        return *this;
    }
    constexpr NameText& append(unsigned v) {
        std::array<char, 10> digits{};
        std::size_t n = 0;
        do {
            digits[n++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        while (n > 0) data[size++] = digits[--n];
        return *this;
    }
    constexpr std::string_view view() const { return {data.data(), size}; }
};

} // namespace detail

// LargeWarpFrontend<LargeWarpSize, SimdWidth, Knobs...>: large warps of LargeWarpSize threads on SimdWidth lanes.
// LargeWarpSize == SimdWidth is the baseline core (one row: every sub-warp is the whole warp).
// Knobs: RowPick<P>, RowWiseGlobalMemory<bool>, SingleSubWarpJumps<bool>, CoreConstants<Core>.
template <unsigned LargeWarpSize = 256, unsigned SimdWidth = 32, class... Knobs> struct LargeWarpFrontend {
    static_assert((LargeWarpKnob<Knobs> && ...),
                  "every argument after the SIMD width must be a large-warp knob: RowPick<P>, RowWiseGlobalMemory<b>, "
                  "SingleSubWarpJumps<b> or CoreConstants<Core>");
    static_assert(detail::knob_kinds_unique<Knobs...>(), "each kind of large-warp knob may be given at most once");
    static_assert(SimdWidth >= 1 && SimdWidth <= 64, "the SIMD width must be between 1 and 64 lanes");
    static_assert(LargeWarpSize >= SimdWidth && LargeWarpSize % SimdWidth == 0,
                  "a large warp must hold a whole number of SIMD-width rows");

    using Core = typename detail::CoreOf<Narasiman2010Core, Knobs...>::type;
    static constexpr unsigned large_warp_size = LargeWarpSize;
    static constexpr unsigned simd_width = SimdWidth;
    static constexpr unsigned rows = LargeWarpSize / SimdWidth;
    // The functional engine executes a large warp as one warp of LargeWarpSize lanes (with one PDOM stack).
    static constexpr unsigned warp_width = LargeWarpSize;

    static constexpr RowPriority row_priority =
        detail::knob_value<LargeWarpKnobKind::row_pick, RowPriority::lowest_first, Knobs...>();
    static constexpr bool row_wise_global_memory =
        detail::knob_value<LargeWarpKnobKind::row_wise_global_memory, true, Knobs...>();
    static constexpr bool single_subwarp_jumps =
        detail::knob_value<LargeWarpKnobKind::single_subwarp_jumps, true, Knobs...>();
    using Former = SubWarpFormer<rows, SimdWidth, row_priority>;

    // Machine personality, from the core constants (Narasiman 2010 Table 1 by default).
    static constexpr unsigned max_threads = Core::max_threads;
    static_assert(Core::max_threads % LargeWarpSize == 0,
                  "the core's thread count must be a whole number of large warps");
    static constexpr unsigned max_warps = Core::max_threads / LargeWarpSize; // Sec. 6.1: "4 large warps of 256 threads"
    static constexpr unsigned max_ctas = max_warps;
    static constexpr unsigned max_registers = Core::occupancy_registers;
    static constexpr unsigned max_shared_bytes = Core::max_shared_bytes;
    static constexpr unsigned register_allocation_unit = Core::register_allocation_unit;
    static constexpr unsigned fetch_width = Core::fetch_width;
    static constexpr unsigned backend_stages = Core::backend_stages;
    static constexpr unsigned register_read_stage = Core::register_read_stage;
    static constexpr unsigned execute_stage = Core::execute_stage;
    static constexpr unsigned memory_stage = Core::memory_stage;
    static constexpr unsigned writeback_stage = Core::writeback_stage;
    static constexpr unsigned pipeline_depth = Core::pipeline_depth;
    static constexpr unsigned register_file_bytes = Core::register_file_bytes;
    static constexpr unsigned private_memory_bytes_per_thread = Core::private_memory_bytes_per_thread;

    // Sec. 3.3, extra storage of the LWM over the baseline: the copy of the active mask ("256 bits ... 1 bit per
    // thread in a large warp") and the two temporary active-mask buffers of a branch, one per path ("512 bits"):
    // 768 bits (96 bytes) for 256-thread large warps. The baseline (one row) needs none of it.
    static constexpr unsigned active_mask_copy_bits = rows > 1 ? LargeWarpSize : 0;
    static constexpr unsigned branch_buffer_bits = rows > 1 ? 2 * LargeWarpSize : 0;
    static constexpr unsigned extra_storage_bits = active_mask_copy_bits + branch_buffer_bits;

    static constexpr bool is_unconditional_jump(const ir::Instruction& inst) {
        return inst.op == ir::Opcode::bra && inst.guard.reg == ir::no_reg;
    }
    // How an instruction is cut into sub-warps; `space` is the state space its lanes accessed (generic resolved).
    static constexpr SubWarpMode mode_for(const ir::Instruction& inst, ir::StateSpace space) {
        if constexpr (rows == 1) return SubWarpMode::packed;
        if (single_subwarp_jumps && is_unconditional_jump(inst)) return SubWarpMode::single;
        if (row_wise_global_memory && ir::is_memory(inst.op_class) && space == ir::StateSpace::global)
            return SubWarpMode::row_wise;
        return SubWarpMode::packed;
    }

    // "LWM256" (large warps) or "Warp32" (the baseline); non-default knobs and SIMD widths are appended.
    static constexpr detail::NameText name_text = [] {
        detail::NameText t;
        t.append(rows > 1 ? std::string_view("LWM") : std::string_view("Warp")).append(LargeWarpSize);
        if (SimdWidth != Core::simd_width) t.append("/").append(SimdWidth).append("lanes");
        if constexpr (rows > 1) {
            if (row_priority == RowPriority::highest_first) t.append("-highrow");
            if (!row_wise_global_memory) t.append("-nomemopt");
            if (!single_subwarp_jumps) t.append("-nojumpopt");
        }
        return t;
    }();
    static constexpr std::string_view name = name_text.view();
};

} // namespace gpuarch::frontend
