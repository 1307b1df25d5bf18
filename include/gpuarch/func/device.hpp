#pragma once
// Device (global) memory: a sparse store keyed by allocation, plus the generic address-space layout.
//
// Contract:
// - malloc returns 256-byte aligned addresses in [global_heap_base, global_heap_limit). Consecutive allocations
//   are separated by at least 256 unmapped bytes and freed ranges are never handed out again, so small overruns
//   and use-after-free are caught as faults instead of silently touching a neighbour.
// - Every access names an address range that must lie inside one live allocation; nothing the simulated kernel
//   does can reach host memory outside the allocation's own buffer.
// - New allocations read as zero (cudaMalloc leaves them undefined; zero keeps runs deterministic).
// - A Device is not thread-safe: one launch or host copy at a time.
// - Device heap (device-side malloc/free, CUDA C++ Programming Guide, "Dynamic Global Memory Allocation and
//   Operations"): device_malloc makes ordinary allocations (so the same bounds checks apply) charged against a
//   heap of heap_limit() bytes, by default CUDA's documented 8 MB (cudaLimitMallocHeapSize). Each allocation is
//   charged its size rounded up to 16 bytes, the alignment CUDA guarantees for it (ours are 256-byte aligned).
//   An allocation that does not fit returns 0 (NULL), as CUDA's does. device_free(0) is a no-op; freeing
//   anything that is not a live device-heap allocation returns false for the caller to report. The host cannot
//   free device-heap memory (free() throws), and the heap size can change only while no device-heap memory has
//   ever been allocated (CUDA fixes it once a kernel that calls malloc has run).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/func/module.hpp>
#include <gpuarch/func/texture.hpp>
#include <gpuarch/ir/module.hpp>

namespace gpuarch::func {

using DevPtr = std::uint64_t; // device virtual address; 0 is never a valid allocation

// The 64-bit generic address space. Global addresses are generic addresses (cvta.global is the identity); the
// other state spaces appear in generic space through disjoint 4 GiB windows at these bases, so a generic address
// names exactly one space: window_base + address-in-space.
inline constexpr std::uint64_t generic_window_bytes = std::uint64_t{1} << 32;
inline constexpr std::uint64_t shared_window_base = 0x0000'1000'0000'0000ULL;
inline constexpr std::uint64_t local_window_base = 0x0000'2000'0000'0000ULL;
inline constexpr std::uint64_t const_window_base = 0x0000'3000'0000'0000ULL;
inline constexpr std::uint64_t param_window_base = 0x0000'4000'0000'0000ULL;
inline constexpr std::uint64_t global_heap_base = 0x0000'0001'0000'0000ULL;
inline constexpr std::uint64_t global_heap_limit = shared_window_base;
// Param-space addresses: the kernel's parameter buffer sits at [0, param_bytes); addresses from here on name the
// executing thread's call-sequence .param storage (kernel-local .param symbols, kept in its local segment) at
// (address - call_param_base).
inline constexpr std::uint64_t call_param_base = std::uint64_t{1} << 31;

inline constexpr std::uint64_t allocation_alignment = 256;
inline constexpr std::uint64_t allocation_guard_bytes = 256;
// CUDA C++ Programming Guide, "Heap Memory Allocation": "The device heap has a default size of 8 megabytes";
// "Dynamic Global Memory Allocation and Operations": the pointer malloc returns "is guaranteed to be aligned to a
// 16-byte boundary".
inline constexpr std::uint64_t default_device_heap_bytes = std::uint64_t{8} << 20;
inline constexpr std::uint64_t device_heap_alignment = 16;

class Device {
public:
    // Variables of one module on this device: its .global segment (a device allocation) and its .const bank.
    struct ModuleVariables {
        DevPtr global_base = 0;
        std::vector<std::uint8_t> constant;
    };

    explicit Device(std::uint64_t capacity_bytes = std::uint64_t{4} << 30) : capacity_(capacity_bytes) {}

    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    DevPtr malloc(std::size_t bytes) {
        if (bytes > capacity_ - std::min(capacity_, in_use_))
            throw Error("device memory exhausted: cannot allocate " + std::to_string(bytes) + " bytes (" +
                        std::to_string(in_use_) + " of " + std::to_string(capacity_) + " bytes in use)");
        const DevPtr base = next_;
        const std::uint64_t span = round_up(bytes == 0 ? 1 : bytes, allocation_alignment) + allocation_guard_bytes;
        if (span > global_heap_limit - next_)
            throw Error("device address space exhausted after " + std::to_string(next_ - global_heap_base) +
                        " bytes of allocations");
        next_ += span;
        Allocation a;
        a.size = bytes;
        a.data = std::make_unique<std::uint8_t[]>(bytes == 0 ? 1 : bytes); // value-initialised: zeros
        allocations_.emplace(base, std::move(a));
        in_use_ += bytes;
        return base;
    }

