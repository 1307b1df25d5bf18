#pragma once
// Spelling -> enumerator tables for PTX instruction modifiers and special registers. Contract: each table lists
// every non-`none` enumerator exactly once and matches by ir::name(), so the printer and the parser cannot
// disagree (tests/ptx check that every enumerator round-trips).
#include <array>
#include <optional>
#include <string_view>

#include <gpuarch/ir/names.hpp>
#include <gpuarch/ir/types.hpp>

namespace gpuarch::ptx {

inline constexpr std::array all_scalar_types{
    ir::ScalarType::pred,  ir::ScalarType::b8,   ir::ScalarType::b16,    ir::ScalarType::b32, ir::ScalarType::b64,
    ir::ScalarType::b128,  ir::ScalarType::u8,   ir::ScalarType::u16,    ir::ScalarType::u32, ir::ScalarType::u64,
    ir::ScalarType::s8,    ir::ScalarType::s16,  ir::ScalarType::s32,    ir::ScalarType::s64, ir::ScalarType::f16,
    ir::ScalarType::f16x2, ir::ScalarType::bf16, ir::ScalarType::bf16x2, ir::ScalarType::f32, ir::ScalarType::f64,
};
inline constexpr std::array all_compare_ops{
    ir::CompareOp::eq,  ir::CompareOp::ne,  ir::CompareOp::lt,  ir::CompareOp::le,  ir::CompareOp::gt,
    ir::CompareOp::ge,  ir::CompareOp::lo,  ir::CompareOp::ls,  ir::CompareOp::hi,  ir::CompareOp::hs,
    ir::CompareOp::equ, ir::CompareOp::neu, ir::CompareOp::ltu, ir::CompareOp::leu, ir::CompareOp::gtu,
    ir::CompareOp::geu, ir::CompareOp::num, ir::CompareOp::nan,
};
inline constexpr std::array all_bool_ops{ir::BoolOp::and_, ir::BoolOp::or_, ir::BoolOp::xor_};
inline constexpr std::array all_float_roundings{ir::Rounding::rn, ir::Rounding::rz, ir::Rounding::rm, ir::Rounding::rp,
                                                ir::Rounding::rna};
inline constexpr std::array all_integer_roundings{ir::Rounding::rni, ir::Rounding::rzi, ir::Rounding::rmi,
                                                  ir::Rounding::rpi};
inline constexpr std::array all_atom_ops{ir::AtomOp::add, ir::AtomOp::min, ir::AtomOp::max,  ir::AtomOp::inc,
                                         ir::AtomOp::dec, ir::AtomOp::cas, ir::AtomOp::exch, ir::AtomOp::and_,
                                         ir::AtomOp::or_, ir::AtomOp::xor_};
inline constexpr std::array all_shfl_modes{ir::ShflMode::up, ir::ShflMode::down, ir::ShflMode::bfly, ir::ShflMode::idx};
inline constexpr std::array all_vote_modes{ir::VoteMode::all, ir::VoteMode::any, ir::VoteMode::uni,
                                           ir::VoteMode::ballot};
inline constexpr std::array all_mem_orders{ir::MemOrder::weak,     ir::MemOrder::relaxed, ir::MemOrder::acquire,
                                           ir::MemOrder::release,  ir::MemOrder::acq_rel, ir::MemOrder::sc,
                                           ir::MemOrder::volatile_};
inline constexpr std::array all_scopes{ir::Scope::cta, ir::Scope::cluster, ir::Scope::gpu, ir::Scope::sys};
inline constexpr std::array all_test_kinds{ir::TestKind::finite,     ir::TestKind::infinite, ir::TestKind::number,
                                           ir::TestKind::notanumber, ir::TestKind::normal,   ir::TestKind::subnormal};
inline constexpr std::array all_prmt_modes{ir::PrmtMode::f4e, ir::PrmtMode::b4e, ir::PrmtMode::rc8,
                                           ir::PrmtMode::ecl, ir::PrmtMode::ecr, ir::PrmtMode::rc16};
inline constexpr std::array all_cache_levels{ir::CacheLevel::L1, ir::CacheLevel::L2, ir::CacheLevel::L2_evict_last,
                                             ir::CacheLevel::L2_evict_normal};
// State spaces that can appear as an instruction modifier (`generic` is the absence of one).
inline constexpr std::array all_memory_spaces{ir::StateSpace::global, ir::StateSpace::shared, ir::StateSpace::local,
                                              ir::StateSpace::constant, ir::StateSpace::param};
inline constexpr std::array all_special_regs{
    ir::SpecialReg::tid_x,           ir::SpecialReg::tid_y,
    ir::SpecialReg::tid_z,           ir::SpecialReg::ntid_x,
    ir::SpecialReg::ntid_y,          ir::SpecialReg::ntid_z,
    ir::SpecialReg::ctaid_x,         ir::SpecialReg::ctaid_y,
    ir::SpecialReg::ctaid_z,         ir::SpecialReg::nctaid_x,
    ir::SpecialReg::nctaid_y,        ir::SpecialReg::nctaid_z,
    ir::SpecialReg::laneid,          ir::SpecialReg::warpid,
    ir::SpecialReg::nwarpid,         ir::SpecialReg::smid,
    ir::SpecialReg::nsmid,           ir::SpecialReg::gridid,
    ir::SpecialReg::lanemask_eq,     ir::SpecialReg::lanemask_lt,
    ir::SpecialReg::lanemask_le,     ir::SpecialReg::lanemask_gt,
    ir::SpecialReg::lanemask_ge,     ir::SpecialReg::clock,
    ir::SpecialReg::clock_hi,        ir::SpecialReg::clock64,
    ir::SpecialReg::globaltimer,     ir::SpecialReg::globaltimer_lo,
    ir::SpecialReg::globaltimer_hi,  ir::SpecialReg::dynamic_smem_size,
    ir::SpecialReg::total_smem_size, ir::SpecialReg::warp_sz,
    ir::SpecialReg::envreg1,         ir::SpecialReg::envreg2,
};

template <class E, std::size_t N>
constexpr std::optional<E> lookup_name(std::string_view spelling, const std::array<E, N>& table) {
    for (E e : table)
        if (ir::name(e) == spelling) return e;
    return std::nullopt;
}

} // namespace gpuarch::ptx
