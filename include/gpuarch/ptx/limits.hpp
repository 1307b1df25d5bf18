#pragma once
// Resource limits of the PTX front end. Contract: ptx::parse checks each limit while it reads the declaration or
// instruction that crosses it and throws ParseError at that token (file:line:column), so a small hostile file
// cannot make the parser, the inliner or a later launch allocate more than these bounds imply. The hardware
// limits are CUDA's documented ones for the machines gpuarch models (sm_75 and newer); the others are knobs, far
// above anything nvcc emits for ordinary kernels. docs/ptx.md ("Resource limits") lists them with their messages.
#include <cstddef>
#include <cstdint>

namespace gpuarch::ptx {

struct Limits {
    // ---- CUDA's limits (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability")
    // "Maximum amount of local memory per thread: 512 KB" (every compute capability since 2.0). Counts a
    // kernel's .local variables and its call-sequence .param variables, which share the per-thread segment.
    std::uint64_t max_local_bytes_per_thread = 512 * 1024;
    // "Maximum amount of shared memory per thread block: 48 KB" for static allocations; more needs dynamic shared
    // memory and an opt-in. Counts the module's .shared variables plus the kernel's own (ir/layout.hpp gives every
    // kernel the module's whole static shared segment).
    std::uint64_t max_static_shared_bytes = 48 * 1024;
    // "Constant memory size: 64 KB": the module's .const variables (constant bank 0, user constants).
    std::uint64_t max_const_bytes = 64 * 1024;
    // Kernel parameters: 32,764 bytes since CUDA 12.1 on Volta and newer, 4,096 bytes before (NVIDIA, "CUDA 12.1
    // Supports Large Kernel Parameters"; the Programming Guide's __global__ function parameters section).
    std::uint64_t max_kernel_param_bytes = 32764;

    // ---- knobs (not hardware limits; raise them for unusual inputs)
    // Bytes of PTX text. parse_file stops reading one byte past it.
    std::uint64_t max_file_bytes = std::uint64_t{64} << 20;
    // Instructions in one function body as written (before inlining) and in one kernel after inlining.
    std::size_t max_function_instructions = std::size_t{1} << 18;
    // Instructions in the whole module, as written and again after inlining. An instruction is about 540 bytes
    // of IR, so this bounds the module's code at about 570 MB.
    std::size_t max_module_instructions = std::size_t{1} << 20;
    // Registers declared in one function (`.reg .b32 %r<N>` declares N), and in one kernel after inlining.
    std::size_t max_function_registers = std::size_t{1} << 20;
    std::size_t max_kernel_registers = std::size_t{1} << 21;
    // Registers in the whole module, as declared and again after inlining (about 100 bytes each with the name).
    std::size_t max_module_registers = std::size_t{1} << 22;
    // Bytes of one module's .global variables (func::Device allocates them when the module is loaded).
    std::uint64_t max_global_bytes = std::uint64_t{1} << 30;
    // Tokens the parser holds at once: one statement or declaration, except parameter lists, initializers,
    // register lists and .section bodies, which are read item by item. Bounds the token buffer at 2 MiB.
    std::size_t max_statement_tokens = std::size_t{1} << 16;
};

} // namespace gpuarch::ptx
