#pragma once
// Separate compilation of the machine-independent code (docs/consuming.md, "Separate compilation").
//
// The library is header-only: by default every unit that runs a kernel compiles the functional interpreter again,
// and every unit that reads PTX the parser, each about as large as the code of one simulated machine and the same
// whatever machine the unit simulates. A program with many such units (one per group of variants) can compile them
// once instead:
// - define GPUARCH_SEPARATE_COMPILATION in every unit of the program;
// - include <gpuarch/separate_compilation.hpp> in exactly one of them, before any other gpuarch header, which then
//   holds the definitions.
// Every unit of one program must agree on the macro: a function is inline in a header-only unit and not in the
// definitions unit, and C++ asks every unit to declare it the same way.
//
// For the headers: GPUARCH_SEPARATE_DEFINITIONS says whether this unit compiles the out-of-line definitions (always
// without the macro; only in the one unit with it), and GPUARCH_SEPARATE_INLINE is the linkage they get (inline in
// header-only use, external in that one unit).
#if defined(GPUARCH_SEPARATE_COMPILATION) && !defined(GPUARCH_SEPARATE_COMPILATION_SOURCE)
#define GPUARCH_SEPARATE_DEFINITIONS 0
#else
#define GPUARCH_SEPARATE_DEFINITIONS 1
#endif
#if defined(GPUARCH_SEPARATE_COMPILATION)
#define GPUARCH_SEPARATE_INLINE
#else
#define GPUARCH_SEPARATE_INLINE inline
#endif
