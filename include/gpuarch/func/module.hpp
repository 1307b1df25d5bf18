#pragma once
// A parsed and analysed PTX module, shared by every launch and every device that runs it.
// Contract: a Module is immutable after construction and cheap to copy (copies share the IR and the identity
// that a Device uses to keep the module's .global and .const variables, so copies see the same variables).
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include <gpuarch/core/error.hpp>
#include <gpuarch/core/separate_compilation.hpp>
#include <gpuarch/ir/analyse.hpp>
#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/parser.hpp>

namespace gpuarch::func {

class Module {
public:
    // Wraps a module built in memory (tests, generators) or returned by ptx::parse. Runs ir::assign_layout and
    // ir::analyse, which are idempotent, so a parsed module is unchanged.
    // Defined below (separately compiled under GPUARCH_SEPARATE_COMPILATION, gpuarch/core/separate_compilation.hpp).
    explicit Module(ir::Module module);

    // Throws ptx::ParseError ("file:line:col: message") for malformed PTX.
    static Module from_string(std::string text, std::string file_name = "<string>") {
        return Module(ptx::parse(text, file_name));
    }

    static Module from_file(const std::filesystem::path& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error("cannot open PTX file '" + path.string() + "'");
        std::ostringstream text;
        text << in.rdbuf();
        return from_string(text.str(), path.string());
    }

    const ir::Kernel& kernel(std::string_view entry_name) const {
        if (const ir::Kernel* k = shared_->module.find_kernel(entry_name)) return *k;
        std::string known;
        for (const auto& k : shared_->module.kernels) known += (known.empty() ? "" : ", ") + k.name;
        throw Error("module '" + shared_->module.file_name + "' has no kernel entry named '" + std::string(entry_name) +
                    "' (entries: " + (known.empty() ? std::string("none") : known) + ")");
    }

    const ir::Module& ir() const { return shared_->module; }

    // Identity of the parsed module (shared by copies); a Device keys the module's variables by it.
    std::uint64_t id() const { return shared_->id; }

private:
    struct Shared {
        ir::Module module;
        std::uint64_t id;
    };

    static std::uint64_t next_id() {
        static std::atomic<std::uint64_t> counter{0};
        return ++counter;
    }

    std::shared_ptr<const Shared> shared_;
};

#if GPUARCH_SEPARATE_DEFINITIONS
GPUARCH_SEPARATE_INLINE Module::Module(ir::Module module) {
    ir::assign_layout(module);
    ir::analyse(module);
    if (module.address_size != 64)
        throw Error("module '" + module.file_name + "' uses " + std::to_string(module.address_size) +
                    "-bit addresses; gpuarch executes .address_size 64 modules only");
    shared_ = std::make_shared<const Shared>(Shared{std::move(module), next_id()});
}
#endif

} // namespace gpuarch::func
