#pragma once
// ZeroGatedExec: SimdExec's timing with the execution-unit gating of Radaideh 2020 Sec. 4.4:
//   * inactive-lane gating (Sec. 4.4.1): the lanes of inactive threads are not clocked ("gating off pipeline
//     staging for all operands and results except for control signals");
//   * trivial-operation bypass (Sec. 4.4.2): a lane whose operation "is trivial if at least one of its operands
//     is zero and its final result is either zero or equal to one of its source operands" is gated too, and the
//     last stage selects zero or that source operand instead.
// Both apply to the arithmetic units only (sp, int_mul, dp, sfu; "we applied our gating techniques on arithmetic
// execution units"). Gating changes energy, never timing: every timing decision is the wrapped SimdExec's.
//
// Operand zero-ness. The hardware reads it from the zero masks captured in the operand collector. Here the
// values of every register are tracked per (warp slot, register) from the ExecOps themselves: every instruction,
// loads included, passes through dispatch, and ExecOp::values is its first destination's per-lane result. The
// tracked value is updated when the writer dispatches (a reader issued earlier that dispatches later would see
// the newer value; the SM's scoreboard makes this rare: only a write-after-read across a stalled collector).
// Destinations other than the first, and writes without values, make their lanes unknown (never zero).
//
// Trivial-operation table (`trivial_rules`, the thesis does not list one; docs/energy.md reproduces it): for
// each opcode, which register source being zero makes the result zero or equal to another source. Immediates
// are not zero-masked (they are not read from the register file). A rule counts a lane as trivial only when the
// selected value equals the functional result bit for bit, which stands in for the special cases hardware
// must exclude (floating-point -0, infinities and NaN: 0 * inf is NaN, -0 + 0 is +0). Instructions that write
// the carry flag are never bypassed.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/exec/simd_exec.hpp>
#include <gpuarch/ir/instruction.hpp>
#include <gpuarch/timing/concepts.hpp>

