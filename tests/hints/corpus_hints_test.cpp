// The hint pass over every corpus kernel: the hints satisfy the pass's contract, checked independently of the pass
// by walking every chain path (offsets in range and increasing, at most max_chain_length members per path, members
// independent of what the path skipped, no barrier hinted, no memory instruction hinted past a barrier, renames
// only into fresh registers).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gpuarch/ir/hint_pass.hpp>
#include <gpuarch/ptx/parser.hpp>

#ifndef GPUARCH_KERNELS_DIR
#define GPUARCH_KERNELS_DIR "kernels"
#endif

using namespace gpuarch;
using Format = ir::InstructionHint::Format;

namespace {

struct Totals {
    unsigned kernels = 0, stall_points = 0, hinted = 0, renamed = 0, branches = 0, chains = 0;
};

bool fence_like(const ir::Instruction& inst) {
    return inst.op_class == ir::OpClass::barrier || inst.op == ir::Opcode::bar_warp_sync ||
           inst.op == ir::Opcode::membar || inst.op == ir::Opcode::fence;
}

// Walks one path of stall point s's chain from member `at` (s itself first) with what the path skipped so far.
void walk(const ir::Kernel& k, const ir::KernelHints& h, ir::Pc s, ir::Pc at, std::set<ir::RegId> tainted,
          bool past_barrier, unsigned depth, const ir::HintPassOptions& o, unsigned& members) {
    const auto visit = [&](unsigned offset) {
        if (offset == 0) return;
        REQUIRE(offset <= o.max_offset);
        const ir::Pc next = s + offset;
        REQUIRE(next > at);
        REQUIRE(next < k.code.size());
        // Everything the path passes over between `at` and `next` is skipped (a taken branch jumps over nothing
        // on this path: it starts from its target).
        std::set<ir::RegId> t = tainted;
        bool barrier = past_barrier;
        const ir::Instruction& from = k.code[at];
        ir::Pc first = at + 1;
        if (from.op == ir::Opcode::bra && offset == h.hint[at].f2.taken_offset &&
            offset != h.hint[at].f2.not_taken_offset)
            first = from.operands[0].target;
        for (ir::Pc q = first; q < next; ++q) {
            const ir::Instruction& skipped = k.code[q];
            CHECK_MESSAGE(skipped.op != ir::Opcode::bra, "a chain passes over a skipped branch at pc " << q);
            CHECK(h.chain_start[q] != s);
            for (unsigned d = 0; d < skipped.num_defs; ++d) t.insert(skipped.defs[d]);
            barrier = barrier || fence_like(skipped);
        }
        const ir::Instruction& m = k.code[next];
        CHECK(h.chain_start[next] == s);
        CHECK_FALSE(fence_like(m));
        CHECK_FALSE(h.stall_point[next]);
        if (ir::is_memory(m.op_class)) CHECK_FALSE_MESSAGE(barrier, "memory past a barrier at pc " << next);
        for (unsigned u = 0; u < m.num_uses; ++u)
            CHECK_MESSAGE(!t.count(m.uses[u]), "pc " << next << " reads a register the path skipped");
        const ir::InstructionHint& mh = h.hint[next];
        if (mh.format == Format::format1 && mh.f1.rename) {
            CHECK(m.num_defs == 1);
            CHECK(mh.f1.dst >= k.registers.size());
            CHECK(mh.f1.dst < k.registers.size() + h.extra_registers);
        }
        for (unsigned d = 0; d < m.num_defs; ++d) t.erase(m.defs[d]);
        ++members;
        walk(k, h, s, next, t, barrier, depth + 1, o, members);
    };
    REQUIRE(depth <= o.max_chain_length);
    const ir::InstructionHint& hh = h.hint[at];
    if (at == s) {
        REQUIRE(hh.format == Format::format1);
        visit(hh.f1.target_offset);
        return;
    }
    if (depth == o.max_chain_length) {
        CHECK(((hh.format == Format::format1 && hh.f1.target_offset == 0) ||
               (hh.format == Format::format2 && hh.f2.taken_offset == 0 && hh.f2.not_taken_offset == 0)));
        return;
    }
    if (hh.format == Format::format2) {
        CHECK(hh.f2.type == (k.code[at].guard.reg == ir::no_reg));
        CHECK((hh.f2.taken_offset != 0 || hh.f2.not_taken_offset != 0));
        visit(hh.f2.taken_offset);
        if (hh.f2.not_taken_offset != hh.f2.taken_offset) visit(hh.f2.not_taken_offset);
    } else {
        REQUIRE(hh.format == Format::format1);
        visit(hh.f1.target_offset);
    }
}

void check_kernel(const ir::Kernel& k, const ir::HintPassOptions& o, Totals& totals) {
    const ir::KernelHints h = ir::compute_hints(k, o);
    REQUIRE(h.hint.size() == k.code.size());
    ++totals.kernels;
    std::set<ir::RegId> long_defs;
    for (ir::Pc pc = 0; pc < k.code.size(); ++pc)
        if (h.long_latency[pc])
            for (unsigned d = 0; d < k.code[pc].num_defs; ++d) long_defs.insert(k.code[pc].defs[d]);
    for (ir::Pc pc = 0; pc < k.code.size(); ++pc) {
        const ir::Instruction& inst = k.code[pc];
        const ir::InstructionHint& hh = h.hint[pc];
        if (fence_like(inst)) CHECK(h.chain_start[pc] == ir::no_pc);
        if (h.chain_start[pc] != ir::no_pc) {
            ++totals.hinted;
            if (hh.format == Format::format1 && hh.f1.rename) ++totals.renamed;
            if (hh.format == Format::format2) ++totals.branches;
            CHECK(h.stall_point[h.chain_start[pc]]);
            CHECK(pc - h.chain_start[pc] <= o.max_offset);
        }
        if (!h.stall_point[pc]) continue;
        ++totals.stall_points;
        // A stall point reads or overwrites a long-latency result.
        bool touches = false;
        for (unsigned u = 0; u < inst.num_uses; ++u) touches = touches || long_defs.count(inst.uses[u]);
        for (unsigned d = 0; d < inst.num_defs; ++d) touches = touches || long_defs.count(inst.defs[d]);
        CHECK_MESSAGE(touches, k.name << " pc " << pc);
        if (inst.op == ir::Opcode::bra) continue;
        std::set<ir::RegId> tainted;
        for (unsigned u = 0; u < inst.num_uses; ++u)
            if (long_defs.count(inst.uses[u])) tainted.insert(inst.uses[u]);
        for (unsigned d = 0; d < inst.num_defs; ++d) tainted.insert(inst.defs[d]);
        unsigned members = 0;
        walk(k, h, pc, pc, tainted, fence_like(inst), 0, o, members);
        if (members > 0) ++totals.chains;
    }
}

std::vector<std::filesystem::path> corpus_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(GPUARCH_KERNELS_DIR) / "ptx"))
        if (e.path().extension() == ".ptx") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("every corpus kernel's hints satisfy the pass contract") {
    const std::vector<std::filesystem::path> files = corpus_files();
    REQUIRE(files.size() >= 20);
    Totals totals;
    ir::HintPassOptions capped;
    capped.max_chain_length = 3;
    for (const auto& file : files) {
        CAPTURE(file.string());
        const ir::Module m = ptx::parse_file(file);
        for (const ir::Kernel& k : m.kernels) {
            CAPTURE(k.name);
            check_kernel(k, ir::HintPassOptions{}, totals);
            Totals ignored;
            check_kernel(k, capped, ignored);
        }
    }
    MESSAGE("corpus: " << totals.kernels << " kernels, " << totals.stall_points << " stall points, " << totals.chains
                       << " non-empty chains, " << totals.hinted << " hinted instructions (" << totals.renamed
                       << " renamed, " << totals.branches << " branches)");
    // The corpus has memory-bound kernels whose loads are followed by address arithmetic for the next access: the
    // pass must find work to hint there.
    CHECK(totals.stall_points > 0);
    CHECK(totals.chains > 0);
    CHECK(totals.hinted >= totals.chains);
}