    void free(DevPtr ptr) {
        if (ptr == 0) return; // like cudaFree(nullptr)
        auto it = allocations_.find(ptr);
        if (it == allocations_.end())
            throw Error("free of 0x" + hex(ptr) + ", which is not the start of a live device allocation");
        if (heap_allocations_.count(ptr) != 0)
            throw Error("free of 0x" + hex(ptr) +
                        ", which device-side malloc allocated (only a kernel's free() "
                        "releases device-heap memory)");
        in_use_ -= it->second.size;
        allocations_.erase(it);
        forget_translations();
    }

    // ---- device heap (device-side malloc/free; see the contract above) ----
    struct HeapStats {
        std::uint64_t mallocs = 0; // successful device_malloc calls
        std::uint64_t failed_mallocs = 0; // calls that returned NULL (heap exhausted)
        std::uint64_t frees = 0; // device_free calls that released an allocation (free(NULL) not counted)
        std::uint64_t peak_bytes = 0; // most heap bytes charged at once
    };

    // NULL when `bytes` (rounded up to 16) does not fit in what is left of the heap or of device memory.
    DevPtr device_malloc(std::uint64_t bytes) {
        heap_used_ever_ = true;
        const std::uint64_t charge = round_up(bytes == 0 ? 1 : bytes, device_heap_alignment);
        if (bytes > heap_limit_ || charge > heap_limit_ - heap_bytes_) {
            ++heap_stats_.failed_mallocs;
            return 0;
        }
        DevPtr p = 0;
        try {
            p = malloc(bytes);
        } catch (const Error&) { // device memory or address space exhausted: NULL as well
            ++heap_stats_.failed_mallocs;
            return 0;
        }
        heap_allocations_.emplace(p, charge);
        heap_bytes_ += charge;
        heap_stats_.peak_bytes = std::max(heap_stats_.peak_bytes, heap_bytes_);
        ++heap_stats_.mallocs;
        return p;
    }
    // False when `ptr` is neither 0 nor the start of a live device-heap allocation.
    bool device_free(DevPtr ptr) {
        if (ptr == 0) return true;
        const auto it = heap_allocations_.find(ptr);
        if (it == heap_allocations_.end()) return false;
        heap_bytes_ -= it->second;
        heap_allocations_.erase(it);
        auto a = allocations_.find(ptr);
        in_use_ -= a->second.size;
        allocations_.erase(a);
        forget_translations();
        ++heap_stats_.frees;
        return true;
    }
    // Why device_free(ptr) failed, as a phrase for the error message.
    std::string describe_heap_free(DevPtr ptr) const {
        if (allocations_.count(ptr) != 0) return "a host allocation (cudaMalloc), which only the host may free";
        if (ptr >= global_heap_base && ptr < next_) {
            auto it = allocations_.upper_bound(ptr);
            if (it != allocations_.begin()) {
                --it;
                if (ptr - it->first < std::max<std::uint64_t>(it->second.size, 1))
                    return "inside the " + std::to_string(it->second.size) + "-byte allocation at 0x" + hex(it->first) +
                           ", not its start";
            }
            return "not a live allocation (already freed, or never returned by malloc)";
        }
        return "not a device-heap address";
    }
    std::uint64_t heap_limit() const { return heap_limit_; }
    std::uint64_t heap_bytes() const { return heap_bytes_; }
    const HeapStats& heap_stats() const { return heap_stats_; }
    // Throws once device-side malloc has been called on this Device (CUDA: cudaErrorInvalidValue after a kernel
    // that uses malloc ran).
    void set_heap_limit(std::uint64_t bytes) {
        if (heap_used_ever_)
            throw Error("the device heap size cannot change after device-side malloc has been called (CUDA fixes "
                        "cudaLimitMallocHeapSize once a kernel that uses malloc has run)");
        heap_limit_ = bytes;
    }

    void copy_in(DevPtr dst, const void* src, std::size_t bytes) {
        if (bytes == 0) return;
        std::memcpy(checked(dst, bytes, "copy_in"), src, bytes);
    }
    void copy_out(void* dst, DevPtr src, std::size_t bytes) const {
        if (bytes == 0) return;
        std::memcpy(dst, const_cast<Device*>(this)->checked(src, bytes, "copy_out"), bytes);
    }
    void memset(DevPtr dst, int value, std::size_t bytes) {
        if (bytes == 0) return;
        std::memset(checked(dst, bytes, "memset"), value, bytes);
    }

