#pragma once
// Control-flow semantics: branches and the SIMT stack, exit, barriers (bar.sync, bar.arrive, bar.red), and
// out-of-line calls and returns.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gpuarch/func/semantics/context.hpp>
#include <gpuarch/func/semantics/operands.hpp>

namespace gpuarch::func::semantics {

template <bool Record>
inline void branch(WarpState& w, const DecodedInstruction& d, ir::Pc pc, const core::WarpMask& active,
                   const core::WarpMask& taken, StepResult* out) {
    const core::WarpMask not_taken = active & ~taken;
    const ir::Pc join = d.inst->reconvergence_pc;
    if constexpr (Record) {
        out->is_branch = true;
        out->taken = taken;
        out->reconvergence_pc = join;
    }
    SimtEntry& top = w.stack.back();
    if (not_taken.none()) {
        top.pc = d.target;
    } else if (taken.none()) {
        top.pc = pc + 1;
    } else {
        if constexpr (Record) out->diverged = true;
        if (top.reconvergence_pc == join) {
            // The top entry already reconverges where this branch does (a loop exit, a second break): it
            // continues as the fall-through path and the join entry below it collects both paths, so the
            // stack does not grow with the number of divergent iterations.
            top.pc = pc + 1;
            top.mask = not_taken;
        } else {
            top.pc = join; // the top entry becomes the join entry, holding every lane
            w.stack.push_back(SimtEntry{pc + 1, join, not_taken});
        }
        w.stack.push_back(SimtEntry{d.target, join, taken});
    }
}

inline void exit_lanes(WarpState& w, ir::Pc pc, const core::WarpMask& exiting) {
    w.exited |= exiting;
    const core::WarpMask keep = ~exiting;
    for (SimtEntry& e : w.stack) e.mask &= keep;
    w.stack.back().pc = pc + 1; // the lanes whose guard was false continue
}

// Releases barrier `id`: every warp waiting at it goes on, and a bar.red writes its result to each
// arrived warp's destination lanes.
inline void release_barrier(const LaunchState& launch, CtaState& cta, unsigned id) {
    BarrierState& s = cta.barriers[id];
    std::uint64_t result = 0;
    switch (s.reduction) {
    case ir::BarrierMode::red_popc: result = s.true_count; break;
    case ir::BarrierMode::red_and: result = s.true_count == s.lane_count ? 1 : 0; break;
    case ir::BarrierMode::red_or: result = s.true_count != 0 ? 1 : 0; break;
    default: break;
    }
    for (WarpState& w : cta.warps) {
        if (w.barrier != static_cast<int>(id)) continue;
        w.barrier = -1;
        if (s.reduction != ir::BarrierMode::none && w.reduction_dst != ir::no_reg) {
            std::uint64_t* row = w.row(w.reduction_dst);
            detail::for_each_lane(w.reduction_lanes, launch.width, [&](unsigned l) { row[l] = result; });
            w.reduction_dst = ir::no_reg;
        }
    }
    s = BarrierState{};
}

// Marks a warp finished; returns whether that completed a barrier the other warps wait at.
inline bool finish_warp(const LaunchState& launch, CtaState& cta, WarpState& w) {
    w.stack.clear();
    --cta.live_warps;
    bool released = false;
    for (unsigned b = 0; b < barrier_count; ++b) {
        BarrierState& s = cta.barriers[b];
        if (s.arrived_warps != 0 && s.expected_threads == 0 && s.arrived_warps >= cta.live_warps) {
            release_barrier(launch, cta, b);
            released = true;
        }
    }
    return released;
}

// bar.sync / bar.arrive / bar.red: the warp arrives (counted once, with all its launched threads, as the
// hardware counts whole warps) and, unless it only arrives, waits. Returns whether the barrier completed.
inline bool barrier(const Context& c) {
    const DecodedInstruction& d = c.d;
    const unsigned first = static_cast<unsigned>(c.exec.find_first());
    const detail::Source a = source(c, 0);
    const std::uint64_t id = a[first] & 0xffffffffU;
    if (id >= barrier_count) fault(c, static_cast<int>(first), "barrier id " + std::to_string(id) + " is not in 0..15");
    const bool reduction = d.inst->barrier == ir::BarrierMode::red_popc ||
                           d.inst->barrier == ir::BarrierMode::red_and || d.inst->barrier == ir::BarrierMode::red_or;
    const unsigned value_sources = d.num_sources - (reduction ? 1U : 0U);
    std::uint32_t expected = 0;
    if (value_sources >= 2) {
        const detail::Source b = source(c, 1);
        expected = static_cast<std::uint32_t>(b[first]);
        if (expected == 0) fault(c, static_cast<int>(first), "barrier thread count is 0");
    } else if (d.inst->barrier == ir::BarrierMode::arrive) {
        fault(c, static_cast<int>(first), "bar.arrive needs a thread count");
    }
    BarrierState& s = c.cta.barriers[id];
    if (s.arrived_warps == 0) {
        s.expected_threads = expected;
        s.reduction = reduction ? d.inst->barrier : ir::BarrierMode::none;
        s.pc = c.pc;
    } else if (s.expected_threads != expected) {
        fault(c, static_cast<int>(first),
              "barrier " + std::to_string(id) + " is used with thread counts " + std::to_string(s.expected_threads) +
                  " and " + std::to_string(expected) + " at once");
    }
    ++s.arrived_warps;
    s.arrived_threads += static_cast<unsigned>(c.w.valid.popcount_below(c.launch.width));
    if (reduction) {
        const detail::Source predicate = source(c, static_cast<unsigned>(d.num_sources - 1));
        detail::for_each_lane(c.exec, c.launch.width, [&](unsigned l) {
            s.true_count += predicate.pred(l) ? 1U : 0U;
            ++s.lane_count;
        });
        c.w.reduction_dst = d.dst;
        c.w.reduction_lanes = c.exec;
    }
    if (d.inst->barrier != ir::BarrierMode::arrive) c.w.barrier = static_cast<int>(id);
    const bool complete =
        s.expected_threads == 0 ? s.arrived_warps >= c.cta.live_warps : s.arrived_threads >= s.expected_threads;
    if (complete) release_barrier(c.launch, c.cta, static_cast<unsigned>(id));
    return complete;
}

// ---- out-of-line calls (recursion; ptx/inliner.hpp, ir::CallFrame) ---------------------------------------
//
// A call pushes, per executing lane, the callee's frame (its registers, then its per-thread symbols as 64-bit
// words, then the call link's index) onto the lane's call stack, copies the arguments into the callee's
// formal parameters, and pushes a SIMT entry for the calling lanes at the callee's entry; the calling entry
// goes on after the call. The callee's branches reconverge at its single return (the inliner guarantees it
// has no exit), so the return is executed by that entry with all its lanes: each lane's return value is read,
// its frame restored, and the value written to the caller's return symbols; then the entry is popped.

inline std::uint8_t* thread_local_bytes(const LaunchState& launch, CtaState& cta, const WarpState& w, unsigned lane,
                                        ir::SymbolId symbol) {
    return cta.local_frame(std::uint64_t{w.first_thread} + lane) + launch.kernel->symbols[symbol].offset;
}

inline void call_out_of_line(const LaunchState& launch, CtaState& cta, WarpState& w, const DecodedInstruction& d,
                             ir::Pc pc, const core::WarpMask& exec) {
    w.stack.back().pc = pc + 1;
    if (exec.none()) return;
    const auto link_index = static_cast<std::size_t>(d.inst->operands[1].imm_bits);
    const ir::CallLink& link = launch.kernel->call_links.at(link_index);
    const ir::CallFrame& frame = launch.kernel->call_frames.at(link.frame);
    if (w.call_stack.size() != launch.width) {
        w.call_stack.resize(launch.width);
        w.call_depth.assign(launch.width, 0);
    }
    bool overflow = false;
    int overflow_lane = -1;
    detail::for_each_lane(exec, launch.width, [&](unsigned l) {
        if (!overflow && w.call_depth[l] >= launch.options.max_call_depth) {
            overflow = true;
            overflow_lane = static_cast<int>(l);
        }
    });
    if (overflow)
        fault(launch, cta, w, pc, overflow_lane,
              "call stack overflow: calling '" + frame.function + "' would exceed " +
                  std::to_string(launch.options.max_call_depth) +
                  " nested calls of recursive functions (LaunchOptions::max_call_depth)",
              std::nullopt, KernelErrorKind::limit);
    detail::for_each_lane(exec, launch.width, [&](unsigned l) {
        std::vector<std::uint64_t>& stack = w.call_stack[l];
        for (std::uint32_t r = 0; r < frame.registers; ++r) stack.push_back(w.row(frame.first_register + r)[l]);
        for (ir::SymbolId s : frame.saved_symbols) {
            const std::uint64_t size = launch.kernel->symbols[s].size_bytes;
            const std::uint8_t* bytes = thread_local_bytes(launch, cta, w, l, s);
            for (std::uint64_t at = 0; at < size; at += 8) {
                std::uint64_t word = 0;
                std::memcpy(&word, bytes + at, std::min<std::uint64_t>(8, size - at));
                stack.push_back(word);
            }
        }
        stack.push_back(link_index);
        ++w.call_depth[l];
        for (std::size_t i = 0; i < link.args.size(); ++i) {
            const ir::SymbolId formal = frame.formal_args[i];
            const std::uint64_t size = launch.kernel->symbols[formal].size_bytes;
            std::memcpy(thread_local_bytes(launch, cta, w, l, formal),
                        thread_local_bytes(launch, cta, w, l, link.args[i]), size);
        }
    });
    w.stack.push_back(SimtEntry{frame.entry, ir::no_pc, exec});
}

inline void return_from_call(const LaunchState& launch, CtaState& cta, WarpState& w, const DecodedInstruction& d,
                             ir::Pc pc, const core::WarpMask& exec) {
    const auto frame_index = static_cast<std::uint32_t>(d.inst->operands[0].imm_bits);
    const ir::CallFrame& frame = launch.kernel->call_frames.at(frame_index);
    std::vector<std::uint8_t> value;
    detail::for_each_lane(exec, launch.width, [&](unsigned l) {
        if (w.call_stack.size() != launch.width || w.call_stack[l].empty())
            fault(launch, cta, w, pc, static_cast<int>(l),
                  "return from '" + frame.function + "' without a call in progress", std::nullopt,
                  KernelErrorKind::illegal_instruction);
        std::vector<std::uint64_t>& stack = w.call_stack[l];
        const ir::CallLink& link = launch.kernel->call_links.at(static_cast<std::size_t>(stack.back()));
        stack.pop_back();
        --w.call_depth[l];
        // The return values, before the restore overwrites the formal parameters that hold them.
        value.clear();
        for (ir::SymbolId formal : frame.formal_returns) {
            const std::uint8_t* bytes = thread_local_bytes(launch, cta, w, l, formal);
            value.insert(value.end(), bytes, bytes + launch.kernel->symbols[formal].size_bytes);
        }
        for (auto s = frame.saved_symbols.rbegin(); s != frame.saved_symbols.rend(); ++s) {
            const std::uint64_t size = launch.kernel->symbols[*s].size_bytes;
            const std::uint64_t words = (size + 7) / 8;
            std::uint8_t* bytes = thread_local_bytes(launch, cta, w, l, *s);
            const std::size_t first = stack.size() - words;
            for (std::uint64_t k = 0; k < words; ++k)
                std::memcpy(bytes + 8 * k, &stack[first + k], std::min<std::uint64_t>(8, size - 8 * k));
            stack.resize(first);
        }
        for (std::uint32_t r = frame.registers; r-- > 0;) {
            w.row(frame.first_register + r)[l] = stack.back();
            stack.pop_back();
        }
        std::size_t at = 0;
        for (std::size_t i = 0; i < link.returns.size(); ++i) {
            const std::uint64_t size = launch.kernel->symbols[frame.formal_returns[i]].size_bytes;
            std::memcpy(thread_local_bytes(launch, cta, w, l, link.returns[i]), value.data() + at, size);
            at += size;
        }
    });
    w.stack.pop_back();
}

} // namespace gpuarch::func::semantics
