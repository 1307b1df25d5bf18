#pragma once
// The state behind gpuarch's libcudart.so.13: registered fat binaries, kernels and variables, the simulated device
// and machine, streams, events, the error state, and the statistics of every launch.
//
// Contract:
// - One Runtime per process, created by the first registration call (static initialisers of the program) and
//   never destroyed; statistics are written from an atexit handler.
// - Every call is serialised by one mutex: the simulated device is not thread-safe, and streams run in issue order.
// - Execution is synchronous: a launch, copy or memset finishes before its call returns. A kernel fault (illegal
//   address, failed assert, trap, limit) makes the error sticky, as on a GPU: that call and every later one
//   returns it. The fault's report (kernel, CTA, thread, PC, PTX line) goes to stderr at once.
// - Simulated time advances only by kernel cycles: an event records the cycles of every launch before it, and
//   cudaEventElapsedTime is cycles / core clock. Copies take no simulated time.
#include "fatbin.hpp"
#include "report.hpp"
#include "timeline.hpp"

#include <gpuarch/func/device.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/support/sampling.hpp>
#include <gpuarch/support/simulator.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace gpuarch::cudart {

struct LoadedModule {
    std::vector<FatbinEntry> entries;
    std::string ptx;
    unsigned ptx_arch = 0;
    std::string ptx_path; // where the extracted PTX was written (named in error messages), or a pseudo path
    std::map<std::string, unsigned> cubin_registers;
    unsigned cubin_arch = 0;
    std::optional<func::Module> module; // parsed on first use
    std::optional<std::map<std::string, unsigned>> ptxas_registers;
};

// What a cudaKernel_t, a cudaFunction_t and a host stub's address resolve to.
struct KernelRecord {
    std::size_t module = 0;
    std::string device_name;
    const void* host_function = nullptr;
};

struct VariableRecord {
    std::size_t module = 0;
    std::string device_name;
    std::size_t size = 0;
    bool constant = false;
};

struct EventRecord {
    bool recorded = false;
    std::uint64_t cycles = 0; // simulated cycles of every launch before the record
};

class Runtime {
public:
    static Runtime& get();

    std::recursive_mutex& mutex() { return mutex_; }

    // Registration (static initialisers).
    void** register_fatbin(const void* wrapper);
    void register_function(void** handle, const void* host_function, const char* device_name);
    void register_variable(void** handle, const void* host_variable, const char* device_name, std::size_t size,
                           bool constant);
    void unregister_fatbin(void** handle);

    // Errors: `result` records `e` as the last error (unless it is cudaSuccess) and returns the call's result,
    // which is the sticky error when one is set.
    cudaError_t result(cudaError_t e);
    cudaError_t last_error(bool reset);
    cudaError_t sticky() const { return sticky_; }
    // Runs `body`, turning gpuarch errors into CUDA errors: KernelErrors by kind, other errors as `otherwise`.
    template <class Body> cudaError_t guarded(cudaError_t otherwise, Body&& body);

    // Launch configuration stack of the <<<>>> path.
    void push_configuration(dim3 grid, dim3 block, std::size_t shared, void* stream);
    cudaError_t pop_configuration(dim3* grid, dim3* block, std::size_t* shared, void* stream);

    const KernelRecord* kernel_by_host(const void* host_function) const;
    cudaError_t launch(const KernelRecord& kernel, dim3 grid, dim3 block, void** args, std::size_t shared,
                       bool cooperative = false);
    // CTAs of `kernel` an SM holds at once with `threads` per CTA and `dynamic_shared` bytes of dynamic shared
    // memory (cudaOccupancyMaxActiveBlocksPerMultiprocessor), from the machine's limits.
    unsigned max_active_ctas(const KernelRecord& kernel, unsigned threads, std::size_t dynamic_shared);

    func::Device& device() { return device_; }
    support::Simulator* simulator(); // null in functional mode
    const support::MachineInfo& machine() const { return machine_; }
    bool functional() const { return functional_; }
    std::uint64_t device_capacity() const { return device_.capacity(); }

