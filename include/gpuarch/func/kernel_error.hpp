#pragma once
// Errors raised while launching or executing a kernel.
// Contract: what() is one sentence a user can act on. Faults inside a kernel name the kernel, the PC, the PTX
// source position, the CTA and thread, and the address where one is involved; the same facts are also kept as
// fields so tests and tools need not parse the text.
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/dim3.hpp>
#include <gpuarch/ir/instruction.hpp>

namespace gpuarch::func {

// Where in a running kernel a fault happened. Every field is optional except the kernel name.
struct FaultSite {
    std::string kernel;
    std::string file;
    ir::Pc pc = ir::no_pc;
    std::uint32_t line = 0;
    std::optional<Dim3> cta;
    std::optional<Dim3> thread;
    std::optional<std::uint64_t> address;
};

// What went wrong, so a host runtime can report the error code a GPU would (tools/cudart maps each kind to a
// cudaError_t: illegal_address -> cudaErrorIllegalAddress, assertion -> cudaErrorAssert, and so on).
enum class KernelErrorKind : std::uint8_t {
    other, // anything not below
    invalid_launch, // the launch itself is malformed (grid, block, shared memory, arguments)
    illegal_address, // a load, store or atomic outside every accessible range
    misaligned_address, // an access whose address is not a multiple of its size
    illegal_instruction, // an instruction the engine cannot execute, or execution past the kernel's end
    assertion, // a device-side assert() failed (__assertfail)
    trap, // the kernel executed trap (__trap())
    limit, // a run-time limit stopped the launch (instruction or cycle limit, runaway kernel)
    deadlock, // no warp can make progress (barrier deadlock, livelock)
    cooperative_too_large, // a cooperative launch whose grid cannot be resident at once on the machine
};

class KernelError : public Error {
public:
    KernelError(const std::string& message, FaultSite site, KernelErrorKind kind = KernelErrorKind::other)
        : Error(compose(message, site)), site_(std::move(site)), kind_(kind) {}
    explicit KernelError(const std::string& message, KernelErrorKind kind = KernelErrorKind::other)
        : Error(message), kind_(kind) {}

    const FaultSite& site() const { return site_; }
    KernelErrorKind kind() const { return kind_; }

private:
    static std::string compose(const std::string& message, const FaultSite& s) {
        std::ostringstream text;
        text << "kernel '" << s.kernel << "'";
        if (s.pc != ir::no_pc) text << " at PC " << s.pc;
        if (s.line != 0) text << " (" << (s.file.empty() ? std::string("<input>") : s.file) << ":" << s.line << ")";
        if (s.cta) text << ", CTA " << to_string(*s.cta);
        if (s.thread) text << ", thread " << to_string(*s.thread);
        if (s.address) text << ", address 0x" << std::hex << *s.address << std::dec;
        text << ": " << message;
        return text.str();
    }

    FaultSite site_;
    KernelErrorKind kind_ = KernelErrorKind::other;
};

} // namespace gpuarch::func
