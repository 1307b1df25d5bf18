#pragma once
// The body of examples/fermi.cpp, kepler.cpp and southern_islands.cpp: run the chosen corpus kernels (default:
// all) on one machine with each of its schedulers (default: all), check outputs, print a table or JSON.
// Compiled once in gpuarch_support (src/machine_main.cpp), not in each of the three programs: with the command-line
// parser and the reports it is about 14 CPU-seconds of compiling (docs/performance-history.md, "Compile cost").

namespace gpuarch::examples {

// `machine` is the run-time machine name ("fermi"); returns the program's exit status (cli.hpp's codes).
int machine_main(const char* machine, int argc, char** argv);

} // namespace gpuarch::examples
