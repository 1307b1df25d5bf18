#pragma once
// Shared body of support/src/variants_*.cpp: instantiate one GPU variant and wrap it as a Simulator.
#include "registry_table.hpp"

#include <gpuarch/machines.hpp>
#include <gpuarch/support/simulator.hpp>

#include <boost/mp11/algorithm.hpp>

#include <string>

namespace gpuarch::support::detail {

// A policy type with its run-time name: Named<"gto", sched::GTO>.
template <FixedName Name, class Policy> struct Named {
    static constexpr std::string_view run_name = Name.view();
    using type = Policy;
};

// The run-time settings of the memory system beyond the L1 (l2., dram., memory.), as "key=value" items: the L1's
// differences from its type come from GPU::description().
inline std::string memory_overrides(const Settings& settings) {
    std::string out;
    for (std::string_view prefix : {"l2.", "dram.", "memory."})
        for (const auto& [k, v] : settings.explicit_with_prefix(prefix))
            (out += out.empty() ? "" : ", ") += k + "=" + v;
    return out;
}

// Applies the knob settings to a GPU configuration. `scheduler` adds what a scheduler needs of the L1: MASCAR's
// re-execution queue (Wang 2016 Sec. 5: 32 entries) unless the settings say otherwise.
template <class Config> void apply_settings(Config& c, const Settings& s, std::string_view scheduler) {
    if (scheduler == "mascar" && c.l1.reexecution_entries == 0) c.l1.reexecution_entries = 32;
    auto set = [&](std::string_view key, auto& field) {
        if (auto v = s.uint_if_set(key)) field = static_cast<std::remove_reference_t<decltype(field)>>(*v);
    };
    set("l1.mshr_entries", c.l1.mshr_entries);
    set("l1.mshr_max_requests", c.l1.mshr_max_requests);
    set("l1.miss_queue", c.l1.miss_queue);
    set("l1.hit_latency", c.l1.hit_latency);
    set("l1.sets", c.l1.geometry.sets);
    set("l1.ways", c.l1.geometry.ways);
    set("l1.line_bytes", c.l1.geometry.line_bytes);
    set("l1.reexecution_entries", c.l1.reexecution_entries);
    if (s.has("l1.allocation"))
        c.l1.allocation =
            s.get("l1.allocation") == "on_fill" ? mem::AllocationPolicy::on_fill : mem::AllocationPolicy::on_miss;
    if (s.has("l1.cache_global_loads")) c.l1.cache_global_loads = s.get_bool("l1.cache_global_loads");
    if (s.has("l1.cache_texture_loads")) c.l1.cache_texture_loads = s.get_bool("l1.cache_texture_loads");
    if (s.has("l1.flush_between_kernels")) c.l1.flush_between_kernels = s.get_bool("l1.flush_between_kernels");
    set("l2.sets", c.memory.partition.l2.geometry.sets);
    set("l2.ways", c.memory.partition.l2.geometry.ways);
    set("l2.latency", c.memory.partition.l2_latency);
    set("l2.mshr_entries", c.memory.partition.l2.mshr_entries);
    set("dram.latency", c.memory.partition.dram_latency);
    set("dram.queue_capacity", c.memory.partition.dram.queue_capacity);
    set("dram.banks", c.memory.partition.dram.banks);
    set("dram.bank_groups", c.memory.partition.dram.bank_groups);
    set("dram.return_queue", c.memory.partition.dram.return_queue);
    set("memory.partitions", c.memory.partitions);
    c.l1.validate();
    c.memory.validate();
}

template <class Machine, class GpuType>
MachineInfo describe_machine(std::string_view name, std::string_view description, const typename GpuType::Config& c) {
    using F = typename Machine::Frontend;
    MachineInfo m;
    m.name = std::string(name);
    m.description = std::string(description);
    m.sms = GpuType::sm_count;
    m.warp_size = F::warp_width;
    m.max_threads_per_sm = F::max_threads;
    m.max_warps_per_sm = F::max_warps;
    m.max_ctas_per_sm = F::max_ctas;
    m.registers_per_sm = F::max_registers;
    m.shared_bytes_per_sm = F::max_shared_bytes;
    m.register_allocation_unit = F::register_allocation_unit;
    m.schedulers_per_sm = F::schedulers;
    m.core_clock_mhz = c.memory.clocks.core.value;
    m.dram_clock_mhz = c.memory.clocks.dram.value;
    const auto& g = c.memory.partition.l2.geometry;
    m.l2_bytes =
        c.memory.partition.l2.enabled ? std::uint64_t{g.sets} * g.ways * g.line_bytes * c.memory.partitions : 0;
    m.memory_partitions = c.memory.partitions;
    m.dram_bus_bits =
        c.memory.partition.dram.bus_bytes_per_cycle * 8 * c.memory.partitions / 4; // 4 beats per command cycle
    return m;
}

template <class Machine, class Scheduler, class RegisterFile>
typename Machine::template gpu<Scheduler, Machine::sms, RegisterFile>::Config configured(const Settings& s,
                                                                                         std::string_view scheduler) {
    using GpuType = typename Machine::template gpu<Scheduler, Machine::sms, RegisterFile>;
    auto config = Machine::template config<GpuType>();
    apply_settings(config, s, scheduler);
    return config;
}

// Adds a factory for every (scheduler, register file) pair of the two lists, on machine `MachineEntry`.
template <class MachineEntry, class Schedulers, class RegisterFiles>
void add_variants(std::vector<VariantFactory>& out) {
    using Machine = typename MachineEntry::type;
    boost::mp11::mp_for_each<boost::mp11::mp_product<boost::mp11::mp_list, Schedulers, RegisterFiles>>([&](auto pair) {
        using S = boost::mp11::mp_first<decltype(pair)>;
        using R = boost::mp11::mp_second<decltype(pair)>;
        VariantFactory f;
        f.machine = MachineEntry::run_name;
        f.scheduler = S::run_name;
        f.register_file = R::run_name;
        f.machine_info = [](const Settings& s) {
            using GpuType = typename Machine::template gpu<typename S::type, Machine::sms, typename R::type>;
            return describe_machine<Machine, GpuType>(
                MachineEntry::run_name, MachineEntry::description,
                configured<Machine, typename S::type, typename R::type>(s, S::run_name));
        };
        f.make = [](const Settings& s) {
            using GpuType = typename Machine::template gpu<typename S::type, Machine::sms, typename R::type>;
            const auto config = configured<Machine, typename S::type, typename R::type>(s, S::run_name);
            auto gpu = std::make_shared<GpuType>(config);
            std::string description = gpu->description();
            if (const std::string memory = memory_overrides(s); !memory.empty()) {
                if (description.back() == ']') description.insert(description.size() - 1, ", " + memory);
                else description += " [" + memory + "]";
            }
            Simulator::LaunchFn launch = [](void* g, func::Device& device, const func::Module& module,
                                            std::string_view entry, const func::LaunchConfig& lc,
                                            const func::Args& args, const TimingOptions& options) {
                return static_cast<GpuType*>(g)->launch(device, module, entry, lc, args, options);
            };
            return Simulator(
                std::move(gpu), launch, std::move(description),
                describe_machine<Machine, GpuType>(MachineEntry::run_name, MachineEntry::description, config));
        };
        out.push_back(f);
    });
}

} // namespace gpuarch::support::detail