namespace gpuarch::exec {

// What a trivial lane's result is.
enum class TrivialResult : std::uint8_t { zero, source_a, source_b, source_c };

// "When source operand `zero_source` (1 = a, 2 = b, 3 = c, counting PTX operands after the destination) is zero,
// the result is `result`."
struct TrivialRule {
    ir::Opcode op;
    std::uint8_t zero_source;
    TrivialResult result;
};

inline constexpr std::array trivial_rules{
    TrivialRule{ir::Opcode::add, 1, TrivialResult::source_b}, // 0 + b = b
    TrivialRule{ir::Opcode::add, 2, TrivialResult::source_a}, // a + 0 = a
    TrivialRule{ir::Opcode::sub, 2, TrivialResult::source_a}, // a - 0 = a
    TrivialRule{ir::Opcode::mul, 1, TrivialResult::zero}, // 0 * b = 0 (.lo, .hi, .wide)
    TrivialRule{ir::Opcode::mul, 2, TrivialResult::zero},
    TrivialRule{ir::Opcode::mul24, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::mul24, 2, TrivialResult::zero},
    TrivialRule{ir::Opcode::mad, 1, TrivialResult::source_c}, // 0 * b + c = c
    TrivialRule{ir::Opcode::mad, 2, TrivialResult::source_c},
    TrivialRule{ir::Opcode::mad24, 1, TrivialResult::source_c},
    TrivialRule{ir::Opcode::mad24, 2, TrivialResult::source_c},
    TrivialRule{ir::Opcode::fma, 1, TrivialResult::source_c},
    TrivialRule{ir::Opcode::fma, 2, TrivialResult::source_c},
    TrivialRule{ir::Opcode::div, 1, TrivialResult::zero}, // 0 / b = 0 (b != 0: checked by the value test)
    TrivialRule{ir::Opcode::rem, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::and_, 1, TrivialResult::zero}, // 0 & b = 0
    TrivialRule{ir::Opcode::and_, 2, TrivialResult::zero},
    TrivialRule{ir::Opcode::or_, 1, TrivialResult::source_b}, // 0 | b = b
    TrivialRule{ir::Opcode::or_, 2, TrivialResult::source_a},
    TrivialRule{ir::Opcode::xor_, 1, TrivialResult::source_b}, // 0 ^ b = b
    TrivialRule{ir::Opcode::xor_, 2, TrivialResult::source_a},
    TrivialRule{ir::Opcode::shl, 1, TrivialResult::zero}, // 0 << n = 0
    TrivialRule{ir::Opcode::shl, 2, TrivialResult::source_a}, // a << 0 = a
    TrivialRule{ir::Opcode::shr, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::shr, 2, TrivialResult::source_a},
    TrivialRule{ir::Opcode::neg, 1, TrivialResult::zero}, // -0 = 0 (integer; fp -0.0 fails the value test)
    TrivialRule{ir::Opcode::abs, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::popc, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::brev, 1, TrivialResult::zero},
    TrivialRule{ir::Opcode::sqrt, 1, TrivialResult::zero}, // sqrt(0) = 0
    TrivialRule{ir::Opcode::sin, 1, TrivialResult::zero}, // sin(0) = 0
    TrivialRule{ir::Opcode::tanh, 1, TrivialResult::zero},
};

// The rules of one opcode are adjacent in the table (the lookup walks them from the first).
constexpr bool trivial_rules_grouped() {
    for (std::size_t i = 0; i < trivial_rules.size(); ++i)
        for (std::size_t j = i + 2; j < trivial_rules.size(); ++j)
            if (trivial_rules[i].op == trivial_rules[j].op && trivial_rules[j - 1].op != trivial_rules[i].op)
                return false;
    return true;
}
static_assert(trivial_rules_grouped(), "trivial_rules must list the rules of one opcode next to each other");

// Radaideh 2020 Sec. 4.5.2: gating applies to the arithmetic execution units.
constexpr bool is_arithmetic_unit(timing::UnitKind k) {
    return k == timing::UnitKind::sp || k == timing::UnitKind::int_mul || k == timing::UnitKind::dp ||
           k == timing::UnitKind::sfu;
}

template <bool InactiveGating = true, bool TrivialBypass = true> class ZeroGatedExecT {
    static_assert(InactiveGating || TrivialBypass, "a ZeroGatedExec without any gating is SimdExec: use SimdExec");

public:
    static constexpr std::string_view name =
        TrivialBypass ? (InactiveGating ? "ZeroGatedExec" : "TrivialBypassExec") : "InactiveGatedExec";
    static constexpr bool inactive_gating = InactiveGating;
    static constexpr bool trivial_bypass = TrivialBypass;

    explicit ZeroGatedExecT(const timing::ExecConfig& config) : inner_(config), width_(config.warp_width) {}

    bool can_dispatch(timing::UnitKind kind, unsigned scheduler, core::Cycle now) const {
        return inner_.can_dispatch(kind, scheduler, now);
    }
    core::Cycle dispatch(const timing::ExecOp& op, unsigned scheduler, core::Cycle now) {
        if (op.warp == timing::no_warp && op.instruction != nullptr)
            throw Error("ZeroGatedExec: an ExecOp must name its warp slot (ExecOp::warp) to track register values");
        const core::Cycle ready = inner_.dispatch(op, scheduler, now);
        if (is_arithmetic_unit(op.unit)) account(op);
        track(op);
        return ready;
    }
    template <class Done> void drain_completed(core::Cycle now, Done&& done) {
        inner_.drain_completed(now, std::forward<Done>(done));
    }
    bool has_pending() const { return inner_.has_pending(); }
    core::Cycle next_completion() const { return inner_.next_completion(); }

    template <class V> void visit_stats(V& v) const {
        inner_.visit_stats(v);
        for (std::size_t k = 0; k < timing::unit_kind_count; ++k) {
            const auto kind = static_cast<timing::UnitKind>(k);
            if (!is_arithmetic_unit(kind) || !inner_.has_kind(kind)) continue;
            const std::string prefix = std::string(timing::name(kind)) + ".";
            const KindStats& s = stats_[k];
            v.counter(prefix + "lanes_executed", s.executed, "lane operations clocked (neither inactive nor trivial)");
            v.counter(prefix + "lanes_gated_inactive", s.gated_inactive, "lane slots gated: inactive thread");
            v.counter(prefix + "lanes_trivial", s.trivial, "active lanes bypassed as trivial operations");
            v.counter(prefix + "lanes_zero_operand", s.zero_operand,
                      "active lanes with at least one 32-bit zero register operand");
        }
        v.counter("trivial.result_zero", trivial_zero_, "trivial lanes whose result is zero");
        v.counter("trivial.result_operand", trivial_operand_, "trivial lanes whose result is a source operand");
    }

    // The tracked value of a register lane (for tests); false when it is unknown.
    bool tracked_value(unsigned warp, ir::RegId reg, unsigned lane, std::uint64_t& value) const {
        if (warp >= warps_.size()) return false;
        const WarpValues& w = warps_[warp];
        const std::size_t i = std::size_t(reg) * width_ + lane;
        if (i >= w.known.size() || !w.known[i]) return false;
        value = w.values[i];
        return true;
    }

private:
    struct KindStats {
        std::uint64_t executed = 0, gated_inactive = 0, trivial = 0, zero_operand = 0;
    };
    struct WarpValues {
        std::vector<std::uint64_t> values; // registers x width
        std::vector<std::uint8_t> known;
    };

    // Value of PTX source operand `source` (1-based after the destination) in `lane`, if it is a register with a
    // known value.
    bool source_value(const timing::ExecOp& op, unsigned source, std::size_t lane, std::uint64_t& value) const {
        const ir::Instruction& inst = *op.instruction;
        if (source >= inst.num_operands) return false; // operands[0] is the destination of every rule's opcode
        const ir::Operand& o = inst.operands[source];
        if (o.kind != ir::OperandKind::reg || o.reg == ir::no_reg) return false;
        return tracked_value(op.warp, o.reg, static_cast<unsigned>(lane), value);
    }
    static const TrivialRule* first_rule(ir::Opcode op) {
        for (const auto& r : trivial_rules)
            if (r.op == op) return &r;
        return nullptr;
    }

    void account(const timing::ExecOp& op) {
        KindStats& s = stats_[static_cast<std::size_t>(op.unit)];
        const unsigned active = op.active_lanes;
        if constexpr (InactiveGating) s.gated_inactive += op.warp_width - active;
        const ir::Instruction* inst = op.instruction;
        const TrivialRule* rules = inst != nullptr ? first_rule(inst->op) : nullptr;
        const bool bypass_allowed = TrivialBypass && rules != nullptr && !inst->carry_out && op.values != nullptr;
        std::uint64_t trivial = 0;
        for (std::size_t lane = op.active.find_first(); lane < op.warp_width; lane = op.active.find_next(lane)) {
            bool zero_operand = false;
            if (inst != nullptr) {
                for (unsigned src = 1; src < inst->num_operands && src <= 3; ++src) {
                    std::uint64_t v = 0;
                    if (source_value(op, src, lane, v) && v == 0) zero_operand = true;
                }
            }
            if (zero_operand) ++s.zero_operand;
            if (!bypass_allowed || !zero_operand) continue;
            for (const TrivialRule* r = rules; r != trivial_rules.data() + trivial_rules.size() && r->op == inst->op;
                 ++r) {
                std::uint64_t zero = 1;
                if (!source_value(op, r->zero_source, lane, zero) || zero != 0) continue;
                std::uint64_t selected = 0;
                if (r->result != TrivialResult::zero &&
                    !source_value(op, static_cast<unsigned>(r->result), lane, selected))
                    continue;
                if (op.values[lane] != selected) continue;
                ++trivial;
                if (r->result == TrivialResult::zero) ++trivial_zero_;
                else ++trivial_operand_;
                break;
            }
        }
        s.trivial += trivial;
        s.executed += active - trivial;
        if constexpr (!InactiveGating) s.executed += op.warp_width - active; // idle lanes still clocked
    }

    void track(const timing::ExecOp& op) {
        const ir::Instruction* inst = op.instruction;
        if (inst == nullptr || inst->num_defs == 0) return;
        if (op.warp >= warps_.size()) warps_.resize(std::size_t(op.warp) + 1);
        WarpValues& w = warps_[op.warp];
        const ir::RegId first = (inst->num_operands > 0 && inst->operands[0].kind == ir::OperandKind::reg)
                                    ? inst->operands[0].reg
                                    : ir::no_reg;
        for (unsigned d = 0; d < inst->num_defs; ++d) {
            const ir::RegId reg = inst->defs[d];
            if (reg == ir::no_reg) continue;
            const std::size_t base = std::size_t(reg) * width_;
            if (base + width_ > w.values.size()) {
                const std::size_t n = std::max(base + width_, w.values.size() * 2);
                w.values.resize(n, 0);
                w.known.resize(n, 0);
            }
            const bool has_values = reg == first && op.values != nullptr;
            for (std::size_t lane = op.active.find_first(); lane < op.warp_width; lane = op.active.find_next(lane)) {
                w.known[base + lane] = has_values ? 1 : 0;
                if (has_values) w.values[base + lane] = op.values[lane];
            }
        }
    }

    SimdExec inner_;
    unsigned width_;
    std::array<KindStats, timing::unit_kind_count> stats_{};
    std::uint64_t trivial_zero_ = 0, trivial_operand_ = 0;
    std::vector<WarpValues> warps_;
};

using ZeroGatedExec = ZeroGatedExecT<true, true>;
using InactiveGatedExec = ZeroGatedExecT<true, false>;

} // namespace gpuarch::exec
