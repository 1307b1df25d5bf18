#pragma once
// What gpuarch-run checks of a program before running it: that it loads CUDA 13's runtime dynamically.
// A program linked with nvcc's default (-cudart static) carries its own copy of NVIDIA's runtime, which the
// preloaded gpuarch runtime cannot replace; one linked against another major version asks for another soname.
#include <filesystem>
#include <string>

namespace gpuarch::run {

struct ProgramCheck {
    std::string problem; // non-empty: the program cannot run under gpuarch; says what to do
    std::string note; // non-empty: it may run, with a caveat (a script, no CUDA runtime at all)
};

// Reads the program's ELF headers (section headers and the dynamic section). Throws gpuarch::Error when the file
// cannot be read.
ProgramCheck check_program(const std::filesystem::path& program);

} // namespace gpuarch::run
