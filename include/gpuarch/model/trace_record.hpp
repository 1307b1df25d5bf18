#pragma once
// Dynamic-instruction trace record consumed by the TEG-style timing model (teg.hpp).
//
// Contract: one record per executed warp instruction, in each warp's program order (records
// of different warps may interleave arbitrarily). The record carries only what a timing model
// needs (Lai 2013 Sec. 3.3: TEG "does not execute the instructions directly but only utilizes
// the dependence and latency information"): who issues it, what kind of unit runs it, which
// registers it reads and writes, and whether it touches memory. It deliberately depends on
// nothing else in gpuarch, so any functional front end can fill it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string_view>

namespace gpuarch::model {

// Instruction classes. The arithmetic ones are the rows of Lai 2013 Table 3.1.
enum class InstrClass : std::uint8_t {
    int_alu, // "Integer ADD" row; also logic, shifts, moves, S2R and other SP integer work
    int_mul16, // "Integer MUL (16bit)"; 32-bit IMUL is emulated with these on GT200
    int_mad16, // "Integer MAD (16bit)"
    fp32_add,
    fp32_mul,
    fp32_mad,
    fp64_add,
    fp64_mul,
    fp64_fma,
    sfu, // transcendentals on the special function units
    global_load,
    global_store,
    barrier, // CTA-wide barrier (__syncthreads / bar.sync)
};

inline constexpr std::size_t instr_class_count = 13;

constexpr std::string_view instr_class_name(InstrClass c) {
    switch (c) {
    case InstrClass::int_alu: return "int_alu";
    case InstrClass::int_mul16: return "int_mul16";
    case InstrClass::int_mad16: return "int_mad16";
    case InstrClass::fp32_add: return "fp32_add";
    case InstrClass::fp32_mul: return "fp32_mul";
    case InstrClass::fp32_mad: return "fp32_mad";
    case InstrClass::fp64_add: return "fp64_add";
    case InstrClass::fp64_mul: return "fp64_mul";
    case InstrClass::fp64_fma: return "fp64_fma";
    case InstrClass::sfu: return "sfu";
    case InstrClass::global_load: return "global_load";
    case InstrClass::global_store: return "global_store";
    case InstrClass::barrier: return "barrier";
    }
    return "?";
}

constexpr bool is_global_access(InstrClass c) { return c == InstrClass::global_load || c == InstrClass::global_store; }

using RegisterId = std::uint16_t;

// A short inline list of register ids (no allocation, usable in constant expressions).
template <std::size_t Capacity> struct RegisterList {
    std::array<RegisterId, Capacity> ids{};
    std::uint8_t count = 0;

    constexpr RegisterList() = default;
    constexpr RegisterList(std::initializer_list<RegisterId> regs) {
        if (regs.size() > Capacity) throw std::length_error("RegisterList: more registers than capacity");
        for (RegisterId r : regs) ids[count++] = r;
    }
    constexpr void push_back(RegisterId r) {
        if (count >= Capacity) throw std::length_error("RegisterList: more registers than capacity");
        ids[count++] = r;
    }
    constexpr std::size_t size() const { return count; }
    constexpr bool empty() const { return count == 0; }
    constexpr const RegisterId* begin() const { return ids.data(); }
    constexpr const RegisterId* end() const { return ids.data() + count; }
    constexpr std::span<const RegisterId> view() const { return {ids.data(), count}; }
};

inline constexpr std::size_t max_trace_destinations = 4; // a 128-bit load writes four registers
inline constexpr std::size_t max_trace_sources = 8; // a 128-bit store reads address + four data

struct TraceRecord {
    std::uint32_t warp = 0;
    InstrClass cls = InstrClass::int_alu;
    RegisterList<max_trace_destinations> dst;
    RegisterList<max_trace_sources> src;
    // True when the instruction accesses memory: always for global_load/global_store; for an
    // arithmetic class it marks a shared-memory operand (GT200 "FADD32 R2, g[A1+0xb], R2",
    // Lai 2013 Sec. 3.2.3.3), which changes its latency.
    bool memory = false;
    // Serialisation degree of that shared access: 1 = conflict-free, up to the bank count
    // (16 on GT200, per half-warp).
    std::uint8_t shared_conflict_ways = 1;
    // Barrier scope; every record of one warp must carry the same value.
    std::uint32_t cta = 0;
};

} // namespace gpuarch::model
