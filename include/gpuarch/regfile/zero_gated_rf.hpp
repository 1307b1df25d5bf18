#pragma once
// ZeroGatedRF<Banks, Collectors, Gating, Layout>: the register file of Radaideh 2020 Chapter 4: the baseline
// single-ported banks and WWFA arbiter (no coalescing) whose thread-register reads and writes are gated by the
// active mask, the in-lane zero mask and the cross-lane (byte-reordered) zero mask (regfile/zero_gating.hpp).
// Table 4.1 defaults: 16 banks and 16 operand collectors per SM core. Gating changes energy, never timing.
//
// The RF dynamic-power figures (Figs. 4.7-4.9) follow from its counters: thread_reads(_gated.*) and
// thread_writes(_gated.*), bank_bytes_read / bank_bytes_written (docs/register_file.md).
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/zero_gating.hpp>

namespace gpuarch::regfile {

template <unsigned Banks = 16, unsigned Collectors = 16, class Gating = CrossLaneZeroGating,
          class Layout = WshiftLayout>
using ZeroGatedRF = CoalescingRF<Banks, Sub4, Layout, RegAlignment, Collectors, Gating, NoCoalescing>;

} // namespace gpuarch::regfile