    template <class T> DevPtr upload(std::span<const T> host) {
        static_assert(std::is_trivially_copyable_v<T>, "upload copies raw bytes: T must be trivially copyable");
        const DevPtr p = malloc(host.size_bytes());
        copy_in(p, host.data(), host.size_bytes());
        return p;
    }
    template <class T> DevPtr upload(std::span<T> host) { return upload(std::span<const T>(host)); }
    template <class T> DevPtr upload(const std::vector<T>& host) { return upload(std::span<const T>(host)); }
    template <class T> std::vector<T> download(DevPtr src, std::size_t count) const {
        static_assert(std::is_trivially_copyable_v<T>, "download copies raw bytes: T must be trivially copyable");
        std::vector<T> out(count);
        copy_out(out.data(), src, count * sizeof(T));
        return out;
    }

    // The host bytes behind [addr, addr + bytes) when the range lies inside one live allocation, else nullptr.
    std::uint8_t* translate(DevPtr addr, std::uint64_t bytes) {
        for (const RecentAllocation& r : recent_)
            if (addr >= r.base && addr <= r.end && bytes <= r.end - addr) return r.data + (addr - r.base);
        auto it = allocations_.upper_bound(addr);
        if (it == allocations_.begin()) return nullptr;
        --it;
        const DevPtr base = it->first;
        const std::uint64_t size = it->second.size;
        if (addr - base > size || bytes > size - (addr - base)) return nullptr;
        recent_[recent_next_] = RecentAllocation{base, base + size, it->second.data.get()};
        recent_next_ = (recent_next_ + 1) % recent_.size();
        return it->second.data.get() + (addr - base);
    }

    // Why [addr, addr + bytes) is not accessible, as a phrase for error messages.
    std::string describe_fault(DevPtr addr, std::uint64_t bytes) const {
        auto it = allocations_.upper_bound(addr);
        if (it != allocations_.begin()) {
            --it;
            const DevPtr base = it->first;
            if (addr - base < it->second.size || (addr == base && it->second.size == 0))
                return "the access runs past the end of the " + std::to_string(it->second.size) +
                       "-byte allocation at 0x" + hex(base);
            std::ostringstream text;
            text << "no live allocation contains it (nearest below: 0x" << hex(base) << ", " << it->second.size
                 << " bytes, ends " << (addr - base - it->second.size) << " bytes before)";
            return text.str();
        }
        (void)bytes;
        return "no live allocation contains it";
    }

    // Device-side console: what kernels print (vprintf), appended in the order the functional engine executes the
    // calls (lanes of one warp in lane order), so the text is deterministic for a given SM variant. A host runtime
    // drains it at synchronisation points, as a GPU flushes its printf buffer.
    std::string& console() { return console_; }
    std::string take_console() { return std::exchange(console_, std::string()); }

    // CUDA arrays, texture objects and surface objects (func/texture.hpp). An array's texels are one allocation of
    // this device, made and freed by create_array / free_array.
    TextureTable& textures() { return textures_; }
    const TextureTable& textures() const { return textures_; }
    std::uint64_t create_array(CudaArray array) {
        const std::string reason = array.format.invalid_reason();
        if (!reason.empty()) throw Error("cannot create a CUDA array: " + reason);
        array.data = malloc(array.bytes());
        try {
            return textures_.add_array(array);
        } catch (...) {
            free(array.data);
            throw;
        }
    }
    void free_array(std::uint64_t handle) { free(textures_.remove_array(handle)); }

    std::uint64_t bytes_in_use() const { return in_use_; }
    // Calls f(base, bytes) for every live allocation in address order, `bytes` a std::span over its contents:
    // whole-memory comparisons (tests/pinned/parallel_sms.cpp checks that every host-thread count writes the same).
    template <class F> void for_each_allocation(F&& f) const {
        for (const auto& [base, a] : allocations_) f(base, std::span<const std::uint8_t>(a.data.get(), a.size));
    }
    std::uint64_t capacity() const { return capacity_; }

    // The module's .global and .const variables on this device, created (and initialised from the module's
    // initialisers) on first use; they live as long as the device, like a loaded CUmodule.
    ModuleVariables& module_variables(const Module& module) {
        auto it = modules_.find(module.id());
        if (it != modules_.end()) return it->second;
        const ir::Module& m = module.ir();
        ModuleVariables vars;
        if (m.global_bytes > 0) vars.global_base = malloc(m.global_bytes);
        vars.constant.assign(m.const_bytes, 0);
        for (const ir::Symbol& s : m.globals) {
            if (s.initializer.empty()) continue;
            const std::uint64_t n = std::min<std::uint64_t>(s.initializer.size(), s.size_bytes);
            if (s.space == ir::StateSpace::global) {
                if (s.offset + n > m.global_bytes)
                    throw Error("module '" + m.file_name + "': .global variable '" + s.name +
                                "' lies outside the module's global segment");
                copy_in(vars.global_base + s.offset, s.initializer.data(), n);
            } else if (s.space == ir::StateSpace::constant) {
                if (s.offset + n > m.const_bytes)
                    throw Error("module '" + m.file_name + "': .const variable '" + s.name +
                                "' lies outside the module's constant segment");
                std::memcpy(vars.constant.data() + s.offset, s.initializer.data(), n);
            }
        }
        return modules_.emplace(module.id(), std::move(vars)).first->second;
    }

