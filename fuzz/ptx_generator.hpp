#pragma once
// A generator of random valid PTX kernels whose results do not depend on the order in which warps, CTAs or SMs
// run (issue 24, part 5: differential fuzzing). Every kernel it makes must give the same device memory on the
// functional engine at warp widths 32 and 64 and on every timed machine; fuzz/differential.hpp checks that.
//
// Contract (what makes a generated kernel order-independent; docs/differential_fuzzing.md explains each rule):
// - Global memory: `in` is read-only; each thread writes only its own slots of `out` (its final registers and
//   the extra slots it stores to on the way); `ctr` is touched only by atomics, and each counter group takes one
//   commutative operation (integer add, min, max, and, or, xor; inc/dec with one bound per group), whose
//   returned old value is discarded, so the final counters are the same in any order.
// - Shared memory and the per-CTA global exchange area follow epochs separated by top-level barriers: in an
//   "own" epoch a thread reads and writes only its own slots, in a "read" epoch anyone reads any slot and nobody
//   writes; the shared counters are either updated by commutative atomics or read, never both in one epoch.
// - Barriers (bar.sync, barrier.sync, bar.red) appear only in code every thread of the CTA reaches: at top level
//   or under conditions and loop bounds computed from CTA-uniform values (%ctaid, %ntid, parameters, constants,
//   bar.red results, and arithmetic on them). Some threads may `exit` early; a barrier counts the rest.
// - No value that differs between runs is read: no %clock, %smid, %nsmid, WARP_SZ, atomic return values.
// Warp-level intrinsics (shfl.sync, vote.sync, match.sync, activemask) act on aligned groups of 32 threads at
// any warp width (docs/functional.md), so they may appear anywhere, including divergent code.
//
// Choices come from a Choices object: a SplitMix64 stream from a seed (the CTest runs), or a libFuzzer input
// whose bytes steer the choices one by one and, once exhausted, seed a SplitMix64 stream for the rest.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gpuarch/func/launch_config.hpp>

namespace gpuarch::fuzz {

// SplitMix64 (Steele, Lea, Flood 2014), the generator tests/support/split_mix.hpp also uses; restated here
// because nothing outside tests/ may include files from tests/ (docs/architecture.md).
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
};

// The source of every decision the generator makes. From bytes, each choice below 256 alternatives consumes one
// byte and a wider one four, so that a libFuzzer mutation of one byte changes one decision of the program; when
// the bytes run out the choices continue from SplitMix64 seeded with a hash of all of them (FNV-1a).
class Choices {
public:
    explicit Choices(std::uint64_t seed) : rng_{seed} {}
    explicit Choices(std::span<const std::uint8_t> bytes) : bytes_(bytes), rng_{fnv1a(bytes)} {}

    // A value in [0, n); n > 0.
    std::uint32_t below(std::uint32_t n) {
        if (n <= 1) return 0;
        if (pos_ < bytes_.size()) {
            if (n <= 256) return bytes_[pos_++] % n;
            std::uint32_t v = 0;
            for (int i = 0; i < 4; ++i) v = (v << 8) | (pos_ < bytes_.size() ? bytes_[pos_++] : 0U);
            return v % n;
        }
        return static_cast<std::uint32_t>(rng_.next() % n);
    }
    std::uint32_t word() {
        if (pos_ < bytes_.size()) return below(0xffffffffU) ^ (pos_ & 1 ? 0x9e3779b9U : 0U);
        return static_cast<std::uint32_t>(rng_.next());
    }
    std::uint32_t in_range(std::uint32_t lo, std::uint32_t hi) { return lo + below(hi - lo + 1); }
    bool percent(unsigned p) { return below(100) < p; }
    template <class T, std::size_t N> const T& pick(const std::array<T, N>& items) {
        return items[below(static_cast<std::uint32_t>(N))];
    }

private:
    static std::uint64_t fnv1a(std::span<const std::uint8_t> bytes) {
        std::uint64_t h = 14695981039346656037ULL;
        for (std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ULL;
        return h;
    }
    std::span<const std::uint8_t> bytes_;
    std::size_t pos_ = 0;
    SplitMix64 rng_;
};

// One generated kernel with its launch and its initial data. Buffers, in the kernel's parameter order:
// in (input_words, read-only), out (out_words, zero), ctr (counter_words, initialised from counter_init),
// xchg (exchange_words, zero). The launch also passes the 32-bit `salt`.
struct GeneratedKernel {
    std::string ptx;
    std::string entry = "fuzz_kernel";
    func::LaunchConfig config{};
    unsigned registers_per_thread = 0; // what ptxas would report, approximated by the declared registers
    std::vector<std::uint32_t> input;
    std::vector<std::uint32_t> counter_init;
    std::size_t out_words = 0;
    std::size_t exchange_words = 0;
    std::uint32_t salt = 0;
    unsigned statements = 0; // statements generated (what Generator's `omit` indexes)
};

namespace detail {

// Commutative atomic operations, one per counter group. inc/dec are order-independent only because every
// update of a group uses the same bound (then each update applies the same function).
enum class AtomicKind : std::uint8_t { add, min_u, max_u, min_s, max_s, and_, or_, xor_, inc, dec };

inline const char* atomic_spelling(AtomicKind k) {
    switch (k) {
    case AtomicKind::add: return "add.u32";
    case AtomicKind::min_u: return "min.u32";
    case AtomicKind::max_u: return "max.u32";
    case AtomicKind::min_s: return "min.s32";
    case AtomicKind::max_s: return "max.s32";
    case AtomicKind::and_: return "and.b32";
    case AtomicKind::or_: return "or.b32";
    case AtomicKind::xor_: return "xor.b32";
    case AtomicKind::inc: return "inc.u32";
    case AtomicKind::dec: return "dec.u32";
    }
    return "add.u32";
}

struct CounterGroup {
    AtomicKind kind;
    std::uint32_t bound; // inc/dec only
};

class Generator {
public:
    // `omit`: statements (numbered in generation order) to leave out of the text; their choices are still made,
    // so every other statement comes out the same. Barriers are never left out: without them the epochs the
    // generator relies on would race. Used to reduce a failing kernel (fuzz/differential_replay.cpp).
    explicit Generator(Choices& choices, const std::vector<bool>* omit = nullptr) : c_(choices), omit_(omit) {}