    // Module-scope variables by their host shadow's address.
    const VariableRecord* variable_by_host(const void* host_variable) const;
    func::Module& module(std::size_t index);

    // Pinned host allocations (cudaMallocHost / cudaHostAlloc).
    void* host_alloc(std::size_t bytes);
    bool host_free(void* p);
    bool is_device_pointer(const void* p, std::size_t bytes);

    // Streams and events are small handles the runtime owns.
    cudaStream_t create_stream();
    bool destroy_stream(cudaStream_t s);
    bool valid_stream(cudaStream_t s) const;
    cudaEvent_t create_event();
    bool destroy_event(cudaEvent_t e);
    EventRecord* event(cudaEvent_t e);
    std::uint64_t elapsed_cycles() const { return elapsed_cycles_; }

    // cudaLimitPrintfFifoSize: CUDA's documented default is 1 MB of device-side printf output per launch.
    std::size_t printf_fifo_bytes = std::size_t{1} << 20;
    unsigned kernel_registers(const KernelRecord& k) {
        std::string source;
        return registers_for(loaded(k.module), k.device_name, source);
    }
    void fill_properties(cudaDeviceProp& p) const;
    std::optional<int> attribute(cudaDeviceAttr a) const;

    // Flushes device-side printf output to the program's stdout.
    void flush_console();
    void write_totals();

private:
    Runtime();
    LoadedModule& loaded(std::size_t index) { return *modules_.at(index); }
    unsigned registers_for(LoadedModule& m, const std::string& kernel, std::string& source);
    std::string cache_dir() const;
    void report_fault(const std::exception& e) const;

    std::recursive_mutex mutex_;
    support::Settings settings_;
    support::MachineInfo machine_;
    bool functional_ = false;
    func::Device device_;
    std::unique_ptr<support::Simulator> simulator_;
    std::vector<std::unique_ptr<LoadedModule>> modules_;
    std::map<const void*, KernelRecord> kernels_;
    std::map<const void*, VariableRecord> variables_;
    std::map<void*, std::size_t> host_allocations_;
    std::deque<EventRecord> events_; // stable addresses: a cudaEvent_t points at one
    std::vector<std::unique_ptr<int>> streams_;
    struct Configuration {
        dim3 grid, block;
        std::size_t shared = 0;
        void* stream = nullptr;
    };
    std::vector<Configuration> configurations_;
    cudaError_t last_error_ = cudaSuccess;
    cudaError_t sticky_ = cudaSuccess;
    std::uint64_t elapsed_cycles_ = 0;
    Reporter reporter_;
    // Interval statistics (settings `timeline`, `timeline.dir`); present only in a timing run that asks for them.
    std::unique_ptr<TimelineWriter> timeline_;
    // Fast-forward and sampled repeated launches (settings sample.*); present only in a timing run that sets
    // `sample` or `sample.fast_forward`.
    std::optional<sample::LaunchSampler> sampler_;
    sample::CtaSamplingOptions cta_sampling_;
};

cudaError_t error_for(const std::exception& e, cudaError_t otherwise);
// The enumerator's name ("cudaErrorIllegalAddress") and a one-line description, for cudaGetErrorName/String
// (generated from the toolkit's driver_types.h by generate.py).
const char* error_name(int e);
const char* error_string(int e);
// Stops the program: `function` is a CUDA runtime function gpuarch does not implement (unsupported.cpp).
[[noreturn]] void unsupported(const char* function, const char* doc_group);

template <class Body> cudaError_t Runtime::guarded(cudaError_t otherwise, Body&& body) {
    if (sticky_ != cudaSuccess) return sticky_;
    try {
        return result(body());
    } catch (const std::bad_alloc&) {
        return result(cudaErrorMemoryAllocation);
    } catch (const std::exception& e) {
        const cudaError_t code = error_for(e, otherwise);
        report_fault(e);
        return result(code);
    }
}

} // namespace gpuarch::cudart
