#pragma once
// gpuarch::GPU<SMVariant, N>: N SMs of one variant, the shared memory system (interconnect, L2 slices, DRAM)
// and a CTA dispatcher that honours occupancy.
//
// Contract: `launch` runs a kernel to completion, cycle by cycle, and returns its cycles and statistics.
// Functional results land in the Device exactly as a functional-only launch would write them. Deterministic:
// SMs tick in index order each cycle and the dispatcher is a pure function of the SMs' state.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/stats.hpp>
#include <gpuarch/func/kernel_execution.hpp>
#include <gpuarch/mem/memory_system.hpp>
#include <gpuarch/sm.hpp>

namespace gpuarch {

// How CTAs are placed on SMs.
enum class CtaPlacement : std::uint8_t {
    round_robin, // CTA i goes to the next SM (round-robin) that has room: GPGPU-Sim's and Multi2Sim's default
    clustered,   // adjacent CTAs fill one SM before the next (Gong 2020 Ch. 6, locality-aware dispatch)
};

struct TimingOptions {
    // Registers per thread for occupancy; 0 = read the `.resources` file that kernels/regen writes beside the
    // PTX (ptxas -v). A launch with neither is an error: guessing would silently change occupancy.
    unsigned registers_per_thread = 0;
    CtaPlacement placement = CtaPlacement::round_robin;
    // A launch that makes no progress (nothing issued, nothing retired, no memory traffic) for this many cycles
    // is reported as a deadlock rather than spinning forever.
    core::Cycle deadlock_cycles = 1'000'000;
    std::uint64_t instruction_limit = 2'000'000'000; // warp instructions, across the launch
};

struct LaunchResult {
    std::string kernel;
    core::Cycle cycles = 0;
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;
    unsigned ctas = 0;
    unsigned resident_ctas_per_sm = 0; // occupancy limit for this launch
    core::StatsTable stats;            // GPU-wide: every SM's counters summed, plus the memory system's

    double ipc() const { return cycles == 0 ? 0.0 : double(thread_instructions) / double(cycles); }
    double warp_ipc() const { return cycles == 0 ? 0.0 : double(warp_instructions) / double(cycles); }
};

// Registers per thread that ptxas reported for `entry`, from the `.resources` file beside a PTX file
// (lines `<entry> registers=<N> shared=<B> local=<B> constant=<B>`). nullopt when there is none.
inline std::optional<unsigned> registers_from_resources(const std::filesystem::path& ptx_file, std::string_view entry) {
    std::filesystem::path resources = ptx_file;
    resources.replace_extension(".resources");
    std::ifstream in(resources);
    if (!in) return std::nullopt;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name, field;
        fields >> name;
        if (name != entry) continue;
        while (fields >> field)
            if (field.rfind("registers=", 0) == 0) return static_cast<unsigned>(std::stoul(field.substr(10)));
    }
    return std::nullopt;
}

template <class SMVariant, unsigned NumSMs>
class GPU {
    static_assert(NumSMs > 0, "a GPU needs at least one SM");

public:
    using SMType = SMVariant;
    using Frontend = typename SMVariant::Frontend;
    static constexpr unsigned sm_count = NumSMs;

    struct Config {
        typename SMVariant::L1::Config l1{};
        mem::MemorySystemConfig memory{};
    };

    explicit GPU(Config config = {}) : config_(std::move(config)) {
        config_.memory.sms = NumSMs;
        memory_ = std::make_unique<mem::MemorySystem>(config_.memory);
        sms_.reserve(NumSMs);
        for (unsigned i = 0; i < NumSMs; ++i) sms_.push_back(std::make_unique<SMVariant>(i, config_.l1));
    }

    static std::string variant_name() { return SMVariant::variant_name() + " x" + std::to_string(NumSMs); }
    SMVariant& sm(unsigned i) { return *sms_[i]; }
    mem::MemorySystem& memory() { return *memory_; }

