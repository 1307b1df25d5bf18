#pragma once
// Which instruction and special-register names the PTX front end knows, models, or rejects with a reason.
#include <optional>
#include <string_view>
#include <utility>

#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ptx::detail {

// Instruction families that nvcc can emit but this front end deliberately does not model, with the reason
// shown in the error.
inline std::string_view unsupported_reason(std::string_view head) {
    static constexpr std::pair<std::string_view, std::string_view> table[] = {
        {"wmma", "tensor-core matrix instructions are not supported"},
        {"mma", "tensor-core matrix instructions are not supported"},
        {"wgmma", "tensor-core matrix instructions are not supported"},
        {"ldmatrix", "tensor-core matrix instructions are not supported"},
        {"stmatrix", "tensor-core matrix instructions are not supported"},
        {"movmatrix", "tensor-core matrix instructions are not supported"},
        {"tcgen05", "tensor-core matrix instructions are not supported"},
        {"cp", "asynchronous copies are not supported"},
        {"mbarrier", "asynchronous barriers are not supported"},
        // tex, suld.b and sust.b through texture and surface objects are supported (parse_texture).
        {"tld4", "texture gathers (tld4) are not supported; tex, suld.b and sust.b are"},
        {"txq", "texture queries (txq) are not supported; tex, suld.b and sust.b are"},
        {"sured", "surface reductions (sured) are not supported; tex, suld.b and sust.b are"},
        {"suq", "surface queries (suq) are not supported; tex, suld.b and sust.b are"},
        {"istypep", "istypep is not supported; tex, suld.b and sust.b are"},
        {"elect", "elect.sync (sm_90) is not supported"},
        {"setmaxnreg", "setmaxnreg (sm_90) is not supported"},
        {"griddepcontrol", "programmatic dependent launch (griddepcontrol) is not supported"},
        {"brkpt", "brkpt is not supported"},
        {"pmevent", "performance-monitor events are not supported"},
        {"isspacep", "isspacep is not supported"},
        {"alloca", "dynamic stack allocation (alloca) is not supported"},
        {"stacksave", "dynamic stack allocation is not supported"},
        {"stackrestore", "dynamic stack allocation is not supported"},
        {"brx", "indirect branches (brx.idx) are not supported"},
    };
    for (const auto& [name, reason] : table)
        if (name == head) return reason;
    return {};
}

inline std::optional<ir::Opcode> opcode_from_head(std::string_view head) {
    static constexpr ir::Opcode all[] = {
        ir::Opcode::add,   ir::Opcode::sub,       ir::Opcode::mul,        ir::Opcode::mad,       ir::Opcode::mul24,
        ir::Opcode::mad24, ir::Opcode::div,       ir::Opcode::rem,        ir::Opcode::abs,       ir::Opcode::neg,
        ir::Opcode::min,   ir::Opcode::max,       ir::Opcode::fma,        ir::Opcode::addc,      ir::Opcode::subc,
        ir::Opcode::madc,  ir::Opcode::popc,      ir::Opcode::clz,        ir::Opcode::brev,      ir::Opcode::bfe,
        ir::Opcode::bfi,   ir::Opcode::bfind,     ir::Opcode::prmt,       ir::Opcode::and_,      ir::Opcode::or_,
        ir::Opcode::xor_,  ir::Opcode::not_,      ir::Opcode::cnot,       ir::Opcode::shl,       ir::Opcode::shr,
        ir::Opcode::lop3,  ir::Opcode::setp,      ir::Opcode::selp,       ir::Opcode::set,       ir::Opcode::slct,
        ir::Opcode::cvt,   ir::Opcode::cvta,      ir::Opcode::mov,        ir::Opcode::rcp,       ir::Opcode::sqrt,
        ir::Opcode::rsqrt, ir::Opcode::sin,       ir::Opcode::cos,        ir::Opcode::lg2,       ir::Opcode::ex2,
        ir::Opcode::tanh,  ir::Opcode::copysign,  ir::Opcode::testp,      ir::Opcode::ld,        ir::Opcode::st,
        ir::Opcode::atom,  ir::Opcode::red,       ir::Opcode::bar,        ir::Opcode::membar,    ir::Opcode::fence,
        ir::Opcode::shfl,  ir::Opcode::vote,      ir::Opcode::activemask, ir::Opcode::match,     ir::Opcode::bra,
        ir::Opcode::call,  ir::Opcode::ret,       ir::Opcode::exit,       ir::Opcode::nanosleep, ir::Opcode::shf,
        ir::Opcode::trap,  ir::Opcode::vabsdiff4, ir::Opcode::dp4a,       ir::Opcode::dp2a,      ir::Opcode::sad,
        ir::Opcode::redux, ir::Opcode::prefetch,  ir::Opcode::prefetchu,  ir::Opcode::tex,       ir::Opcode::suld,
        ir::Opcode::sust,
    };
    if (head == "barrier") return ir::Opcode::bar;
    for (ir::Opcode op : all)
        if (ir::name(op) == head) return op;
    return std::nullopt;
}

// PTX special registers that exist but are not modelled: named in the error instead of "undeclared register".
inline bool is_known_unsupported_special(std::string_view name) {
    static constexpr std::string_view prefixes[] = {"%envreg",
                                                    "%pm",
                                                    "%cluster",
                                                    "%nclusterid",
                                                    "%is_explicit_cluster",
                                                    "%reserved_smem",
                                                    "%aggr_smem_size",
                                                    "%current_graph_exec"};
    for (std::string_view p : prefixes)
        if (name.substr(0, p.size()) == p) return true;
    return name == "%tid" || name == "%ntid" || name == "%ctaid" || name == "%nctaid";
}

} // namespace gpuarch::ptx::detail
