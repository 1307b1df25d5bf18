#pragma once
// Byte layout of every state space. Contract (assign_layout is idempotent):
// - Module::globals: .global symbols are packed in declaration order into the global segment, .const symbols
//   into the const segment, static .shared symbols into the module shared segment, each at a multiple of its
//   alignment; Module::global_bytes/const_bytes/shared_bytes are the segment ends. `.extern .shared x[]`
//   (dynamic shared memory) takes no space and keeps offset 0.
// - Kernel params: Param::offset is the parameter's offset in the kernel parameter buffer (aligned to
//   Param::alignment), Kernel::param_bytes the end.
// - Kernel shared window: module shared symbols at [0, Module::shared_bytes), then the kernel's own .shared
//   symbols; Kernel::shared_bytes is the static total; Kernel::dynamic_shared_offset is where dynamic shared
//   memory starts (shared_bytes rounded up to max(16, the largest alignment of an extern .shared)).
// - Per-thread segment: the kernel's .local symbols and kernel-local .param symbols (call-sequence parameters,
//   which inlining turned into per-thread storage) share one segment of Kernel::local_bytes bytes.
// An alignment of 0 means the natural alignment of the symbol's type.
#include <algorithm>
#include <cstdint>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>

namespace gpuarch::ir {

constexpr std::uint64_t align_up(std::uint64_t value, std::uint64_t alignment) {
    return alignment <= 1 ? value : (value + alignment - 1) / alignment * alignment;
}

inline std::uint64_t effective_alignment(const Symbol& s) {
    return s.alignment != 0 ? s.alignment : std::max<std::uint64_t>(1, size_bytes(s.type));
}

inline void assign_layout(Module& module) {
    std::uint64_t global = 0, constant = 0, shared = 0, extern_alignment = 16;
    const auto place = [](std::uint64_t& end, Symbol& s) {
        s.offset = align_up(end, effective_alignment(s));
        end = s.offset + s.size_bytes;
    };
    for (Symbol& s : module.globals) {
        switch (s.space) {
        case StateSpace::global: place(global, s); break;
        case StateSpace::constant: place(constant, s); break;
        case StateSpace::shared:
            if (s.is_extern && s.element_count == 0) {
                s.offset = 0;
                extern_alignment = std::max(extern_alignment, effective_alignment(s));
            } else {
                place(shared, s);
            }
            break;
        default:
            throw Error("module variable '" + s.name + "' is in the ." + std::string(name(s.space)) +
                        " space, which has no module segment");
        }
    }
    module.global_bytes = global;
    module.const_bytes = constant;
    module.shared_bytes = shared;
    for (Kernel& k : module.kernels) {
        std::uint64_t params = 0;
        for (Param& p : k.params) {
            params = align_up(params, std::max<std::uint32_t>(1, p.alignment));
            p.offset = static_cast<std::uint32_t>(params);
            params += p.size_bytes;
        }
        if (params > 0xffffffffULL) throw Error("kernel '" + k.name + "': parameters exceed 4 GiB");
        k.param_bytes = static_cast<std::uint32_t>(params);
        std::uint64_t kernel_shared = module.shared_bytes, local = 0;
        for (Symbol& s : k.symbols) {
            if (s.space == StateSpace::shared) place(kernel_shared, s);
            else if (s.space == StateSpace::local || s.space == StateSpace::param) place(local, s);
            else throw Error("kernel '" + k.name + "': variable '" + s.name + "' is in a space with no kernel segment");
        }
        k.shared_bytes = kernel_shared;
        k.dynamic_shared_offset = align_up(kernel_shared, extern_alignment);
        k.local_bytes = local;
    }
}

} // namespace gpuarch::ir