    GeneratedKernel run() {
        GeneratedKernel k;
        choose_shape(k);
        std::ostringstream body;
        out_ = &body;
        prologue();
        block(0, Context{});
        epilogue();
        k.ptx = header() + body.str() + "}\n";
        k.registers_per_thread = registers_per_thread();
        k.statements = statements_;
        return k;
    }

private:
    // ---- shape: launch, buffers, register pools ----
    void choose_shape(GeneratedKernel& k) {
        static constexpr std::array<std::uint32_t, 12> block_x{32, 64, 96, 128, 256, 160, 48, 100, 7, 33, 192, 64};
        std::uint32_t bx = c_.pick(block_x);
        std::uint32_t by = c_.percent(20) ? 2 : 1;
        if (bx * by > 256) by = 1;
        const std::uint32_t gx = c_.in_range(1, 8);
        const std::uint32_t gy = c_.percent(15) ? 2 : 1;
        k.config = func::LaunchConfig{func::Dim3{gx, gy, 1}, func::Dim3{bx, by, 1}, 0};
        threads_ = bx * by;
        ctas_ = gx * gy;
        nr_ = c_.in_range(4, 12);
        nu_ = c_.in_range(3, 6);
        extra_ = 2 * c_.in_range(1, 3);
        k_ = nr_ + nu_ + extra_;
        k_ += k_ % 2; // even, so the 8-byte vector stores to own slots stay aligned
        ks_ = c_.in_range(1, 3);
        kg_ = c_.in_range(1, 2);
        local_words_ = 4 << c_.below(3);
        input_words_ = 64U << c_.below(5);
        slots_per_group_ = 1U << c_.below(4);
        const std::uint32_t groups = c_.in_range(1, 4);
        for (std::uint32_t g = 0; g < groups; ++g) {
            const auto kind = static_cast<AtomicKind>(c_.below(10));
            groups_.push_back({kind, kind == AtomicKind::inc || kind == AtomicKind::dec ? c_.in_range(1, 300) : 0U});
        }
        shared_groups_ = c_.in_range(1, 3);
        for (std::uint32_t g = 0; g < shared_groups_; ++g) {
            const auto kind = static_cast<AtomicKind>(c_.below(10));
            shared_kinds_.push_back(
                {kind, kind == AtomicKind::inc || kind == AtomicKind::dec ? c_.in_range(1, 50) : 0U});
        }
        k.input.resize(input_words_);
        for (auto& w : k.input) w = interesting_word();
        k.counter_init.resize(groups_.size() * slots_per_group_);
        for (auto& w : k.counter_init) w = c_.percent(50) ? c_.below(16) : c_.word();
        k.out_words = std::size_t{threads_} * ctas_ * k_;
        k.exchange_words = std::size_t{threads_} * ctas_ * kg_;
        k.salt = c_.word();
        shfl_anywhere_ = c_.percent(70);
        budget_ = c_.in_range(20, 110);
    }

    std::uint32_t interesting_word() {
        static constexpr std::array<std::uint32_t, 10> special{
            0, 1, 2, 31, 32, 0x7fffffff, 0x80000000, 0xffffffff, 0x3f800000, 0x7f800001};
        switch (c_.below(4)) {
        case 0: return c_.pick(special);
        case 1: return c_.below(64);
        default: return c_.word();
        }
    }

    std::string header() const {
        std::ostringstream h;
        h << ".version 8.0\n.target sm_80\n.address_size 64\n\n"
          << ".visible .entry fuzz_kernel(.param .u64 p_in, .param .u64 p_out, .param .u64 p_ctr, "
             ".param .u64 p_xchg, .param .u32 p_salt)\n{\n"
          << "  .reg .pred %p<4>;\n  .reg .pred %q<2>;\n  .reg .pred %pl<4>;\n  .reg .pred %pt;\n"
          << "  .reg .b32 %r<" << nr_ << ">;\n  .reg .b32 %u<" << nu_ << ">;\n  .reg .b32 %x<8>;\n"
          << "  .reg .b32 %t<4>;\n  .reg .b32 %c<4>;\n  .reg .b32 %n<4>;\n  .reg .b32 %sink;\n"
          << "  .reg .b64 %rd<8>;\n  .reg .b64 %rdt<3>;\n  .reg .f32 %f<3>;\n  .reg .f64 %fd<2>;\n"
          << "  .shared .align 8 .b32 sdata[" << threads_ * ks_ << "];\n"
          << "  .shared .align 4 .b32 sctr[" << shared_groups_ * 32 << "];\n"
          << "  .local .align 8 .b32 ldata[" << local_words_ << "];\n";
        return h.str();
    }

    unsigned registers_per_thread() const {
        // b32 registers, b64 ones twice; predicates live elsewhere on hardware. Fermi allows at most 63.
        const unsigned b32 = nr_ + nu_ + 8 + 4 + 4 + 4 + 1 + 3;
        const unsigned b64 = 8 + 3 + 1 + 2;
        return std::min(63U, b32 + 2 * b64);
    }

    // ---- emission helpers ----
    std::ostream& emit() { return *out_ << "  "; }
    std::string label(const char* what) { return std::string("$L_") + what + "_" + std::to_string(labels_++); }

    struct Context {
        bool uniform = true; // every non-exited thread of the CTA executes this code
        bool top_level = true; // not inside any if or loop: a barrier here may change the epoch
        unsigned depth = 0;
        unsigned loops = 0;
        std::vector<std::string> uniform_counters; // loop counters that are CTA-uniform here
        std::vector<std::string> counters; // every enclosing loop counter
        std::vector<std::string> break_labels; // divergent loops this code may break out of
    };

