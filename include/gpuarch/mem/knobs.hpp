#pragma once
// Compile-time knob tags for L1<...> (e.g. L1<MSHR<32>, Merges<8>, Sets<32>, Ways<8>, LineBytes<128>,
// AllocOnFill, HashedIndex>). Each tag is a complete type with a `kind`, a `value` and a `name`; L1 reads
// the knobs it is given and takes the documented default for the others (see docs/memory.md).
// Contract: a knob with an impossible value fails to compile with a sentence (MSHR<0>: "an L1 needs at least
// one MSHR entry"); the same kind given twice fails to compile.
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpuarch::mem {

// ---- compile-time strings, so policy names come from the types ("L1<MSHR<32>,Sets<64>>") ----
namespace detail {

template <std::size_t N> struct FixedString {
    std::array<char, N + 1> chars{};
    constexpr FixedString() = default;
    constexpr FixedString(const char (&text)[N + 1]) {
        for (std::size_t i = 0; i < N; ++i) chars[i] = text[i];
    }
    constexpr std::string_view view() const { return std::string_view(chars.data(), N); }
    static constexpr std::size_t size() { return N; }
};
template <std::size_t N> FixedString(const char (&)[N]) -> FixedString<N - 1>;

template <std::size_t A, std::size_t B>
constexpr FixedString<A + B> operator+(const FixedString<A>& a, const FixedString<B>& b) {
    FixedString<A + B> out;
    for (std::size_t i = 0; i < A; ++i) out.chars[i] = a.chars[i];
    for (std::size_t i = 0; i < B; ++i) out.chars[A + i] = b.chars[i];
    return out;
}

constexpr std::size_t digit_count(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 10) {
        v /= 10;
        ++n;
    }
    return n;
}

template <std::uint64_t V> constexpr auto number_string() {
    FixedString<digit_count(V)> out;
    std::uint64_t v = V;
    for (std::size_t i = digit_count(V); i > 0; --i) {
        out.chars[i - 1] = static_cast<char>('0' + v % 10);
        v /= 10;
    }
    return out;
}

// "Prefix<V>"
template <FixedString Prefix, std::uint64_t V> constexpr auto templated_name() {
    return Prefix + FixedString("<") + number_string<V>() + FixedString(">");
}

// Joins the names of a pack with commas.
template <class... Ks> struct JoinNames;
template <> struct JoinNames<> { static constexpr FixedString<0> value{}; };
template <class K> struct JoinNames<K> { static constexpr auto value = K::name_storage; };
template <class K, class K2, class... Rest> struct JoinNames<K, K2, Rest...> {
    static constexpr auto value = K::name_storage + FixedString(",") + JoinNames<K2, Rest...>::value;
};

} // namespace detail

enum class KnobKind : std::uint8_t {
    mshr_entries,
    mshr_merges,
    sets,
    ways,
    line_bytes,
    sector_bytes,
    miss_queue,
    hit_latency,
    lsu_queue,
    allocation,
    indexing,
    shared_banks,
    shared_lanes_per_cycle,
    global_load_caching,
    reexecution_queue,
    texture_load_caching, // appended
};

enum class AllocationPolicy : std::uint8_t {
    on_fill, // the victim is chosen when the fill returns; the old line stays usable meanwhile (Wang 2016 Sec. 5)
    on_miss, // the victim is reserved when the miss is sent (GPGPU-Sim's default, Wang 2016 Fig. 14)
};
enum class SetIndexing : std::uint8_t {
    linear, // set = line number mod sets
    fermi_hash, // the Fermi pseudo-random XOR hash (Wang 2016 Sec. 5, ref. [25]; 32 or 64 sets)
};

