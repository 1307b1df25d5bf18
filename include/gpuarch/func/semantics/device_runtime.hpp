#pragma once
// Device-runtime semantics: vprintf, __assertfail, malloc, free, and trap (including the failed dispatch of
// an indirect call).

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/device_printf.hpp>
#include <gpuarch/func/semantics/memory.hpp>

namespace gpuarch::func::semantics {

// The `trap %rd` that ends an indirect call's dispatch (ptx/inliner.hpp): no function of the module with the
// call's prototype has the target address. Reported at the lowest such lane, with the address.
[[noreturn]] inline void bad_indirect_call(const Context& c) {
    const auto lane = static_cast<int>(c.exec.find_first());
    const std::uint64_t target = c.w.row(c.d.inst->operands[0].reg)[lane];
    std::ostringstream text;
    text << "indirect call to 0x" << std::hex << target << std::dec
         << ", which is not the address of a function of this module with the call's prototype"
         << (target == 0 ? " (a null function pointer)" : "");
    fault(c, lane, text.str(), std::nullopt, KernelErrorKind::illegal_instruction);
}

// ---- device runtime: vprintf and __assertfail -------------------------------------------------------------

// Host bytes of [address, address + bytes) in generic space as lane `lane` sees it (its own local segment),
// or nullptr when the range is not readable; never faults (printf and assert report their own errors).
inline const std::uint8_t* generic_view(const Context& c, unsigned lane, std::uint64_t address, std::uint64_t bytes) {
    const auto within = [&](std::uint64_t offset, std::uint64_t size) {
        return offset <= size && bytes <= size - offset;
    };
    const std::uint64_t frame = c.cta.local_frame_bytes;
    const std::uint8_t* local = c.cta.local_frame(std::uint64_t{c.w.first_thread} + lane);
    for (const ir::StateSpace s :
         {ir::StateSpace::shared, ir::StateSpace::local, ir::StateSpace::constant, ir::StateSpace::param}) {
        const std::uint64_t base = generic_window_base(s);
        if (address < base || address - base >= generic_window_bytes) continue;
        const std::uint64_t offset = address - base;
        switch (s) {
        case ir::StateSpace::shared:
            return within(offset, c.cta.shared.size()) ? c.cta.shared.data() + offset : nullptr;
        case ir::StateSpace::local: return within(offset, frame) ? local + offset : nullptr;
        case ir::StateSpace::constant:
            return within(offset, c.launch.variables->constant.size()) ? c.launch.variables->constant.data() + offset
                                                                       : nullptr;
        default:
            if (offset >= call_param_base)
                return within(offset - call_param_base, frame) ? local + offset - call_param_base : nullptr;
            return within(offset, c.launch.params.size()) ? c.launch.params.data() + offset : nullptr;
        }
    }
    return c.launch.device->translate(address, bytes);
}

// The call-sequence .param storage that source operand `i` of a vprintf/__assertfail names, for lane `lane`.
inline std::uint8_t* call_param(const Context& c, unsigned lane, unsigned i, unsigned bytes) {
    const std::uint64_t address = c.d.sources[i].imm; // call_param_base + the symbol's offset (decode.hpp)
    return local_bytes(c, lane, address - call_param_base, bytes, address, [&] {
        return "the .param argument " + std::to_string(i + 1) + " of " + std::string(ir::name(c.d.op));
    });
}

// Appends to the console within console_limit_per_launch; the first call that does not fit is replaced by one
// line saying so, and every later one is dropped (a GPU's full printf FIFO drops records too).
inline void append_console(LaunchState& launch, const std::string& text) {
    if (launch.console_full) return;
    if (text.size() > console_limit_per_launch - launch.console_bytes) {
        launch.console_full = true;
        launch.device->console() += "[gpuarch: device printf output of this launch exceeded " +
                                    std::to_string(console_limit_per_launch) +
                                    " bytes (CUDA's default printf FIFO size); later output is dropped]\n";
        return;
    }
    launch.console_bytes += text.size();
    launch.device->console() += text;
}

// vprintf(format, args): each executing lane in ascending order formats its call and appends the text to the
// Device's console; the return value (arguments consumed, CUDA's vprintf result) goes to the return .param.
inline void device_printf(const Context& c) {
    lanes(c, [&](unsigned l) {
        const std::uint64_t format = detail::load_le(call_param(c, l, 0, 8), 8);
        const std::uint64_t args = detail::load_le(call_param(c, l, 1, 8), 8);
        PrintfResult r;
        try {
            r = format_device_printf([&](std::uint64_t a, std::uint64_t n) { return generic_view(c, l, a, n); }, format,
                                     args);
        } catch (const PrintfFault& f) {
            fault(c, static_cast<int>(l), f.message, f.address, KernelErrorKind::illegal_address);
        }
        if (r.truncated)
            r.text += "\n[gpuarch: this printf's output was cut at " + std::to_string(printf_max_output) + " bytes]\n";
        append_console(c.launch, r.text);
        if (c.d.num_sources > 2) detail::store_le(call_param(c, l, 2, 4), static_cast<std::uint32_t>(r.arguments), 4);
    });
}

// __assertfail(message, file, line, function, charSize): the lowest executing lane's assertion stops the
// launch with the text a GPU prints for it (CUDA C++ Programming Guide, "Assertion"), then the fault site.
[[noreturn]] inline void assertion_failed(const Context& c) {
    const unsigned l = static_cast<unsigned>(c.exec.find_first());
    const auto memory = [&](std::uint64_t a, std::uint64_t n) { return generic_view(c, l, a, n); };
    const auto text = [&](unsigned i, std::string_view what) {
        const std::uint64_t pointer = detail::load_le(call_param(c, l, i, 8), 8);
        if (pointer == 0) return std::string("<null>");
        try {
            return detail::read_device_string(memory, pointer, printf_max_string, "assert: the " + std::string(what));
        } catch (const PrintfFault& f) {
            fault(c, static_cast<int>(l), f.message, f.address, KernelErrorKind::illegal_address);
        }
    };
    const std::string message = text(0, "message"), file = text(1, "file name"), function = text(3, "function name");
    const auto line = static_cast<std::uint32_t>(detail::load_le(call_param(c, l, 2, 4), 4));
    const Dim3& b = c.cta.id;
    fault(c, static_cast<int>(l),
          file + ":" + std::to_string(line) + ": " + function + ": block: [" + std::to_string(b.x) + "," +
              std::to_string(b.y) + "," + std::to_string(b.z) + "], thread: [" + std::to_string(c.w.tid_x[l]) + "," +
              std::to_string(c.w.tid_y[l]) + "," + std::to_string(c.w.tid_z[l]) + "] Assertion `" + message +
              "` failed.",
          std::nullopt, KernelErrorKind::assertion);
}

// ---- device heap: malloc and free ------------------------------------------------------------

// malloc(size): each executing lane in ascending order allocates from the Device's heap (func/device.hpp) and
// receives the pointer, or NULL when the heap is exhausted, in the return .param (when the call names one).
inline void device_malloc(const Context& c) {
    lanes(c, [&](unsigned l) {
        const std::uint64_t bytes = detail::load_le(call_param(c, l, 0, 8), 8);
        const DevPtr p = c.launch.device->device_malloc(bytes);
        if (c.d.num_sources > 1) detail::store_le(call_param(c, l, 1, 8), p, 8);
    });
}

// free(ptr): each executing lane in ascending order; free(NULL) does nothing. A pointer that is not a live
// device-heap allocation stops the launch at the first lane that passes one (CUDA leaves this undefined).
inline void device_free(const Context& c) {
    lanes(c, [&](unsigned l) {
        const std::uint64_t p = detail::load_le(call_param(c, l, 0, 8), 8);
        if (!c.launch.device->device_free(p))
            fault(c, static_cast<int>(l),
                  "free of 0x" + detail::hex(p) + ", which is not a live allocation of the device heap: it is " +
                      c.launch.device->describe_heap_free(p),
                  p, KernelErrorKind::illegal_address);
    });
}

// trap: an indirect call's failed dispatch (a `trap %rd`), or __trap() itself, which stops the launch at the lowest
// executing lane.
[[noreturn]] inline void trap(const Context& c) {
    if (c.d.inst->num_operands == 1) bad_indirect_call(c);
    fault(c, static_cast<int>(c.exec.find_first()),
          std::string("the kernel executed trap (__trap())") +
              (c.launch.reads_grid_workspace && !c.launch.options.cooperative
                   ? "; the kernel reads the cooperative-groups grid workspace (%envreg1/%envreg2), which "
                     "only a cooperative launch provides: grid.sync() traps in a launch made without "
                     "cudaLaunchCooperativeKernel"
                   : ""),
          std::nullopt, KernelErrorKind::trap);
}

} // namespace gpuarch::func::semantics