    // Address of a module-scope .global variable (like cudaGetSymbolAddress).
    DevPtr symbol_address(const Module& module, std::string_view name) {
        const ir::Symbol& s = find_symbol(module, name);
        if (s.space != ir::StateSpace::global)
            throw Error("symbol '" + std::string(name) +
                        "' is not a .global variable; only .global variables have a "
                        "device address");
        return module_variables(module).global_base + s.offset;
    }

    // Host access to module-scope .global and .const variables (like cudaMemcpyToSymbol / FromSymbol).
    void copy_to_symbol(const Module& module, std::string_view name, const void* src, std::size_t bytes,
                        std::size_t offset = 0) {
        const ir::Symbol& s = find_symbol(module, name);
        check_symbol_range(s, bytes, offset);
        ModuleVariables& vars = module_variables(module);
        if (s.space == ir::StateSpace::global) copy_in(vars.global_base + s.offset + offset, src, bytes);
        else std::memcpy(vars.constant.data() + s.offset + offset, src, bytes);
    }
    void copy_from_symbol(void* dst, const Module& module, std::string_view name, std::size_t bytes,
                          std::size_t offset = 0) {
        const ir::Symbol& s = find_symbol(module, name);
        check_symbol_range(s, bytes, offset);
        ModuleVariables& vars = module_variables(module);
        if (s.space == ir::StateSpace::global) copy_out(dst, vars.global_base + s.offset + offset, bytes);
        else std::memcpy(dst, vars.constant.data() + s.offset + offset, bytes);
    }

private:
    struct Allocation {
        std::uint64_t size = 0;
        std::unique_ptr<std::uint8_t[]> data;
    };

    static std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }
    static std::string hex(std::uint64_t v) {
        std::ostringstream text;
        text << std::hex << v;
        return text.str();
    }

    std::uint8_t* checked(DevPtr addr, std::uint64_t bytes, const char* what) {
        std::uint8_t* p = translate(addr, bytes);
        if (p == nullptr)
            throw Error(std::string(what) + " of " + std::to_string(bytes) + " bytes at device address 0x" + hex(addr) +
                        " is out of bounds: " + describe_fault(addr, bytes));
        return p;
    }

    static const ir::Symbol& find_symbol(const Module& module, std::string_view name) {
        for (const ir::Symbol& s : module.ir().globals)
            if (s.name == name && (s.space == ir::StateSpace::global || s.space == ir::StateSpace::constant)) return s;
        throw Error("module '" + module.ir().file_name + "' has no module-scope .global or .const variable named '" +
                    std::string(name) + "'");
    }
    static void check_symbol_range(const ir::Symbol& s, std::size_t bytes, std::size_t offset) {
        if (offset > s.size_bytes || bytes > s.size_bytes - offset)
            throw Error("access of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                        " runs past the end of the " + std::to_string(s.size_bytes) + "-byte variable '" + s.name +
                        "'");
    }

    std::uint64_t capacity_;
    std::uint64_t in_use_ = 0;
    DevPtr next_ = global_heap_base;
    std::map<DevPtr, Allocation> allocations_;
    std::unordered_map<std::uint64_t, ModuleVariables> modules_;
    std::string console_;
    TextureTable textures_;
    // The device heap: live device-side malloc allocations and the bytes each is charged.
    std::unordered_map<DevPtr, std::uint64_t> heap_allocations_;
    std::uint64_t heap_limit_ = default_device_heap_bytes;
    std::uint64_t heap_bytes_ = 0;
    bool heap_used_ever_ = false;
    HeapStats heap_stats_;
    // The allocations translate() found last, replaced in turn: a kernel's consecutive accesses mostly fall in the
    // few arrays its loop reads and writes (a CSR matrix-vector product reads three), so one entry missed on
    // every access of such loops. An empty entry's range [1, 0] holds no address.
    struct RecentAllocation {
        DevPtr base = 1, end = 0;
        std::uint8_t* data = nullptr;
    };
    std::array<RecentAllocation, 4> recent_{};
    unsigned recent_next_ = 0;
    void forget_translations() { recent_.fill(RecentAllocation{}); }
};

} // namespace gpuarch::func
