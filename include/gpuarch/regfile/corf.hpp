#pragma once
// CORF<Banks, Collectors, Layout>: the comparator of Radaideh 2020 Sec. 3.5.2 / Table 3.2, the Coalescing Operand
// Register File of Asghari Esfeden et al. (CORF/CORF++): only two reads of the same warp instruction that sit in
// the same bank coalesce. CORF requires the wid layout (all registers of a warp in one bank, Sec. 3.6.2.1), which
// is the default here.
//
// Modelling choices (docs/register_file.md): CORF's register packing, renaming and compile-time alignment hints
// are not modelled; two same-instruction, same-bank reads coalesce whenever their widths add up to at most one
// register (4 bytes per lane), which makes this an optimistic CORF++. Widths carry their sign in the data (CORF
// stores no sign bit, Sec. 3.6.2.8), so 255 is a 2-byte value here. Writes never coalesce, and reads from two
// banks never share a collector write. CORF's sub-banks are not controlled separately (Radaideh 2020 Table 3.1:
// it keeps the byte-interleaved format and aligns with shifters), so every bank access reads or writes the whole
// row, and a coalesced pair is one row read carried once through the crossbar: energy counters charge full rows,
// the arbiter still uses the widths to decide what fits. Everything else (timing contract, statistics) is
// CoalescingRF's.
#include <gpuarch/regfile/coalescing_rf.hpp>
#include <gpuarch/regfile/zero_gating.hpp>

namespace gpuarch::regfile {

template <unsigned Banks = 4, unsigned Collectors = 4, class Layout = WidLayout>
using CORF = CoalescingRF<Banks, Sub4, Layout, IdealAlignment, Collectors, NoGating, CorfCoalescing>;

} // namespace gpuarch::regfile
