#pragma once
// Memory-hierarchy presets per machine. Every number cites its source; numbers no source gives are marked
// "documented default" and explained in docs/memory.md. Each machine has an L1 type alias (its knobs), an
// L1Config (the alias's knobs plus the fields knobs do not cover) and a MemorySystemConfig.
#include <cstdint>

#include <gpuarch/mem/l1.hpp>
#include <gpuarch/mem/memory_system.hpp>

namespace gpuarch::mem::presets {

// ---------------------------------------------------------------- Fermi (Wang 2016, Table 1 and Sec. 2.1)
// L1D 32 KB / 128 B / 8-way = 32 sets (Table 1), 32 MSHR entries (Sec. 2.1), Fermi pseudo-random set hash and
// allocate-on-fill (Sec. 5). Merges<8> and the miss-queue depth are documented defaults (the paper gives
// neither; GPGPU-Sim's GTX480 configuration uses 8 and 8).
using FermiL1 = L1<MSHR<32>, Merges<8>, Sets<32>, Ways<8>, LineBytes<128>, MissQueue<8>, AllocOnFill, HashedIndex>;

inline L1Config fermi_l1() {
    L1Config c = FermiL1::knob_config();
    c.shared.banks = 32; // Gong 2020 Sec. 2.2: 32 banks on Fermi, a warp per cycle
    c.shared.bank_bytes = 4;
    c.shared.lanes_per_cycle = 32;
    // Constant cache 8 KB, 64 B lines (Wang 2016 Table 1); "24-way" does not divide 128 lines into sets, so
    // 2 ways x 64 sets keeps the size and the line (documented choice).
    c.constant.geometry = CacheGeometry{64, 2, 64, SetIndexing::linear};
    return c;
}

// The Fermi L1 with MASCAR's cache-access re-execution queue (Wang 2016 Sec. 5: "The re-execution queue has 32
// entries"), for composing the MASCAR baseline; everything else as FermiL1.
using FermiMascarL1 = L1<MSHR<32>, Merges<8>, Sets<32>, Ways<8>, LineBytes<128>, MissQueue<8>, AllocOnFill, HashedIndex,
                         ReexecutionQueue<32>>;

inline L1Config fermi_mascar_l1() {
    L1Config c = fermi_l1();
    c.reexecution_entries = FermiMascarL1::reexecution_entries;
    return c;
}

inline MemorySystemConfig fermi_memory(std::uint32_t sms = 30) { // Wang 2016 Table 1: 30 SMs
    MemorySystemConfig m;
    m.sms = sms;
    m.partitions = 6; // Table 1: 6 partitions
    m.partition.l2.geometry = CacheGeometry{64, 16, 128, SetIndexing::linear}; // 768 KB / 6, 128 B, 16-way
    m.partition.l2_latency = 120; // Table 1: min. L2 latency 120 core cycles
    m.partition.dram_latency = 100; // Table 1: global memory min. latency 100 cycles
    m.partition.dram.scheduler = DramScheduler::fr_fcfs; // Table 1: FR-FCFS
    m.partition.dram.queue_capacity = 32; // Table 1: max request queue length 32
    m.partition.dram.banks = 16; // Table 1: nbk=16
    m.partition.dram.timing = DramTiming{12, 12, 40, 28, 12, 6, 5, 12, 4, 2}; // Table 1 (+ tWL, tCCD defaults)
    m.request_network.flit_bytes = 32; // Table 1: 32 B channel width
    m.response_network.flit_bytes = 32;
    m.clocks = ClockConfig{core::ClockMHz{1400.0}, core::ClockMHz{1400.0}, // Table 1: SM and interconnect 1400 MHz
                           core::ClockMHz{1400.0}, core::ClockMHz{924.0}}; // L2, DRAM: documented defaults
    return m;
}

// ------------------------------------- GTX480 (GPGPU-Sim's tested configuration, SM2_GTX480/gpgpusim.config)
// -gpgpu_cache:dl1 N:32:128:4,L:L:m:N:H,S:64:8,8: 32 sets x 128 B x 4 ways (16 KB), LRU, allocate on miss, no
// write-allocate, hashed set index, 64 MSHR entries merging 8 requests, a miss queue of 8. -gpgpu_l1_latency 35.
using GTX480L1 =
    L1<MSHR<64>, Merges<8>, Sets<32>, Ways<4>, LineBytes<128>, MissQueue<8>, HitLatency<35>, AllocOnMiss, HashedIndex>;

inline L1Config gtx480_l1() {
    L1Config c = GTX480L1::knob_config();
    c.flush_between_kernels = true; // -gpgpu_flush_l1_cache 1
    c.shared.banks = 32; // -gpgpu_shmem_num_banks 32
    c.shared.bank_bytes = 4;
    c.shared.lanes_per_cycle = 32; // -gpgpu_shmem_warp_parts 1: the whole warp in one pass
    c.shared.latency = 26; // -gpgpu_smem_latency 26
    // -gpgpu_const_cache:l1 N:64:64:2: 64 sets x 64 B x 2 ways (8 KB).
    c.constant.geometry = CacheGeometry{64, 2, 64, SetIndexing::linear};
    return c;
}

// GPGPU-Sim's GTX480 has 6 memory channels (-gpgpu_n_mem 6), each with 2 L2 sub-partitions
// (-gpgpu_n_sub_partition_per_mchannel 2) of 64 sets x 128 B x 8 ways (-gpgpu_cache:dl2 S:64:128:8, 768 KB in all).
// gpuarch's partition has one L2 slice per DRAM channel, so each of the 6 partitions holds both sub-partitions'
// capacity as one slice of 128 sets x 8 ways (same size and associativity; docs/gtx480.md).
inline MemorySystemConfig gtx480_memory(std::uint32_t sms = 15) { // -gpgpu_n_clusters 15, one core each
    MemorySystemConfig m;
    m.sms = sms;
    m.partitions = 6; // -gpgpu_n_mem 6
    m.interleave_bytes = 256; // dramid@8: the channel from address bit 8 up
    m.partition.l2.geometry = CacheGeometry{128, 8, 128, SetIndexing::linear}; // 2 x S:64:128:8, linear index (L)
    m.partition.l2.mshr_entries = 2 * 256; // dl2 MSHR A:256:4 per sub-partition
    m.partition.l2.mshr_max_requests = 4;
    m.partition.l2_latency = 120; // -gpgpu_l2_rop_latency 120
    m.partition.dram_latency = 100; // -dram_latency 100
    m.partition.dram.scheduler = DramScheduler::fr_fcfs; // -gpgpu_dram_scheduler 1
    m.partition.dram.queue_capacity = 64; // -gpgpu_frfcfs_dram_sched_queue_size 64
    m.partition.dram.return_queue = 116; // -gpgpu_dram_return_queue_size 116
    m.partition.dram.banks = 16; // nbk=16
    m.partition.dram.bank_groups = 4; // nbkgrp=4, -dram_bnkgrp_indexing_policy 1
    // -gpgpu_mem_addr_mapping dramid@8;...0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS on the channel-local address (the
    // channel bits removed): 4 KB rows spread over bank pairs in 256 B pieces.
    m.partition.dram.address_bits = dram_address_bits("0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS");
    m.partition.dram.row_bytes = 4096;
    // -gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:
    // RTPL=2 (RTPL, read to precharge with bank groups, is tRTP here).
    DramTiming t{};
    t.tCL = 12;
    t.tRP = 12;
    t.tRC = 40;
    t.tRAS = 28;
    t.tRCD = 12;
    t.tRRD = 6;
    t.tCDLR = 5;
    t.tWR = 12;
    t.tWL = 4;
    t.tCCD = 2;
    t.tRTP = 2;
    t.tCCDL = 3;
    m.partition.dram.timing = t;
    // -gpgpu_n_mem_per_ctrlr 2 x -gpgpu_dram_buswidth 4 B, -dram_data_command_freq_ratio 4 (GDDR5 is QDR):
    // 2 x 4 B x 4 = 32 B per command cycle.
    m.partition.dram.bus_bytes_per_cycle = 32;
    m.request_network.flit_bytes = 40; // -icnt_flit_size 40
    m.response_network.flit_bytes = 40;
    m.clocks = ClockConfig{core::ClockMHz{700.0}, core::ClockMHz{700.0}, // -gpgpu_clock_domains 700:700:700:924
                           core::ClockMHz{700.0}, core::ClockMHz{924.0}};
    return m;
}

// --------------------------------------------------- Kepler (Gong 2020, Tables 4.1 and 6.3, a K20X-like GPU)
// L1 16 KB / 4-way / 128 B = 32 sets (Table 4.1), 16 MSHR entries x 8 requests (Table 6.3). Gong gives no
// index function or allocation policy: linear index and allocate-on-fill (documented defaults).
using KeplerL1 = L1<MSHR<16>, Merges<8>, Sets<32>, Ways<4>, LineBytes<128>, MissQueue<8>, AllocOnFill, LinearIndex>;

inline L1Config kepler_l1() {
    L1Config c = KeplerL1::knob_config();
    c.shared.banks = 32; // Gong 2020 Sec. 2.2: 32 banks from Fermi on (4-byte mode)
    c.shared.lanes_per_cycle = 32;
    return c;
}

inline MemorySystemConfig kepler_memory(std::uint32_t sms = 14) { // Tables 4.1 and 6.3: 14 SMs
    MemorySystemConfig m = fermi_memory(sms);
    // Gong 2020 gives no interconnect, L2-latency or DRAM parameters ("the latencies of the different levels of
    // the cache hierarchy have not been made public by NVIDIA", Sec. 4.4.1): those reuse the Fermi preset.
    m.partitions = 6; // documented default (K20X: 6 memory controllers; not in the source)
    m.partition.l2.geometry = CacheGeometry{128, 16, 128, SetIndexing::linear}; // 1536 KB / 6, 16-way, 128 B
    m.clocks = ClockConfig{core::ClockMHz{732.0}, core::ClockMHz{732.0}, // Table 6.3: 732 MHz
                           core::ClockMHz{732.0}, core::ClockMHz{924.0}};
    return m;
}

// ----------------------------------------- Southern Islands (Gong 2020, Table 5.2: AMD Radeon 7970 model)
// L1 16 KB, 64 sets, 4-way, 64 B lines. MSHR count is not given: 16 (documented default).
using SouthernIslandsL1 =
    L1<MSHR<16>, Merges<8>, Sets<64>, Ways<4>, LineBytes<64>, MissQueue<8>, AllocOnFill, LinearIndex>;

inline L1Config southern_islands_l1() {
    L1Config c = SouthernIslandsL1::knob_config();
    c.sector_bytes = 32;
    // LDS 64 KB (Table 5.2); 32 banks of 4 bytes serving half a 64-wide wavefront per cycle (documented default).
    c.shared.banks = 32;
    c.shared.lanes_per_cycle = 32;
    return c;
}

inline MemorySystemConfig southern_islands_memory(std::uint32_t sms = 32) { // Table 5.2: 32 compute units
    MemorySystemConfig m = fermi_memory(sms);
    // Table 5.2: L2 128 KB, 128 sets, 16-way, 64 B; 128 x 16 x 64 B is one slice. The number of slices is not
    // given: 6 partitions (documented default), one such slice each.
    m.partitions = 6;
    m.partition.l2.geometry = CacheGeometry{128, 16, 64, SetIndexing::linear};
    m.clocks = ClockConfig{core::ClockMHz{1000.0}, core::ClockMHz{1000.0}, // Table 5.2: 1000 MHz
                           core::ClockMHz{1000.0}, core::ClockMHz{924.0}};
    return m;
}

// --------------------------------------------------------- Narasiman 2010, Table 1 (baseline GPU core)
// "32KB, 4-way set associative single cycle data cache, 1 read port, 1 write port, and 128-byte line size":
// 32 KB / 4 / 128 B = 64 sets, hit latency 1. MSHRs are not given: 32 (documented default).
using NarasimanL1 = L1<MSHR<32>, Merges<8>, Sets<64>, Ways<4>, LineBytes<128>, HitLatency<1>, AllocOnFill, LinearIndex>;

inline L1Config narasiman_l1() { return NarasimanL1::knob_config(); }

// "Open-row, first-come first-serve scheduling policy, 8 banks, 4KB row buffer per bank, 100 cycle row-hit
// latency, 300 cycle row-conflict latency, 128 GB/s memory bandwidth". No L2, interconnect or clock is given:
// the L2 is disabled, the interconnect is one cycle wide enough for a line, every domain runs at the core clock
// (1 GHz assumed, so 128 GB/s = 128 B per cycle).
inline MemorySystemConfig narasiman_memory(std::uint32_t sms = 1) {
    MemorySystemConfig m;
    m.sms = sms;
    m.partitions = 1;
    m.interleave_bytes = 256;
    m.partition.l2.enabled = false;
    m.partition.l2_latency = 0;
    m.partition.dram_latency = 0;
    m.partition.dram.scheduler = DramScheduler::fcfs; // Table 1: FCFS, open row
    m.partition.dram.banks = 8; // Table 1: 8 banks
    m.partition.dram.row_bytes = 4096; // Table 1: 4 KB row buffer per bank
    m.partition.dram.bus_bytes_per_cycle = 128; // 128 GB/s at 1 GHz: one 128 B line per cycle
    // Row hit = tCL + 1 transfer cycle = 100; row conflict = tRP + tRCD + tCL + 1 = 300 (Table 1).
    DramTiming t{};
    t.tCL = 99;
    t.tWL = 99;
    t.tRP = 100;
    t.tRCD = 100;
    t.tRAS = 0;
    t.tRC = 0;
    t.tRRD = 0;
    t.tCDLR = 0;
    t.tWR = 0;
    t.tCCD = 1;
    t.tRTP = 0;
    m.partition.dram.timing = t;
    m.request_network.flit_bytes = 136; // a 128 B line plus the header in one flit
    m.response_network.flit_bytes = 136;
    m.clocks =
        ClockConfig{core::ClockMHz{1000.0}, core::ClockMHz{1000.0}, core::ClockMHz{1000.0}, core::ClockMHz{1000.0}};
    return m;
}

} // namespace gpuarch::mem::presets