    std::string varying_reg() { return "%r" + std::to_string(c_.below(nr_)); }
    std::string uniform_reg() { return "%u" + std::to_string(c_.below(nu_)); }
    std::string imm(bool small = false) {
        if (small || c_.percent(50)) return std::to_string(c_.below(40));
        return "0x" + hex(interesting_word());
    }
    static std::string hex(std::uint32_t v) {
        std::ostringstream s;
        s << std::hex << v;
        return s.str();
    }
    // A CTA-uniform source operand.
    std::string uniform_source(const Context& ctx) {
        const unsigned r = c_.below(10);
        if (r < 6) return uniform_reg();
        if (r < 8 && !ctx.uniform_counters.empty())
            return ctx.uniform_counters[c_.below(static_cast<std::uint32_t>(ctx.uniform_counters.size()))];
        return imm();
    }
    // Any source operand valid for a varying destination.
    std::string source(const Context& ctx) {
        const unsigned r = c_.below(20);
        if (r < 11) return varying_reg();
        if (r < 14) return uniform_reg();
        if (r < 15) return c_.percent(50) ? "%x0" : "%x1"; // linear thread id, global thread id
        if (r < 17 && !ctx.counters.empty())
            return ctx.counters[c_.below(static_cast<std::uint32_t>(ctx.counters.size()))];
        return imm();
    }
    std::string reg_source(const Context& ctx) {
        std::string s = source(ctx);
        return s[0] == '%' ? s : varying_reg();
    }
    // A guard: nothing, or a varying predicate; uniform code writing uniform registers takes uniform ones only.
    std::string guard(bool uniform_only) {
        if (!c_.percent(15)) return "";
        const std::string neg = c_.percent(30) ? "!" : "";
        if (uniform_only || c_.percent(30)) return "@" + neg + "%q" + std::to_string(c_.below(2)) + " ";
        return "@" + neg + "%p" + std::to_string(c_.below(4)) + " ";
    }
    // selp's predicate may not be negated (PTX ISA), vote's, setp's combining one and bar.red's may.
    std::string any_pred(bool negatable = true) {
        const std::string neg = negatable && c_.percent(25) ? "!" : "";
        return neg + (c_.percent(70) ? "%p" + std::to_string(c_.below(4)) : "%q" + std::to_string(c_.below(2)));
    }

    // ---- prologue and epilogue ----
    void prologue() {
        // Fixed registers, never written by the body:
        //   %x0 linear thread id in the CTA, %x1 global thread id, %x2 this thread's first sdata slot (address),
        //   %x3 sdata, %x4 sctr, %x5 ldata (local), %x6 linear CTA id
        //   %rd0 in, %rd1 this thread's first out slot, %rd2 ctr, %rd3 this thread's first xchg slot,
        //   %rd4 this CTA's xchg area
        emit() << "mov.u32 %x0, %tid.y;\n";
        emit() << "mov.u32 %t0, %ntid.x;\n";
        emit() << "mov.u32 %t1, %tid.x;\n";
        emit() << "mad.lo.u32 %x0, %x0, %t0, %t1;\n";
        emit() << "mov.u32 %x6, %ctaid.y;\n";
        emit() << "mov.u32 %t0, %nctaid.x;\n";
        emit() << "mov.u32 %t1, %ctaid.x;\n";
        emit() << "mad.lo.u32 %x6, %x6, %t0, %t1;\n";
        emit() << "mad.lo.u32 %x1, %x6, " << threads_ << ", %x0;\n";
        emit() << "mov.u32 %x3, sdata;\n";
        emit() << "mov.u32 %x4, sctr;\n";
        emit() << "mov.u32 %x5, ldata;\n";
        emit() << "mad.lo.u32 %x2, %x0, " << 4 * ks_ << ", %x3;\n";
        emit() << "ld.param.u64 %rd0, [p_in];\n";
        emit() << "cvta.to.global.u64 %rd0, %rd0;\n";
        emit() << "ld.param.u64 %rd1, [p_out];\n";
        emit() << "cvta.to.global.u64 %rd1, %rd1;\n";
        emit() << "mul.wide.u32 %rdt0, %x1, " << 4 * k_ << ";\n";
        emit() << "add.s64 %rd1, %rd1, %rdt0;\n";
        emit() << "ld.param.u64 %rd2, [p_ctr];\n";
        emit() << "cvta.to.global.u64 %rd2, %rd2;\n";
        emit() << "ld.param.u64 %rd4, [p_xchg];\n";
        emit() << "cvta.to.global.u64 %rd4, %rd4;\n";
        emit() << "mul.wide.u32 %rdt0, %x6, " << 4 * kg_ * threads_ << ";\n";
        emit() << "add.s64 %rd4, %rd4, %rdt0;\n";
        emit() << "mul.wide.u32 %rdt0, %x0, " << 4 * kg_ << ";\n";
        emit() << "add.s64 %rd3, %rd4, %rdt0;\n";
        // Varying registers start from the input, indexed by thread; uniform ones from CTA-wide values.
        for (unsigned i = 0; i < nr_; ++i) {
            emit() << "mad.lo.u32 %t0, %x1, " << nr_ << ", " << i << ";\n";
            load_input("%r" + std::to_string(i), "%t0");
        }
        emit() << "mov.u32 %u0, %ctaid.x;\n";
        emit() << "ld.param.u32 %u1, [p_salt];\n";
        for (unsigned i = 2; i < nu_; ++i) {
            switch (c_.below(4)) {
            case 0: emit() << "mov.u32 %u" << i << ", " << c_.pick(uniform_specials) << ";\n"; break;
            case 1: emit() << "mov.u32 %u" << i << ", " << imm() << ";\n"; break;
            default:
                emit() << "mov.u32 %t0, " << c_.below(input_words_) << ";\n";
                load_input("%u" + std::to_string(i), "%t0");
            }
        }
        emit() << "setp.ne.u32 %p0, %r0, 0;\nsetp.lt.u32 %p1, %x0, 17;\n  setp.gt.u32 %p2, %r1, %r2;\n"
                  "  setp.eq.u32 %p3, %x0, 0;\n  setp.ne.u32 %q0, %u1, 0;\n  setp.lt.u32 %q1, %u0, 2;\n";
    }