    // Runs one kernel launch to completion on a fresh machine state (caches warm from earlier launches on
    // this GPU object are kept: a multi-launch kernel such as BFS sees the cache contents it left).
    LaunchResult launch(func::Device& device, const func::Module& module, std::string_view entry,
                        const func::LaunchConfig& launch, const func::Args& args, const TimingOptions& options = {}) {
        func::LaunchOptions fopts;
        fopts.warp_width = Frontend::warp_width;
        func::KernelExecution execution(device, module, entry, launch, args, fopts);
        const ir::Kernel& kernel = execution.kernel();

        unsigned regs = options.registers_per_thread;
        if (regs == 0) {
            if (auto r = registers_from_resources(module.ir().file_name, entry)) regs = *r;
            else
                throw Error("no register count for kernel '" + std::string(entry) + "': pass "
                            "TimingOptions::registers_per_thread, or keep the ptxas .resources file beside " +
                            module.ir().file_name + " (kernels/regen writes it)");
        }
        const unsigned threads = launch.block.x * launch.block.y * launch.block.z;
        CtaShape shape;
        shape.threads = threads;
        shape.warps = (threads + Frontend::warp_width - 1) / Frontend::warp_width;
        const unsigned unit = Frontend::register_allocation_unit;
        const unsigned per_warp = ((regs * Frontend::warp_width + unit - 1) / unit) * unit;
        shape.registers = per_warp * shape.warps;
        shape.shared_bytes = static_cast<unsigned>(kernel.shared_bytes) + launch.dynamic_shared_bytes;
        const unsigned per_sm = SMVariant::max_resident_ctas(shape);
        if (per_sm == 0)
            throw Error("kernel '" + std::string(entry) + "' cannot run on " + std::string(Frontend::name) + ": one CTA of " +
                        std::to_string(threads) + " threads, " + std::to_string(regs) + " registers per thread and " +
                        std::to_string(shape.shared_bytes) + " bytes of shared memory exceeds an SM's limits");

        for (auto& sm : sms_) sm->bind(execution, shape);
        const std::uint64_t total_ctas = execution.cta_count();
        std::uint64_t next_cta = 0;
        unsigned rr_sm = 0;
        std::vector<std::uint64_t> before_warp(NumSMs), before_thread(NumSMs);
        for (unsigned i = 0; i < NumSMs; ++i) {
            before_warp[i] = sms_[i]->warp_instructions();
            before_thread[i] = sms_[i]->thread_instructions();
        }

        // Cycles count on from earlier launches on this GPU object: components keep absolute cycle numbers.
        core::StatsTable stats_before = collect_stats();
        const core::Cycle start = now_;
        core::Cycle& cycle = now_;
        core::Cycle last_progress = cycle;
        std::uint64_t last_instructions = 0;
        auto dispatch = [&] {
            if (options.placement == CtaPlacement::clustered) {
                // Fill SMs in order with consecutive CTAs (Gong 2020 Sec. 6.3): SM k gets CTAs k*per_sm ...
                for (unsigned i = 0; i < NumSMs && next_cta < total_ctas; ++i)
                    while (next_cta < total_ctas && sms_[i]->can_accept_cta()) sms_[i]->start_cta(next_cta, next_cta), ++next_cta;
                return;
            }
            // Round-robin: one CTA per SM per pass, continuing from where the last pass stopped.
            bool placed = true;
            while (placed && next_cta < total_ctas) {
                placed = false;
                for (unsigned k = 0; k < NumSMs && next_cta < total_ctas; ++k) {
                    const unsigned i = (rr_sm + k) % NumSMs;
                    if (!sms_[i]->can_accept_cta()) continue;
                    sms_[i]->start_cta(next_cta, next_cta);
                    ++next_cta;
                    rr_sm = (i + 1) % NumSMs;
                    placed = true;
                }
            }
        };
        dispatch();
        while (true) {
            bool busy = next_cta < total_ctas;
            for (unsigned i = 0; i < NumSMs; ++i) {
                sms_[i]->cycle(cycle, memory_->downstream(i));
                busy = busy || !sms_[i]->idle();
            }
            memory_->cycle(cycle, [this, cycle](std::uint32_t sm, const mem::MemPacket& p) { sms_[sm]->receive(p, cycle); });
            ++cycle;
            bool finished_any = false;
            for (auto& sm : sms_) finished_any = sm->take_finished_ctas() > 0 || finished_any;
            if (finished_any) dispatch();
            if (!busy) break;
            std::uint64_t instructions = 0;
            for (auto& sm : sms_) instructions += sm->warp_instructions();
            if (instructions != last_instructions || finished_any) {
                last_instructions = instructions;
                last_progress = cycle;
            } else if (cycle - last_progress > options.deadlock_cycles) {
                std::string state;
                for (const auto& sm : sms_)
                    if (!sm->idle() && state.size() < 4000) state += sm->describe_state();
                throw Error("kernel '" + std::string(entry) + "' made no progress for " +
                            std::to_string(options.deadlock_cycles) + " cycles on " + variant_name() +
                            " (a barrier some warps never reach, or a simulator bug); state:\n" + state);
            }
            if (instructions > options.instruction_limit)
                throw Error("kernel '" + std::string(entry) + "' exceeded the timing instruction limit of " +
                            std::to_string(options.instruction_limit) + " warp instructions");
        }
        // Let outstanding writes drain so the next launch starts from a quiet memory system.
        while (!memory_->idle()) {
            for (unsigned i = 0; i < NumSMs; ++i) sms_[i]->cycle(cycle, memory_->downstream(i));
            memory_->cycle(cycle, [this, cycle](std::uint32_t sm, const mem::MemPacket& p) { sms_[sm]->receive(p, cycle); });
            ++cycle;
        }

        LaunchResult result;
        result.kernel = std::string(entry);
        result.cycles = cycle - start;
        result.ctas = static_cast<unsigned>(total_ctas);
        result.resident_ctas_per_sm = per_sm;
        for (unsigned i = 0; i < NumSMs; ++i) {
            result.warp_instructions += sms_[i]->warp_instructions() - before_warp[i];
            result.thread_instructions += sms_[i]->thread_instructions() - before_thread[i];
        }
        result.stats = collect_stats().minus(stats_before);
        return result;
    }

    // Every SM's statistics summed under "sm.", and the memory system's under "mem.", since construction.
    core::StatsTable collect_stats() const {
        core::StatsTable table;
        for (const auto& sm : sms_) table.collect("sm", *sm);
        table.collect("mem", *memory_);
        return table;
    }

private:
    core::Cycle now_ = 0;
    Config config_;
    std::unique_ptr<mem::MemorySystem> memory_;
    std::vector<std::unique_ptr<SMVariant>> sms_;
};

} // namespace gpuarch
