#include "registry_table.hpp"
#include "variant_units.hpp"

#include <gpuarch/core/error.hpp>

#include <algorithm>

namespace gpuarch::support {

namespace detail {
const std::vector<VariantFactory>& variant_factories() {
    static const std::vector<VariantFactory> all = [] {
        std::vector<VariantFactory> out;
        add_all_variants(out);
        return out;
    }();
    return all;
}
} // namespace detail

namespace {

std::vector<std::string> distinct(std::string_view detail::VariantFactory::*field) {
    std::vector<std::string> out;
    for (const auto& f : detail::variant_factories())
        if (std::find(out.begin(), out.end(), f.*field) == out.end()) out.emplace_back(f.*field);
    return out;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

// Beside every "no such variant" error of a registry built with GPUARCH_RUNTIME_UNITS: a name that is missing for
// that reason must not read as a typo.
std::string restriction_note() {
    if (detail::restricted_units.empty()) return "";
    return " (this runtime was built with the registry units " + std::string(detail::restricted_units) +
           " only: GPUARCH_RUNTIME_UNITS at configure time, docs/cuda_runtime.md)";
}

const detail::VariantFactory& find(const Settings& s) {
    const std::string machine = s.get("machine"), scheduler = s.get("scheduler"), rf = s.get("register_file");
    auto require = [](const std::string& what, const std::string& value, const std::vector<std::string>& valid) {
        if (std::find(valid.begin(), valid.end(), value) == valid.end())
            throw Error("no " + what + " named '" + value + "'; valid " + what + "s: " + joined(valid) +
                        restriction_note());
    };
    require("machine", machine, machine_names());
    require("scheduler", scheduler, scheduler_names());
    require("register_file", rf, register_file_names());
    for (const auto& f : detail::variant_factories())
        if (f.machine == machine && f.scheduler == scheduler && f.register_file == rf) return f;
    std::vector<std::string> with_rf;
    for (const auto& f : detail::variant_factories())
        if (f.machine == machine && f.register_file == rf) with_rf.emplace_back(f.scheduler);
    throw Error("register_file '" + rf + "' is prebuilt with the schedulers " + joined(with_rf) + " only, not with '" +
                scheduler + "' (docs/cuda_runtime.md says how to add a combination)" + restriction_note());
}

} // namespace

std::vector<std::string> machine_names() { return distinct(&detail::VariantFactory::machine); }
std::vector<std::string> scheduler_names() { return distinct(&detail::VariantFactory::scheduler); }
std::vector<std::string> register_file_names() { return distinct(&detail::VariantFactory::register_file); }

std::vector<VariantName> variant_names() {
    std::vector<VariantName> out;
    for (const auto& f : detail::variant_factories())
        out.push_back({std::string(f.machine), std::string(f.scheduler), std::string(f.register_file)});
    return out;
}

void check_variant(const Settings& settings) { find(settings); }

MachineInfo machine_info(std::string_view machine, const Settings& settings) {
    Settings s = settings;
    s.set("machine", machine);
    for (const auto& f : detail::variant_factories())
        if (f.machine == machine) {
            s.set("scheduler", f.scheduler);
            s.set("register_file", f.register_file);
            return f.machine_info(s);
        }
    throw Error("no machine named '" + std::string(machine) + "'; valid machines: " + joined(machine_names()) +
                restriction_note());
}

Simulator make_simulator(const Settings& settings) { return find(settings).make(settings); }

} // namespace gpuarch::support