    void epilogue() {
        // Every CTA ends with a barrier and a read epoch, so the shared counters can be dumped: thread t copies
        // shared counter t (if any) into its first extra slot. Then every thread stores its registers.
        emit() << "bar.sync 0;\n";
        const unsigned sctr_words = shared_groups_ * 32;
        const std::string skip = label("nodump");
        emit() << "setp.ge.u32 %pt, %x0, " << sctr_words << ";\n";
        emit() << "@%pt bra " << skip << ";\n";
        emit() << "shl.b32 %t0, %x0, 2;\n";
        emit() << "add.u32 %t0, %t0, %x4;\n";
        emit() << "ld.shared.u32 %t1, [%t0];\n";
        emit() << "st.global.u32 [%rd1+" << 4 * (nr_ + nu_) << "], %t1;\n";
        *out_ << skip << ":\n";
        for (unsigned i = 0; i < nr_; ++i) emit() << "st.global.u32 [%rd1+" << 4 * i << "], %r" << i << ";\n";
        for (unsigned i = 0; i < nu_; ++i) emit() << "st.global.u32 [%rd1+" << 4 * (nr_ + i) << "], %u" << i << ";\n";
        emit() << "ret;\n";
    }

    void load_input(const std::string& dst, const std::string& index_reg) {
        // input_words_ is a power of two
        emit() << "and.b32 %t3, " << index_reg << ", " << input_words_ - 1 << ";\n";
        emit() << "mul.wide.u32 %rdt1, %t3, 4;\n";
        emit() << "add.s64 %rdt1, %rd0, %rdt1;\n";
        emit() << (c_.percent(30) ? "ld.global.nc.u32 " : "ld.global.u32 ") << dst << ", [%rdt1];\n";
    }

    // ---- statements ----
    void block(unsigned depth, Context ctx) {
        ctx.depth = depth;
        const unsigned n = c_.in_range(1, depth == 0 ? 12 : 5);
        for (unsigned i = 0; i < n && budget_ > 0; ++i) statement(ctx);
        if (depth == 0)
            while (budget_ > 0) statement(ctx);
    }

    void statement(Context& ctx) {
        --budget_;
        const unsigned id = statements_++;
        if (omit_ == nullptr || id >= omit_->size() || !(*omit_)[id]) return choose_statement(ctx);
        std::ostream* kept = out_;
        std::ostringstream discarded;
        out_ = &discarded;
        barrier_emitted_ = false;
        choose_statement(ctx);
        out_ = kept;
        if (barrier_emitted_) *out_ << discarded.str(); // a top-level barrier statement stays
        barrier_emitted_ = false;
    }

    void choose_statement(Context& ctx) {
        const unsigned r = c_.below(100);
        if (r < 30) return alu(ctx);
        if (r < 34 && ctx.uniform) return uniform_alu(ctx);
        if (r < 38) return predicate(ctx);
        if (r < 42) return float_op(ctx);
        if (r < 45) return wide_op(ctx);
        if (r < 50) return global_input(ctx);
        if (r < 54) return own_slot(ctx);
        if (r < 58) return global_atomic(ctx);
        if (r < 63) return shared_access(ctx);
        if (r < 66) return exchange_access(ctx);
        if (r < 68) return local_access(ctx);
        if (r < 72) return warp_vote(ctx);
        if (r < 76 && (ctx.uniform || shfl_anywhere_)) return warp_shuffle(ctx);
        if (r < 80 && ctx.uniform) return barrier(ctx);
        if (r < 81) return early_exit();
        if (ctx.depth >= 3) return alu(ctx);
        if (r < 88) return if_else(ctx);
        if (r < 93 && ctx.loops < 2) return loop(ctx);
        if (r < 95 && !ctx.break_labels.empty()) return loop_break(ctx);
        return alu(ctx);
    }

    static constexpr std::array<const char*, 8> uniform_specials{"%ctaid.x",  "%ctaid.y",  "%ntid.x",  "%ntid.y",
                                                                 "%nctaid.x", "%nctaid.y", "%nwarpid", "%ntid.z"};
    static constexpr std::array<const char*, 9> varying_specials{"%tid.x",       "%tid.y",       "%laneid",
                                                                 "%warpid",      "%lanemask_lt", "%lanemask_ge",
                                                                 "%lanemask_eq", "%lanemask_gt", "%lanemask_le"};

    // An integer operation into `dst` with sources from `src`.
    template <class Source> void integer_op(const std::string& g, const std::string& dst, Source src) {
        auto& o = emit() << g;
        switch (c_.below(34)) {
        case 0: o << "add.u32 " << dst << ", " << src() << ", " << src(); break;
        case 1: o << "sub.u32 " << dst << ", " << src() << ", " << src(); break;
        case 2: o << "mul.lo.u32 " << dst << ", " << src() << ", " << src(); break;
        case 3: o << "mad.lo.u32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 4: o << "mul.hi.u32 " << dst << ", " << src() << ", " << src(); break;
        case 5: o << "mul.hi.s32 " << dst << ", " << src() << ", " << src(); break;
        case 6: o << "div.u32 " << dst << ", " << src() << ", " << src(); break;
        case 7: o << "rem.u32 " << dst << ", " << src() << ", " << src(); break;
        case 8: o << "div.s32 " << dst << ", " << src() << ", " << src(); break;
        case 9: o << "rem.s32 " << dst << ", " << src() << ", " << src(); break;
        case 10: o << "and.b32 " << dst << ", " << src() << ", " << src(); break;
        case 11: o << "or.b32 " << dst << ", " << src() << ", " << src(); break;
        case 12: o << "xor.b32 " << dst << ", " << src() << ", " << src(); break;
        case 13: o << "not.b32 " << dst << ", " << src(); break;
        case 14: o << "shl.b32 " << dst << ", " << src() << ", " << src(); break;
        case 15: o << "shr.u32 " << dst << ", " << src() << ", " << src(); break;
        case 16: o << "shr.s32 " << dst << ", " << src() << ", " << src(); break;
        case 17: o << "min.u32 " << dst << ", " << src() << ", " << src(); break;
        case 18: o << "max.s32 " << dst << ", " << src() << ", " << src(); break;
        case 19: o << "abs.s32 " << dst << ", " << src(); break;
        case 20: o << "neg.s32 " << dst << ", " << src(); break;
        case 21: o << "popc.b32 " << dst << ", " << src(); break;
        case 22: o << "clz.b32 " << dst << ", " << src(); break;
        case 23: o << "brev.b32 " << dst << ", " << src(); break;
        case 24: o << "bfe.u32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 25: o << "bfe.s32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 26: o << "bfi.b32 " << dst << ", " << src() << ", " << src() << ", " << src() << ", " << src(); break;
        case 27: o << "prmt.b32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 28:
            o << "lop3.b32 " << dst << ", " << src() << ", " << src() << ", " << src() << ", " << c_.below(256);
            break;
        case 29: o << "shf.l.wrap.b32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 30: o << "shf.r.clamp.b32 " << dst << ", " << src() << ", " << src() << ", " << src(); break;
        case 31: o << "add.sat.s32 " << dst << ", " << src() << ", " << src(); break;
        case 32: o << "mul24.lo.u32 " << dst << ", " << src() << ", " << src(); break;
        default: o << "bfind.u32 " << dst << ", " << src(); break;
        }
        o << ";\n";
    }

