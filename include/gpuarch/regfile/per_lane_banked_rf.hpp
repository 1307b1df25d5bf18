#pragma once
// PerLaneBankedRF: the register file of the Large Warp Microarchitecture (Narasiman et al. 2010, Sec. 3.1.1,
// Fig. 6b): "split up into separately indexable banks, one bank per SIMD lane", each with its own address decoder,
// so a sub-warp may take its threads from different rows of the large warp as long as they sit in different
// columns (lanes). The register file of a barrel::BarrelSM (not the operand-collector RegisterFile slot of
// gpuarch::SM: a barrel core has no collectors, and a sub-warp carries a row ID per lane).
//
// Contract:
//  - read(warp, rows, sources) returns the cycles the register-read stage needs for one sub-warp; rows[c] is the
//    row (of large warp `warp`) whose thread occupies lane c, or no_row for an idle lane. A thread's registers live
//    only in the bank of its own lane, so the interface cannot even express a lane crossing.
//  - AddressDecoders::per_lane (Fig. 6b, the LWM): every bank decodes its own (warp, row, register) address, so
//    any sub-warp reads in one cycle.
//  - AddressDecoders::shared (Fig. 6a, the baseline's "very wide single banked structure indexed by warp ID
//    concatenated with the register ID"): one decoder drives every lane, so a sub-warp whose lanes come from d
//    distinct rows reads in d cycles. With baseline warps (one row) that is always one cycle; it shows what the
//    per-lane decoders buy a large-warp core.
//  - Storage is the configured size split evenly over the lanes (Table 1: 64 KB over 32 lanes = 2 KB per bank);
//    rows and warps outside the configured shape are rejected loudly.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/stats.hpp>

namespace gpuarch::regfile {

enum class AddressDecoders : std::uint8_t {
    per_lane, // Fig. 6b: one decoder per lane bank (the LWM)
    shared, // Fig. 6a: one decoder for all lanes (the baseline)
};

struct LaneBankConfig {
    unsigned lanes = 32; // SIMD width = number of banks
    unsigned warp_slots = 32; // (large) warps resident at once
    unsigned rows_per_warp = 1; // large-warp size / SIMD width
    unsigned bytes = 64 * 1024; // total storage (Narasiman 2010 Table 1: 64 KB)
};

template <AddressDecoders Decoders = AddressDecoders::per_lane> class PerLaneBankedRF {
public:
    static constexpr std::string_view name =
        Decoders == AddressDecoders::per_lane ? "PerLaneBankedRF" : "SingleDecoderRF";
    static constexpr AddressDecoders decoders = Decoders;
    static constexpr std::uint16_t no_row = 0xFFFF;

    explicit PerLaneBankedRF(const LaneBankConfig& config) : config_(config), bank_reads_(config.lanes, 0) {
        if (config.lanes == 0 || config.warp_slots == 0 || config.rows_per_warp == 0)
            throw Error("a per-lane banked register file needs at least one lane, one warp slot and one row per warp");
        if (config.bytes % config.lanes != 0)
            throw Error("the register file's " + std::to_string(config.bytes) + " bytes do not split evenly over " +
                        std::to_string(config.lanes) + " lane banks");
        seen_rows_.assign(config.rows_per_warp, 0);
    }

    const LaneBankConfig& config() const { return config_; }
    unsigned banks() const { return config_.lanes; }
    unsigned bank_bytes() const { return config_.bytes / config_.lanes; }
    // Address decoders the organisation needs (Sec. 3.3: "instead of a single address decoder, our mechanism
    // requires a separate address decoder per SIMD lane").
    unsigned address_decoders() const { return Decoders == AddressDecoders::per_lane ? config_.lanes : 1; }

    // Register-read cycles for one sub-warp reading `sources` registers (see the contract above).
    unsigned read(unsigned warp, std::span<const std::uint16_t> rows, unsigned sources) {
        const unsigned distinct = check(warp, rows, true, sources);
        const unsigned cycles = Decoders == AddressDecoders::per_lane || distinct == 0 ? 1 : distinct;
        ++reads_;
        read_cycles_ += cycles;
        if (cycles > 1) decoder_conflict_cycles_ += cycles - 1;
        return cycles;
    }
    // A sub-warp writes `dests` registers: each lane writes its own bank, so writes never conflict.
    void write(unsigned warp, std::span<const std::uint16_t> rows, unsigned dests) {
        check(warp, rows, false, dests);
        ++writes_;
    }

    template <class V> void visit_stats(V& v) const {
        v.counter("subwarp_reads", reads_, "sub-warps whose operands were read");
        v.counter("subwarp_writes", writes_, "sub-warps whose results were written");
        v.counter("read_cycles", read_cycles_, "register-read stage cycles");
        v.counter("decoder_conflict_cycles", decoder_conflict_cycles_,
                  "extra read cycles because one decoder served lanes of several rows (AddressDecoders::shared)");
        v.counter("lane_bank_accesses", bank_accesses_, "register accesses summed over the lane banks");
        v.histogram("bank_reads", bank_reads_, "bucket k: register reads served by the bank of lane k");
    }

private:
    // Validates the sub-warp's shape, counts bank accesses; returns the number of distinct rows it touches.
    unsigned check(unsigned warp, std::span<const std::uint16_t> rows, bool is_read, unsigned registers) {
        if (warp >= config_.warp_slots)
            throw Error("register file access for warp slot " + std::to_string(warp) + " of " +
                        std::to_string(config_.warp_slots));
        if (rows.size() != config_.lanes)
            throw Error("a sub-warp for a " + std::to_string(config_.lanes) + "-lane register file carries " +
                        std::to_string(rows.size()) + " row IDs");
        ++stamp_;
        unsigned distinct = 0;
        for (std::size_t c = 0; c < rows.size(); ++c) {
            if (rows[c] == no_row) continue;
            if (rows[c] >= config_.rows_per_warp)
                throw Error("lane " + std::to_string(c) + " addresses row " + std::to_string(rows[c]) +
                            " of a large warp with " + std::to_string(config_.rows_per_warp) + " rows");
            if (seen_rows_[rows[c]] != stamp_) {
                seen_rows_[rows[c]] = stamp_;
                ++distinct;
            }
            bank_accesses_ += registers;
            if (is_read) bank_reads_[c] += registers;
        }
        return distinct;
    }

    LaneBankConfig config_;
    std::vector<std::uint64_t> bank_reads_;
    std::vector<std::uint64_t> seen_rows_;
    std::uint64_t stamp_ = 0;
    std::uint64_t reads_ = 0, writes_ = 0, read_cycles_ = 0, decoder_conflict_cycles_ = 0, bank_accesses_ = 0;
};

} // namespace gpuarch::regfile
