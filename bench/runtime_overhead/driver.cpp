// The C++ host API side of the runtime-overhead benchmark: the same launches as app.cu, on the same PTX (the module
// gpuarch's runtime extracted from app's fat binary), through support::make_simulator and Simulator::launch.
// usage: runtime_overhead_driver PTX_FILE REGISTERS LAUNCHES MACHINE SCHEDULER
#include <gpuarch/func/host.hpp>
#include <gpuarch/support/simulator.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s PTX_FILE REGISTERS LAUNCHES MACHINE SCHEDULER\n", argv[0]);
        return 2;
    }
    namespace func = gpuarch::func;
    const auto start = std::chrono::steady_clock::now();
    gpuarch::support::Settings settings;
    settings.set("machine", argv[4]);
    settings.set("scheduler", argv[5]);
    gpuarch::support::Simulator sim = gpuarch::support::make_simulator(settings);
    func::Device device;
    const func::Module module = func::Module::from_file(argv[1]);
    const int m = 256, n = 256, k = 128, tile = 16, launches = std::atoi(argv[3]);
    std::vector<float> a(m * k), b(k * n), c(m * n, 0.0f);
    for (int i = 0; i < m * k; ++i) a[i] = float(i % 17) * 0.125f;
    for (int i = 0; i < k * n; ++i) b[i] = float(i % 13) * 0.25f;
    const func::DevPtr da = device.upload(a), db = device.upload(b), dc = device.upload(c);
    gpuarch::TimingOptions options;
    options.registers_per_thread = static_cast<unsigned>(std::atoi(argv[2]));
    options.host_threads = 1;
    func::LaunchConfig launch;
    launch.grid = func::Dim3{n / tile, m / tile, 1};
    launch.block = func::Dim3{tile, tile, 1};
    std::uint64_t cycles = 0;
    for (int l = 0; l < launches; ++l)
        cycles +=
            sim.launch(device, module, "sgemm_tiled", launch, func::Args(m, n, k, 1.0f, da, db, 0.0f, dc), options)
                .cycles;
    const auto c_out = device.download<float>(dc, 1);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("cycles %llu seconds %.4f c[0] %f\n", static_cast<unsigned long long>(cycles), seconds, c_out[0]);
    return 0;
}