    void alu(Context& ctx) {
        const std::string dst = varying_reg();
        const unsigned r = c_.below(20);
        if (r == 0) {
            emit() << guard(false) << "mov.u32 " << dst << ", " << c_.pick(varying_specials) << ";\n";
        } else if (r == 1) {
            emit() << guard(false) << "selp.b32 " << dst << ", " << source(ctx) << ", " << source(ctx) << ", "
                   << any_pred(false) << ";\n";
        } else if (r == 2) {
            emit() << guard(false) << "mov.u32 " << dst << ", " << source(ctx) << ";\n";
        } else {
            integer_op(guard(false), dst, [&] { return source(ctx); });
        }
    }

    void uniform_alu(Context& ctx) {
        const std::string dst = uniform_reg();
        if (c_.percent(10)) {
            emit() << guard(true) << "mov.u32 " << dst << ", " << c_.pick(uniform_specials) << ";\n";
            return;
        }
        integer_op(guard(true), dst, [&] { return uniform_source(ctx); });
    }

    void predicate(Context& ctx) {
        static constexpr std::array<const char*, 10> cmp{"eq.u32", "ne.u32", "lt.u32", "le.u32", "gt.u32",
                                                         "ge.u32", "lt.s32", "ge.s32", "gt.s32", "le.s32"};
        if (ctx.uniform && c_.percent(30)) {
            emit() << guard(true) << "setp." << c_.pick(cmp) << " %q" << c_.below(2) << ", " << uniform_source(ctx)
                   << ", " << uniform_source(ctx) << ";\n";
            return;
        }
        if (c_.percent(20)) {
            static constexpr std::array<const char*, 3> comb{"and", "or", "xor"};
            emit() << guard(false) << "setp." << c_.pick(cmp) << "." << c_.pick(comb) << " %p" << c_.below(4) << ", "
                   << source(ctx) << ", " << source(ctx) << ", " << any_pred() << ";\n";
            return;
        }
        emit() << guard(false) << "setp." << c_.pick(cmp) << " %p" << c_.below(4) << ", " << source(ctx) << ", "
               << source(ctx) << ";\n";
    }

    void float_op(Context& ctx) {
        // Bits in, bits out: every f32 operation the engine does is deterministic, NaNs included.
        emit() << (c_.percent(50) ? "cvt.rn.f32.s32 %f0, " : "mov.b32 %f0, ") << reg_source(ctx) << ";\n";
        emit() << (c_.percent(50) ? "cvt.rn.f32.u32 %f1, " : "mov.b32 %f1, ") << reg_source(ctx) << ";\n";
        static constexpr std::array<const char*, 14> ops{
            "add.rn.f32 %f2, %f0, %f1",     "sub.rz.f32 %f2, %f0, %f1",
            "mul.rm.f32 %f2, %f0, %f1",     "fma.rn.f32 %f2, %f0, %f1, %f0",
            "div.rn.f32 %f2, %f0, %f1",     "min.f32 %f2, %f0, %f1",
            "max.f32 %f2, %f1, %f0",        "sqrt.rn.f32 %f2, %f0",
            "rcp.rn.f32 %f2, %f1",          "ex2.approx.ftz.f32 %f2, %f0",
            "mul.rp.ftz.f32 %f2, %f0, %f1", "abs.f32 %f2, %f1",
            "sin.approx.f32 %f2, %f0",      "fma.rz.sat.f32 %f2, %f1, %f1, %f0"};
        emit() << guard(false) << c_.pick(ops) << ";\n";
        const std::string dst = varying_reg();
        if (c_.percent(50)) emit() << "mov.b32 " << dst << ", %f2;\n";
        else emit() << (c_.percent(50) ? "cvt.rzi.s32.f32 " : "cvt.rni.u32.f32 ") << dst << ", %f2;\n";
    }

    void wide_op(Context& ctx) {
        if (c_.percent(30)) {
            emit() << "cvt.rn.f64.u32 %fd0, " << reg_source(ctx) << ";\n";
            emit() << "cvt.rn.f64.s32 %fd1, " << reg_source(ctx) << ";\n";
            emit() << (c_.percent(50) ? "fma.rn.f64 %fd0, %fd0, %fd1, %fd1;\n" : "div.rn.f64 %fd0, %fd0, %fd1;\n");
            emit() << "cvt.rzi.s32.f64 " << varying_reg() << ", %fd0;\n";
            return;
        }
        emit() << (c_.percent(50) ? "mul.wide.u32 %rdt0, " : "mul.wide.s32 %rdt0, ") << reg_source(ctx) << ", "
               << source(ctx) << ";\n";
        if (c_.percent(50)) emit() << "add.s64 %rdt0, %rdt0, %rd1;\n"; // mixes in a pointer: still deterministic
        emit() << "shr.u64 %rdt0, %rdt0, " << c_.below(40) << ";\n";
        emit() << "cvt.u32.u64 " << varying_reg() << ", %rdt0;\n";
    }