#define GPUARCH_MEM_NUMERIC_KNOB(Name, Kind, Minimum, Message)                                                         \
    template <std::uint32_t N> struct Name {                                                                           \
        static_assert(N >= (Minimum), Message);                                                                        \
        static constexpr KnobKind kind = KnobKind::Kind;                                                               \
        static constexpr std::uint32_t value = N;                                                                      \
        static constexpr auto name_storage = detail::templated_name<detail::FixedString(#Name), N>();                  \
        static constexpr std::string_view name = name_storage.view();                                                  \
    }

// MSHR entries per L1 (Wang 2016 Sec. 2.1: 32 per SM; Gong 2020 Table 6.3: 16).
GPUARCH_MEM_NUMERIC_KNOB(MSHR, mshr_entries, 1, "an L1 needs at least one MSHR entry");
// Requests one MSHR entry holds, the allocating one included (Gong 2020 Table 6.3: 8).
GPUARCH_MEM_NUMERIC_KNOB(Merges, mshr_merges, 1, "an MSHR entry holds at least the request that allocated it");
GPUARCH_MEM_NUMERIC_KNOB(Sets, sets, 1, "a cache needs at least one set");
GPUARCH_MEM_NUMERIC_KNOB(Ways, ways, 1, "a cache needs at least one way");
GPUARCH_MEM_NUMERIC_KNOB(LineBytes, line_bytes, 4, "a cache line holds at least one 4-byte word");
// Granularity of uncached loads and of the byte mask of write-through stores.
GPUARCH_MEM_NUMERIC_KNOB(SectorBytes, sector_bytes, 4, "a sector holds at least one 4-byte word");
// Depth of the queue between the L1 and the interconnect ("memory port", Wang 2016 Sec. 2.1).
GPUARCH_MEM_NUMERIC_KNOB(MissQueue, miss_queue, 1, "the L1 miss queue needs at least one slot");
GPUARCH_MEM_NUMERIC_KNOB(HitLatency, hit_latency, 1, "an L1 hit takes at least one cycle");
// Memory instructions the LSU holds, the one being served included.
GPUARCH_MEM_NUMERIC_KNOB(LsuQueue, lsu_queue, 1, "the LSU holds at least one memory instruction");
// Shared-memory banks (32 on Fermi, 16 on compute capability 1.x; Gong 2020 Sec. 2.2).
GPUARCH_MEM_NUMERIC_KNOB(SharedBanks, shared_banks, 1, "shared memory needs at least one bank");
// Lanes whose shared accesses are resolved together (32: a whole warp, 16: per half-warp as on CC 1.x).
GPUARCH_MEM_NUMERIC_KNOB(SharedLanesPerCycle, shared_lanes_per_cycle, 1,
                         "shared memory serves at least one lane per cycle");
// MASCAR's cache-access re-execution queue (Sethia 2015 Sec. 4.2; Wang 2016 Sec. 5: 32 entries): line accesses
// of a load whose head access found no MSHR or miss-queue slot wait there, so the LSU serves the instructions
// behind it. Absent (the default): no queue, the LSU replays its head access (memory occlusion).
GPUARCH_MEM_NUMERIC_KNOB(ReexecutionQueue, reexecution_queue, 1,
                         "a re-execution queue holds at least one access (omit the knob for none)");

#undef GPUARCH_MEM_NUMERIC_KNOB

struct AllocOnFill {
    static constexpr KnobKind kind = KnobKind::allocation;
    static constexpr auto value = AllocationPolicy::on_fill;
    static constexpr detail::FixedString name_storage{"AllocOnFill"};
    static constexpr std::string_view name = name_storage.view();
};
struct AllocOnMiss {
    static constexpr KnobKind kind = KnobKind::allocation;
    static constexpr auto value = AllocationPolicy::on_miss;
    static constexpr detail::FixedString name_storage{"AllocOnMiss"};
    static constexpr std::string_view name = name_storage.view();
};
struct HashedIndex {
    static constexpr KnobKind kind = KnobKind::indexing;
    static constexpr auto value = SetIndexing::fermi_hash;
    static constexpr detail::FixedString name_storage{"HashedIndex"};
    static constexpr std::string_view name = name_storage.view();
};
struct LinearIndex {
    static constexpr KnobKind kind = KnobKind::indexing;
    static constexpr auto value = SetIndexing::linear;
    static constexpr detail::FixedString name_storage{"LinearIndex"};
    static constexpr std::string_view name = name_storage.view();
};
// Global loads bypass the L1 and go to L2 as sector-sized requests (Kepler's default for global data).
struct BypassL1ForGlobalLoads {
    static constexpr KnobKind kind = KnobKind::global_load_caching;
    static constexpr bool value = false;
    static constexpr detail::FixedString name_storage{"BypassL1ForGlobalLoads"};
    static constexpr std::string_view name = name_storage.view();
};
struct CacheGlobalLoads {
    static constexpr KnobKind kind = KnobKind::global_load_caching;
    static constexpr bool value = true;
    static constexpr detail::FixedString name_storage{"CacheGlobalLoads"};
    static constexpr std::string_view name = name_storage.view();
};

// The texture cache: tex fetches and suld surface loads are looked up in the L1's tag array, the
// unified L1/texture cache of Maxwell and later, and with CacheTextureLoads (the default) they allocate there even
// where global loads bypass the L1 (BypassL1ForGlobalLoads: Kepler serves texture and read-only loads from its
// texture cache, not from L2). BypassL1ForTextureLoads sends them around the L1 as sector requests. GPGPU-Sim
// models a separate read-only texture cache beside the L1D (its GTX480 configuration: `-tex_cache_l1
// N:128:5,L:R:m:N:L,F:128:4,128:2`, 4 KB per SM); a separate array is not modelled here (docs/memory.md).
struct CacheTextureLoads {
    static constexpr KnobKind kind = KnobKind::texture_load_caching;
    static constexpr bool value = true;
    static constexpr detail::FixedString name_storage{"CacheTextureLoads"};
    static constexpr std::string_view name = name_storage.view();
};
struct BypassL1ForTextureLoads {
    static constexpr KnobKind kind = KnobKind::texture_load_caching;
    static constexpr bool value = false;
    static constexpr detail::FixedString name_storage{"BypassL1ForTextureLoads"};
    static constexpr std::string_view name = name_storage.view();
};

template <class K>
concept L1Knob = requires {
    { K::kind } -> std::convertible_to<KnobKind>;
    K::value;
    { K::name } -> std::convertible_to<std::string_view>;
};

namespace detail {

// The value of the first knob of `Kind` in the pack, or `fallback`.
template <KnobKind Kind, auto Fallback, class... Knobs> struct KnobValue { static constexpr auto value = Fallback; };
template <KnobKind Kind, auto Fallback, class K, class... Rest> struct KnobValue<Kind, Fallback, K, Rest...> {
    static constexpr auto value = [] {
        if constexpr (K::kind == Kind) return static_cast<decltype(Fallback)>(K::value);
        else return KnobValue<Kind, Fallback, Rest...>::value;
    }();
};

template <class... Knobs> constexpr bool knob_kinds_unique() {
    for (int k = 0; k <= static_cast<int>(KnobKind::texture_load_caching); ++k) {
        const std::size_t n =
            ((static_cast<int>(Knobs::kind) == k ? std::size_t{1} : std::size_t{0}) + ... + std::size_t{0});
        if (n > 1) return false;
    }
    return true;
}

} // namespace detail

} // namespace gpuarch::mem
