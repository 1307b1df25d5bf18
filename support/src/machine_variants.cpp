#include <gpuarch/support/variants.hpp>

#include <gpuarch/core/error.hpp>

#include <cstdlib>

namespace gpuarch::examples {

RunRow run_fermi(std::string_view, std::string_view, kernels::Size, const RunKnobs&);
RunRow run_kepler(std::string_view, std::string_view, kernels::Size, const RunKnobs&);
RunRow run_southern_islands(std::string_view, std::string_view, kernels::Size, const RunKnobs&);
std::vector<std::string> scheduler_names_fermi();
std::vector<std::string> scheduler_names_kepler();
std::vector<std::string> scheduler_names_southern_islands();

std::vector<std::string> machine_names() { return {"fermi", "kepler", "southern_islands"}; }

std::vector<std::string> scheduler_names(std::string_view machine) {
    if (machine == "fermi") return scheduler_names_fermi();
    if (machine == "kepler") return scheduler_names_kepler();
    if (machine == "southern_islands") return scheduler_names_southern_islands();
    throw Error("no machine named '" + std::string(machine) + "' (fermi, kepler, southern_islands)");
}

RunRow run_variant(std::string_view machine, std::string_view scheduler, std::string_view kernel, kernels::Size size,
                   const RunKnobs& knobs) {
    if (machine == "fermi") return run_fermi(scheduler, kernel, size, knobs);
    if (machine == "kepler") return run_kepler(scheduler, kernel, size, knobs);
    if (machine == "southern_islands") return run_southern_islands(scheduler, kernel, size, knobs);
    throw Error("no machine named '" + std::string(machine) + "' (fermi, kepler, southern_islands)");
}

std::string kernels_dir() {
    if (const char* env = std::getenv("GPUARCH_KERNELS_DIR")) return env;
    return GPUARCH_KERNELS_DIR;
}

} // namespace gpuarch::examples