    // Index register %t0 = (value mod words), as a byte offset if `bytes`.
    void index(const Context& ctx, std::uint32_t words, bool bytes) {
        if ((words & (words - 1)) == 0) emit() << "and.b32 %t0, " << source(ctx) << ", " << words - 1 << ";\n";
        else emit() << "rem.u32 %t0, " << reg_source(ctx) << ", " << words << ";\n";
        if (bytes) emit() << "shl.b32 %t0, %t0, 2;\n";
    }

    void global_input(Context& ctx) {
        if (c_.percent(25)) {
            // An aligned vector load of two words.
            index(ctx, input_words_ / 2, false);
            emit() << "mul.wide.u32 %rdt1, %t0, 8;\n";
            emit() << "add.s64 %rdt1, %rd0, %rdt1;\n";
            emit() << guard(false) << "ld.global.v2.u32 {" << varying_reg() << ", " << varying_reg() << "}, [%rdt1];\n";
            return;
        }
        index(ctx, input_words_, false);
        emit() << "mul.wide.u32 %rdt1, %t0, 4;\n";
        emit() << "add.s64 %rdt1, %rd0, %rdt1;\n";
        if (c_.percent(30)) {
            emit() << "cvta.global.u64 %rdt1, %rdt1;\n"; // generic address of a global location
            emit() << guard(false) << "ld.u32 " << varying_reg() << ", [%rdt1];\n";
        } else {
            emit() << guard(false) << "ld.global.u32 " << varying_reg() << ", [%rdt1];\n";
        }
    }

    void own_slot(Context& ctx) {
        const unsigned first_extra = nr_ + nu_ + 1; // nr_+nu_ is where the epilogue dumps a shared counter
        const unsigned extra = k_ - first_extra;
        const unsigned slot = first_extra + c_.below(extra);
        const unsigned r = c_.below(4);
        if (r == 0) {
            emit() << guard(false) << "ld.global.u32 " << varying_reg() << ", [%rd1+" << 4 * slot << "];\n";
        } else if (r == 1 && extra >= 3) {
            const unsigned pair = (first_extra + 1) / 2 + c_.below((k_ - first_extra - 1) / 2);
            emit() << guard(false) << "st.global.v2.u32 [%rd1+" << 8 * pair << "], {" << reg_source(ctx) << ", "
                   << reg_source(ctx) << "};\n";
        } else {
            emit() << guard(false) << "st.global.u32 [%rd1+" << 4 * slot << "], " << source(ctx) << ";\n";
        }
    }

    void global_atomic(Context& ctx) {
        const std::uint32_t g = c_.below(static_cast<std::uint32_t>(groups_.size()));
        index(ctx, slots_per_group_, false);
        emit() << "add.u32 %t0, %t0, " << g * slots_per_group_ << ";\n";
        emit() << "mul.wide.u32 %rdt1, %t0, 4;\n";
        emit() << "add.s64 %rdt1, %rd2, %rdt1;\n";
        atomic_update(groups_[g], "global", "%rdt1", ctx);
    }

    void atomic_update(const CounterGroup& group, const char* space, const std::string& address, Context& ctx) {
        const std::string value =
            group.kind == AtomicKind::inc || group.kind == AtomicKind::dec ? std::to_string(group.bound) : source(ctx);
        if (c_.percent(50))
            emit() << guard(false) << "red." << space << "." << atomic_spelling(group.kind) << " [" << address << "], "
                   << value << ";\n";
        else
            emit() << guard(false) << "atom." << space << "." << atomic_spelling(group.kind) << " %sink, [" << address
                   << "], " << value << ";\n";
    }

    void shared_access(Context& ctx) {
        if (c_.percent(40)) {
            // Shared counters: atomics in an atomic epoch, loads in a read epoch.
            const std::uint32_t g = c_.below(shared_groups_);
            index(ctx, 32, true);
            emit() << "add.u32 %t0, %t0, %x4;\n";
            if (g != 0) emit() << "add.u32 %t0, %t0, " << 128 * g << ";\n";
            if (counters_atomic_) atomic_update(shared_kinds_[g], "shared", "%t0", ctx);
            else emit() << guard(false) << "ld.shared.u32 " << varying_reg() << ", [%t0];\n";
            return;
        }
        if (data_own_) {
            const unsigned slot = c_.below(ks_);
            if (c_.percent(40))
                emit() << guard(false) << "ld.shared.u32 " << varying_reg() << ", [%x2+" << 4 * slot << "];\n";
            else emit() << guard(false) << "st.shared.u32 [%x2+" << 4 * slot << "], " << source(ctx) << ";\n";
            return;
        }
        index(ctx, threads_ * ks_, true);
        if (c_.percent(30)) {
            // Through a generic address.
            emit() << "add.u32 %t0, %t0, %x3;\n";
            emit() << "cvt.u64.u32 %rdt2, %t0;\n";
            emit() << "cvta.shared.u64 %rdt2, %rdt2;\n";
            emit() << guard(false) << "ld.u32 " << varying_reg() << ", [%rdt2];\n";
        } else {
            emit() << "add.u32 %t0, %t0, %x3;\n";
            emit() << guard(false) << "ld.shared.u32 " << varying_reg() << ", [%t0];\n";
        }
    }

    void exchange_access(Context& ctx) {
        // The per-CTA global exchange area follows the same epochs as sdata.
        if (data_own_) {
            const unsigned slot = c_.below(kg_);
            if (c_.percent(40))
                emit() << guard(false) << "ld.global.u32 " << varying_reg() << ", [%rd3+" << 4 * slot << "];\n";
            else emit() << guard(false) << "st.global.u32 [%rd3+" << 4 * slot << "], " << source(ctx) << ";\n";
            return;
        }
        index(ctx, threads_ * kg_, false);
        emit() << "mul.wide.u32 %rdt1, %t0, 4;\n";
        emit() << "add.s64 %rdt1, %rd4, %rdt1;\n";
        emit() << guard(false) << "ld.global.u32 " << varying_reg() << ", [%rdt1];\n";
    }

    void local_access(Context& ctx) {
        index(ctx, local_words_, true);
        emit() << "add.u32 %t0, %t0, %x5;\n";
        if (c_.percent(50)) emit() << guard(false) << "st.local.u32 [%t0], " << source(ctx) << ";\n";
        else emit() << guard(false) << "ld.local.u32 " << varying_reg() << ", [%t0];\n";
    }

