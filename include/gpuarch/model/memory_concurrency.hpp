#pragma once
// GT200 global-memory concurrency and coalescing facts used by TEG (Lai 2013 Sec. 3.2.2.4
// and 3.2.3.4).
//
// C_mem, the most memory transactions one TPC's memory pipeline can have outstanding, follows
// from Little's law over the whole chip (Eq. 3.1):
//   N_TPC * N_Warp * ele_size * C_mem / (mem_latency / Clk) = B_peak
//   C_mem = B_peak * mem_latency / (N_TPC * N_Warp * ele_size * Clk)          (Eq. 3.2)
// The thesis states C_mem ~ 18 for double precision without giving its inputs. With Table 1.1
// bandwidth (141.7 GB/s), the 436-443 cycle latency, 10 TPCs, 32 threads, 8 bytes and the
// 1296 MHz shader clock it is 18.6-18.9, i.e. 18 whole transactions.

#include <stdexcept>

#include "gpuarch/model/arch_params.hpp"
#include "gpuarch/model/detail/cx_math.hpp"

namespace gpuarch::model {

struct CmemInputs {
    double peak_bandwidth_gbs = 0.0; // B_peak
    double mem_latency_cycles = 0.0; // global latency in Clk cycles
    int n_tpc = 0; // memory pipelines (TPCs)
    int threads_per_warp = 32; // N_Warp
    int element_bytes = 0; // ele_size
    double clock_mhz = 0.0; // Clk
};

// Eq. 3.2, as a real number.
constexpr double c_mem(const CmemInputs& in) {
    if (!(in.peak_bandwidth_gbs > 0.0) || !(in.mem_latency_cycles > 0.0) || in.n_tpc <= 0 || in.threads_per_warp <= 0 ||
        in.element_bytes <= 0 || !(in.clock_mhz > 0.0)) {
        throw std::invalid_argument("c_mem: all inputs must be positive");
    }
    const double bytes_per_second = in.peak_bandwidth_gbs * 1e9;
    const double cycles_per_second = in.clock_mhz * 1e6;
    return bytes_per_second * in.mem_latency_cycles /
           (static_cast<double>(in.n_tpc) * in.threads_per_warp * in.element_bytes * cycles_per_second);
}

// Whole outstanding transactions the pipeline sustains ("cannot exceed 18").
constexpr int c_mem_transactions(const CmemInputs& in) { return static_cast<int>(detail::cx_floor(c_mem(in))); }

// GT200 inputs: Table 1.1 bandwidth, Sec. 3.2.2.4 latency (436-443 cycles, Wong et al.),
// 10 TPCs (Sec. 1.1.2), shader clock (Table 1.1; the latencies are shader cycles).
constexpr CmemInputs gt200_c_mem_inputs(int element_bytes, double mem_latency_cycles = 436.0) {
    const ArchParams a = gt200_gtx280();
    CmemInputs in{};
    in.peak_bandwidth_gbs = a.nominal.global_bandwidth_gbs;
    in.mem_latency_cycles = mem_latency_cycles;
    in.n_tpc = a.topology.sm_count / *a.topology.sms_per_tpc;
    in.threads_per_warp = a.topology.warp_size;
    in.element_bytes = element_bytes;
    in.clock_mhz = a.nominal.shader_clock_mhz;
    return in;
}

// Fraction of fetched bytes that no thread asked for when each of `threads` threads needs
// `bytes_per_thread` bytes and each is served by its own `transaction_bytes` transaction
// (Lai 2013 Sec. 3.2.3.4: 16 threads x 4 B in 16 x 32 B transactions wastes 87.5 %).
constexpr double uncoalesced_bandwidth_waste(int threads, int bytes_per_thread, int transaction_bytes) {
    if (threads <= 0 || bytes_per_thread <= 0 || transaction_bytes < bytes_per_thread) {
        throw std::invalid_argument("uncoalesced_bandwidth_waste: need transaction_bytes >= bytes_per_thread > 0");
    }
    const double useful = static_cast<double>(threads) * bytes_per_thread;
    const double fetched = static_cast<double>(threads) * transaction_bytes;
    return 1.0 - useful / fetched;
}

} // namespace gpuarch::model
