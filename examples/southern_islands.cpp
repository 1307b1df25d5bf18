// Runs corpus kernels on the southern_islands-like machine with LRR, GTO and TwoLevel<8>, checks every output against its CPU
// reference and prints cycles, IPC and the top stall reasons (--json for machine-readable output).
#include <gpuarch/support/machine_main.hpp>

int main(int argc, char** argv) { return gpuarch::examples::machine_main("southern_islands", argc, argv); }