    std::string member_mask() { return c_.percent(85) ? "0xffffffff" : "%u" + std::to_string(c_.below(nu_)); }

    void warp_vote(Context& ctx) {
        // A member mask from a register may leave out executing lanes: the engine then combines the lanes in
        // both sets (docs/functional.md), which is the same at every warp width.
        switch (c_.below(7)) {
        case 0:
            emit() << guard(false) << "vote.sync.ballot.b32 " << varying_reg() << ", " << any_pred() << ", "
                   << member_mask() << ";\n";
            break;
        case 1:
            emit() << guard(false) << "vote.sync.all.pred %p" << c_.below(4) << ", " << any_pred() << ", "
                   << member_mask() << ";\n";
            break;
        case 2:
            emit() << guard(false) << "vote.sync.any.pred %p" << c_.below(4) << ", " << any_pred() << ", "
                   << member_mask() << ";\n";
            break;
        case 3:
            emit() << guard(false) << "vote.sync.uni.pred %p" << c_.below(4) << ", " << any_pred() << ", "
                   << member_mask() << ";\n";
            break;
        case 4:
            emit() << guard(false) << "match.any.sync.b32 " << varying_reg() << ", " << source(ctx) << ", "
                   << member_mask() << ";\n";
            break;
        case 5:
            emit() << guard(false) << "match.all.sync.b32 " << varying_reg() << "|%p" << c_.below(4) << ", "
                   << source(ctx) << ", " << member_mask() << ";\n";
            break;
        default: emit() << guard(false) << "activemask.b32 " << varying_reg() << ";\n"; break;
        }
    }

    void warp_shuffle(Context& ctx) {
        static constexpr std::array<const char*, 4> modes{"idx", "up", "down", "bfly"};
        const char* mode = c_.pick(modes);
        // c packs the clamp value (bits 4:0) and the segment mask (bits 12:8), PTX ISA "shfl.sync".
        std::uint32_t cval = 0;
        switch (c_.below(3)) {
        case 0: cval = std::string(mode) == "up" ? 0 : 0x1f; break;
        case 1: cval = (c_.pick(std::array<std::uint32_t, 4>{0x18, 0x1c, 0x10, 0x1e}) << 8) | c_.below(32); break;
        default: cval = c_.below(0x2000); break;
        }
        const std::string lane = c_.percent(60) ? std::to_string(c_.below(32)) : source(ctx);
        emit() << guard(false) << "shfl.sync." << mode << ".b32 " << varying_reg();
        if (c_.percent(50)) *out_ << "|%p" << c_.below(4);
        *out_ << ", " << reg_source(ctx) << ", " << lane << ", " << cval << ", " << member_mask() << ";\n";
    }

    void barrier(Context& ctx) {
        barrier_emitted_ = ctx.top_level;
        switch (c_.below(5)) {
        case 0: emit() << "barrier.sync 0;\n"; break;
        case 1: emit() << "bar.red.popc.u32 " << uniform_reg() << ", 0, " << any_pred() << ";\n"; break;
        case 2:
            emit() << "bar.red." << (c_.percent(50) ? "and" : "or") << ".pred %q" << c_.below(2) << ", 0, "
                   << any_pred() << ";\n";
            break;
        default: emit() << "bar.sync 0;\n"; break;
        }
        // A barrier inside an if or a loop runs a data-dependent number of times, so only top-level ones end an
        // epoch; nested ones keep the current epoch's rules (still correct: a barrier only adds ordering).
        if (ctx.top_level) {
            data_own_ = c_.percent(50);
            counters_atomic_ = c_.percent(50);
        }
    }

    void early_exit() { emit() << "@" << (c_.percent(50) ? "!" : "") << "%p" << c_.below(4) << " exit;\n"; }

    void if_else(Context& ctx) {
        Context inner = ctx;
        inner.top_level = false;
        const bool uniform = ctx.uniform && c_.percent(35);
        std::string pred;
        if (uniform) {
            pred = "%q" + std::to_string(c_.below(2));
            if (c_.percent(50))
                emit() << "setp.ne.u32 " << pred << ", " << uniform_source(ctx) << ", " << uniform_source(ctx) << ";\n";
        } else {
            inner.uniform = false;
            pred = "%p" + std::to_string(c_.below(4));
            if (c_.percent(50)) {
                emit() << "and.b32 %t1, " << source(ctx) << ", " << (1U << c_.below(6)) << ";\n";
                emit() << "setp.ne.u32 " << pred << ", %t1, 0;\n";
            }
        }
        const std::string else_label = label("else"), end_label = label("endif");
        const bool has_else = c_.percent(50);
        const std::string neg = c_.percent(50) ? "!" : "";
        emit() << "@" << neg << pred << (uniform ? " bra.uni " : " bra ") << (has_else ? else_label : end_label)
               << ";\n";
        block(ctx.depth + 1, inner);
        if (has_else) {
            emit() << (uniform ? "bra.uni " : "bra ") << end_label << ";\n";
            *out_ << else_label << ":\n";
            block(ctx.depth + 1, inner);
        }
        *out_ << end_label << ":\n";
    }

    void loop(Context& ctx) {
        Context inner = ctx;
        inner.top_level = false;
        const unsigned d = ctx.loops;
        inner.loops = d + 1;
        const std::string counter = "%c" + std::to_string(d), bound = "%n" + std::to_string(d);
        const std::string exit_pred = "%pl" + std::to_string(d);
        const bool uniform = ctx.uniform && c_.percent(50);
        if (uniform) {
            if (c_.percent(50)) emit() << "mov.u32 " << bound << ", " << c_.in_range(1, 4) << ";\n";
            else {
                emit() << "and.b32 " << bound << ", " << uniform_source(ctx) << ", 3;\n";
                emit() << "add.u32 " << bound << ", " << bound << ", 1;\n";
            }
            inner.uniform_counters.push_back(counter);
        } else {
            inner.uniform = false;
            emit() << "and.b32 " << bound << ", " << reg_source(ctx) << ", 7;\n";
        }
        inner.counters.push_back(counter);
        const std::string head = label("loop"), end = label("endloop");
        if (!uniform) inner.break_labels.push_back(end);
        emit() << "mov.u32 " << counter << ", 0;\n";
        const bool bottom_test = c_.percent(50); // do-while (the bound is at least 1 for it)
        if (bottom_test) emit() << "max.u32 " << bound << ", " << bound << ", 1;\n";
        *out_ << head << ":\n";
        if (!bottom_test) {
            emit() << "setp.ge.u32 " << exit_pred << ", " << counter << ", " << bound << ";\n";
            emit() << "@" << exit_pred << (uniform ? " bra.uni " : " bra ") << end << ";\n";
        }
        block(ctx.depth + 1, inner);
        emit() << "add.u32 " << counter << ", " << counter << ", 1;\n";
        if (bottom_test) {
            emit() << "setp.lt.u32 " << exit_pred << ", " << counter << ", " << bound << ";\n";
            emit() << "@" << exit_pred << (uniform ? " bra.uni " : " bra ") << head << ";\n";
        } else {
            emit() << (uniform ? "bra.uni " : "bra ") << head << ";\n";
        }
        *out_ << end << ":\n";
    }

    void loop_break(Context& ctx) {
        const std::string& target = ctx.break_labels[c_.below(static_cast<std::uint32_t>(ctx.break_labels.size()))];
        emit() << "@" << (c_.percent(50) ? "!" : "") << "%p" << c_.below(4) << " bra " << target << ";\n";
    }

    Choices& c_;
    const std::vector<bool>* omit_ = nullptr;
    unsigned statements_ = 0;
    bool barrier_emitted_ = false; // the statement being generated is a top-level barrier
    std::ostream* out_ = nullptr;
    unsigned labels_ = 0;
    int budget_ = 0;
    std::uint32_t threads_ = 0, ctas_ = 0;
    unsigned nr_ = 0, nu_ = 0, extra_ = 0, k_ = 0, ks_ = 0, kg_ = 0;
    std::uint32_t local_words_ = 0, input_words_ = 0, slots_per_group_ = 0, shared_groups_ = 0;
    std::vector<CounterGroup> groups_, shared_kinds_;
    bool shfl_anywhere_ = true;
    bool data_own_ = true; // sdata and xchg: own epoch (true) or read epoch
    bool counters_atomic_ = true; // sctr: atomic epoch (true) or read epoch
};

} // namespace detail

// A kernel saved as a case file: its PTX followed by comment lines that hold the launch and the data, so the file
// is still valid PTX and replays without the generator (a regression stays fixed when the generator changes).
//   // differential-case grid X Y Z block X Y Z registers R salt S out_words N exchange_words N
//   // input W W ...
//   // counters W W ...
inline std::string to_case_file(const GeneratedKernel& k) {
    std::ostringstream s;
    s << k.ptx << "// differential-case grid " << k.config.grid.x << ' ' << k.config.grid.y << ' ' << k.config.grid.z
      << " block " << k.config.block.x << ' ' << k.config.block.y << ' ' << k.config.block.z << " registers "
      << k.registers_per_thread << " salt " << k.salt << " out_words " << k.out_words << " exchange_words "
      << k.exchange_words << "\n";
    auto words = [&s](const char* name, const std::vector<std::uint32_t>& v) {
        s << "// " << name;
        for (std::size_t i = 0; i < v.size(); ++i) s << (i % 16 == 15 ? "\n// " : " ") << v[i];
        s << "\n";
    };
    words("input", k.input);
    words("counters", k.counter_init);
    return s.str();
}

// Reads what to_case_file wrote; throws std::runtime_error when the trailer is missing or malformed.
inline GeneratedKernel from_case_file(const std::string& text) {
    const std::size_t trailer = text.find("// differential-case ");
    if (trailer == std::string::npos)
        throw std::runtime_error("not a differential case file: no '// differential-case' line");
    GeneratedKernel k;
    k.ptx = text.substr(0, trailer);
    std::istringstream in(text.substr(trailer));
    std::string word;
    std::vector<std::uint32_t>* list = nullptr;
    auto number = [&in](const char* what) {
        unsigned long long v = 0;
        if (!(in >> v)) throw std::runtime_error(std::string("differential case file: bad value for ") + what);
        return v;
    };
    while (in >> word) {
        if (word == "//" || word == "differential-case") continue;
        if (word == "grid" || word == "block") {
            func::Dim3& d = word == "grid" ? k.config.grid : k.config.block;
            d.x = static_cast<std::uint32_t>(number("x"));
            d.y = static_cast<std::uint32_t>(number("y"));
            d.z = static_cast<std::uint32_t>(number("z"));
        } else if (word == "registers") {
            k.registers_per_thread = static_cast<unsigned>(number("registers"));
        } else if (word == "salt") {
            k.salt = static_cast<std::uint32_t>(number("salt"));
        } else if (word == "out_words") {
            k.out_words = number("out_words");
        } else if (word == "exchange_words") {
            k.exchange_words = number("exchange_words");
        } else if (word == "input") {
            list = &k.input;
        } else if (word == "counters") {
            list = &k.counter_init;
        } else if (list != nullptr) {
            list->push_back(static_cast<std::uint32_t>(std::stoul(word)));
        } else {
            throw std::runtime_error("differential case file: unexpected '" + word + "'");
        }
    }
    if (k.input.empty() || k.config.grid.count() == 0 || k.config.block.count() == 0 || k.out_words == 0)
        throw std::runtime_error("differential case file: incomplete trailer");
    return k;
}

// Generates one kernel from `choices`.
inline GeneratedKernel generate_kernel(Choices& choices, const std::vector<bool>* omit = nullptr) {
    return detail::Generator(choices, omit).run();
}
inline GeneratedKernel generate_kernel(std::uint64_t seed, const std::vector<bool>* omit = nullptr) {
    Choices choices(seed);
    return generate_kernel(choices, omit);
}
inline GeneratedKernel generate_kernel(std::span<const std::uint8_t> bytes, const std::vector<bool>* omit = nullptr) {
    Choices choices(bytes);
    return generate_kernel(choices, omit);
}

} // namespace gpuarch::fuzz
