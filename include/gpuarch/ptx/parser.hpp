#pragma once
// PTX text -> ir::Module: `ptx::parse(text, file_name)` and `ptx::parse_file(path)`.
// Contract:
// - Accepts the PTX that `nvcc -ptx` (CUDA 13) emits for sm_75+ from ordinary CUDA C++; everything accepted is
//   listed in docs/ptx.md. Anything else (an unknown or unsupported directive, instruction, modifier, special
//   register; wmma/mma/cp.async.bulk/tex/...; address-of initializers; indirect calls) throws ParseError naming the
//   construct and its line:column. Nothing is skipped silently except the debug directives .file, .loc and
//   .section, and the cache-operator/eviction-hint modifiers of ld/st, which do not change values.
// - Every `call` of a `.func` is inlined into its kernel (ptx/inliner.hpp), symbol offsets are assigned
//   (ir/layout.hpp) and the module is analysed (ir/analyse.hpp) before parse() returns.
// - Registers are numbered per function in declaration order; inlined callee registers follow the kernel's own.
// - Time and memory are linear in the input size, and bounded by ptx::Limits (ptx/limits.hpp): CUDA's limits on
//   local, static shared, constant and kernel-parameter memory, and knobs on the input size, instructions,
//   registers and the tokens held at once. Each is checked while the construct that crosses it is read, and
//   reported at it. Tokens are lexed on demand and dropped after each statement, so the parser never holds the
//   whole file's tokens. Out of host memory anyway, parse() throws ParseError, never std::bad_alloc.
//
// Operand order (operands[0] is the destination whenever ir::has_destination() is true):
//   add sub mul div rem min max and or xor shl shr mul24 copysign addc subc   d, a, b
//   mad fma mad24 madc                                                        d, a, b, c
//   abs neg not cnot popc clz brev bfind rcp sqrt rsqrt sin cos lg2 ex2 tanh  d, a
//   testp                                                                     p, a
//   bfe                                                                       d, a, pos, len
//   bfi                                                                       f, a, b, pos, len
//   prmt                                                                      d, a, b, selector
//   lop3                                                                      d, a, b, c, lut (immediate)
//   shf                                                                       d, a (low word), b (high word), shift
//   setp                                                                      p (reg2 = q of p|q), a, b [, c pred]
//   set                                                                       d, a, b [, c pred]
//   selp                                                                      d, a, b, c (pred)
//   slct                                                                      d, a, b, c (compared with 0)
//   cvt                                                                       d, a  (d, a, b for cvt.*.f16x2/bf16x2.f32: a -> upper half)
//   cvta                                                                      d, a (register or symbol)
//   mov                                                                       d (reg or vector), a (reg, imm, special, symbol, vector)
//   ld                                                                        d (reg or vector), [address]
//   st                                                                        [address], value (reg, imm or vector)
//   atom                                                                      d, [address], b [, c for cas]
//   red                                                                       [address], b
//   bar.sync / bar.arrive / barrier.*                                         a [, b]
//   bar.red                                                                   d, a [, b], c (pred, last operand)
//   bar.warp.sync                                                             membermask
//   shfl.sync                                                                 d (reg2 = p of d|p), a, b, c, membermask
//   vote.sync                                                                 d, a (pred, may be negated), membermask
//   match.sync                                                                d (reg2 = p for .all), a, membermask
//   activemask                                                                d
//   bra                                                                       label
//   nanosleep                                                                 t
//   membar fence ret exit trap                                                (none)
//   vprintf (from `call vprintf`)                                             format, args [, retval] (.param symbols)
//   assertfail (from `call __assertfail`)                                     message, file, line, function, charSize
//   device_malloc (from `call malloc`)                                        size [, retval] (.param symbols)
//   device_free (from `call free`)                                            pointer (.param symbol)
//   cp.async                                                                  [dst], [src], cp-size [, src-size | ignore-src]
//   cp.async.wait_group                                                       N (immediate)
//   cp.async.commit_group cp.async.wait_all                                   (none)
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ir/analyse.hpp>
#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/inliner.hpp>
#include <gpuarch/ptx/lexer.hpp>
#include <gpuarch/ptx/limits.hpp>
#include <gpuarch/ptx/literals.hpp>
#include <gpuarch/ptx/modifiers.hpp>
#include <gpuarch/ptx/parse_error.hpp>
#include <gpuarch/ptx/type_rules.hpp>

namespace gpuarch::ptx {

namespace detail {

struct TransparentHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
template <class V>
using NameMap = std::unordered_map<std::string, V, TransparentHash, std::equal_to<>>;

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
        ir::Opcode::add,   ir::Opcode::sub,   ir::Opcode::mul,      ir::Opcode::mad,   ir::Opcode::mul24,
        ir::Opcode::mad24, ir::Opcode::div,   ir::Opcode::rem,      ir::Opcode::abs,   ir::Opcode::neg,
        ir::Opcode::min,   ir::Opcode::max,   ir::Opcode::fma,      ir::Opcode::addc,  ir::Opcode::subc,
        ir::Opcode::madc,  ir::Opcode::popc,  ir::Opcode::clz,      ir::Opcode::brev,  ir::Opcode::bfe,
        ir::Opcode::bfi,   ir::Opcode::bfind, ir::Opcode::prmt,     ir::Opcode::and_,  ir::Opcode::or_,
        ir::Opcode::xor_,  ir::Opcode::not_,  ir::Opcode::cnot,     ir::Opcode::shl,   ir::Opcode::shr,
        ir::Opcode::lop3,  ir::Opcode::setp,  ir::Opcode::selp,     ir::Opcode::set,   ir::Opcode::slct,
        ir::Opcode::cvt,   ir::Opcode::cvta,  ir::Opcode::mov,      ir::Opcode::rcp,   ir::Opcode::sqrt,
        ir::Opcode::rsqrt, ir::Opcode::sin,   ir::Opcode::cos,      ir::Opcode::lg2,   ir::Opcode::ex2,
        ir::Opcode::tanh,  ir::Opcode::copysign, ir::Opcode::testp, ir::Opcode::ld,    ir::Opcode::st,
        ir::Opcode::atom,  ir::Opcode::red,   ir::Opcode::bar,      ir::Opcode::membar, ir::Opcode::fence,
        ir::Opcode::shfl,  ir::Opcode::vote,  ir::Opcode::activemask, ir::Opcode::match, ir::Opcode::bra,
        ir::Opcode::call,  ir::Opcode::ret,   ir::Opcode::exit,     ir::Opcode::nanosleep, ir::Opcode::shf,
        ir::Opcode::trap,  ir::Opcode::vabsdiff4, ir::Opcode::dp4a, ir::Opcode::dp2a, ir::Opcode::sad,
        ir::Opcode::redux, ir::Opcode::prefetch, ir::Opcode::prefetchu, ir::Opcode::tex, ir::Opcode::suld,
        ir::Opcode::sust,
    };
    if (head == "barrier") return ir::Opcode::bar;
    for (ir::Opcode op : all)
        if (ir::name(op) == head) return op;
    return std::nullopt;
}

// PTX special registers that exist but are not modelled: named in the error instead of "undeclared register".
inline bool is_known_unsupported_special(std::string_view name) {
    static constexpr std::string_view prefixes[] = {"%envreg", "%pm", "%cluster", "%nclusterid", "%is_explicit_cluster",
                                                    "%reserved_smem", "%aggr_smem_size", "%current_graph_exec"};
    for (std::string_view p : prefixes)
        if (name.substr(0, p.size()) == p) return true;
    return name == "%tid" || name == "%ntid" || name == "%ctaid" || name == "%nctaid";
}

// One operand as written, before names are resolved and types checked.
struct RawOperand {
    enum class Kind : std::uint8_t { name, pair, vector, address, integer, f32, f64, sink };
    Kind kind = Kind::name;
    const Token* at = nullptr;          // first token of the operand
    bool negated = false;               // `!name`
    const Token* name = nullptr;        // name / first of pair / address base (nullptr: absolute address)
    const Token* name2 = nullptr;       // second of pair (`d|p`)
    std::array<const Token*, 4> elements{}; // vector elements (a `_` token is a sink element, an integer a constant)
    std::array<bool, 4> element_negative{}; // constant element written with a leading '-'
    std::uint8_t count = 0;
    std::int64_t offset = 0;            // address offset, or symbol+offset for mov/cvta
    std::uint64_t bits = 0;             // immediate bits (integer: two's complement)
    bool decimal = false;               // immediate written as a decimal float (1.5)
};

// What an operand position accepts. See the operand-order table at the top of this file.
enum class Role : std::uint8_t {
    dst,      // a register
    dst_pair, // a register, optionally `|q` with a predicate register (the second destination)
    dst_data, // ld/mov destination: register or vector
    src,      // register, immediate or special register
    src_data, // st/mov source: register, immediate, special, vector; for mov also a symbol (its address)
    src_addr, // cvta source: register or symbol
    pred,     // predicate register, `!` allowed
    sel_pred, // predicate register, `!` not allowed (selp)
    address,  // [base + offset] / [symbol + offset] / [immediate]
    label,
    imm,      // immediate only
};

struct RoleSpec {
    Role role = Role::src;
    ir::ScalarType type = ir::ScalarType::none;
};

class Parser {
public:
    Parser(std::string_view text, std::string file_name, const Limits& limits)
        : file_(std::move(file_name)), limits_(limits), lexer_(text, file_) {
        if (text.size() > limits_.max_file_bytes) fail_input_size(text, limits_.max_file_bytes);
    }
    Parser(const Parser&) = delete; // lexer_ refers to file_
    Parser& operator=(const Parser&) = delete;

    ir::Module run() {
        try {
            module_.file_name = file_;
            parse_module();
            inline_calls(module_, functions_, file_, limits_);
            ir::assign_layout(module_);
            check_kernel_segments();
            ir::analyse(module_);
            return std::move(module_);
        } catch (const std::bad_alloc&) {
            out_of_memory();
        } catch (const std::length_error&) {
            out_of_memory();
        }
    }

    // The input is longer than `limit` bytes: reports the position of its first byte past the limit.
    [[noreturn]] void fail_input_size(std::string_view text, std::uint64_t limit) const {
        const std::string_view head = text.substr(0, static_cast<std::size_t>(limit));
        const std::size_t last_newline = head.rfind('\n');
        const auto line = static_cast<std::uint32_t>(1 + std::count(head.begin(), head.end(), '\n'));
        const auto column = static_cast<std::uint32_t>(last_newline == std::string_view::npos ? head.size() + 1
                                                                                              : head.size() - last_newline);
        fail_at(line, column, "the input is longer than " + std::to_string(limit) +
                                  " bytes (ptx::Limits::max_file_bytes); this is its first byte past the limit");
    }

private:
    // ------------------------------------------------------------------ tokens and errors
    // Tokens are lexed on demand into window_; window_[cursor_] is the current token. release() drops the tokens
    // before the cursor. It is called only where no earlier Token reference or pointer is used afterwards: at
    // the start of each module-scope directive and body statement, and between the items of the long lists
    // (parameters, initializer values, register names, .section contents). Callers of those hold Tokens by
    // value. A deque keeps references to held tokens valid while more are lexed behind them.
    const Token& peek(std::size_t ahead = 0) const {
        while (cursor_ + ahead >= window_.size()) {
            if (!window_.empty() && window_.back().kind == TokenKind::end) return window_.back();
            if (window_.size() >= limits_.max_statement_tokens)
                fail(window_.back(), "statement too long: more than " + std::to_string(limits_.max_statement_tokens) +
                                         " tokens held at once (ptx::Limits::max_statement_tokens)");
            window_.push_back(lexer_.next());
        }
        return window_[cursor_ + ahead];
    }
    const Token& next() {
        const Token& t = peek();
        if (t.kind != TokenKind::end) ++cursor_;
        return t;
    }
    void release() {
        window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(cursor_));
        cursor_ = 0;
    }
    // Where parsing stood: the current token, or the start of the input before the first one.
    SourcePosition position() const {
        if (cursor_ < window_.size()) return SourcePosition{file_, window_[cursor_].line, window_[cursor_].column};
        if (!window_.empty()) return SourcePosition{file_, window_.back().line, window_.back().column};
        return SourcePosition{file_, 1, 1};
    }
    // Frees what the parse holds before building the message, so that message can be allocated.
    [[noreturn]] void out_of_memory() {
        SourcePosition where = position();
        module_ = ir::Module{};
        std::vector<Function>().swap(functions_);
        std::deque<Token>().swap(window_);
        throw ParseError(std::move(where), "out of host memory while parsing");
    }
    bool accept_punct(char c) {
        if (!peek().is_punct(c)) return false;
        next();
        return true;
    }
    [[noreturn]] void fail_at(std::uint32_t line, std::uint32_t column, const std::string& message) const {
        throw ParseError(SourcePosition{file_, line, column}, message);
    }
    [[noreturn]] void fail(const Token& t, const std::string& message) const { fail_at(t.line, t.column, message); }
    static std::string describe(const Token& t) {
        if (t.kind == TokenKind::end) return "end of input";
        // Built piecewise: `"'" + std::string(...) + "'"` trips GCC 12's -Wrestrict false positive at -O2.
        std::string quoted;
        quoted.reserve(t.text.size() + 2);
        quoted += '\'';
        quoted.append(t.text.data(), t.text.size());
        quoted += '\'';
        return quoted;
    }
    const Token& expect_punct(char c, std::string_view context) {
        if (!peek().is_punct(c))
            fail(peek(), std::string("expected '") + c + "' " + std::string(context) + ", found " + describe(peek()));
        return next();
    }
    const Token& expect_word(std::string_view what) {
        if (peek().kind != TokenKind::word) fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
        return next();
    }
    // A non-negative integer literal that fits in 32 bits.
    std::uint32_t parse_u32(std::string_view what) {
        const Token& t = peek();
        if (t.kind != TokenKind::integer) fail(t, "expected " + std::string(what) + " (an integer), found " + describe(t));
        next();
        const auto value = integer_literal_bits(t.text);
        if (!value || *value > 0xffffffffULL) fail(t, std::string(what) + " " + std::string(t.text) + " is out of range");
        return static_cast<std::uint32_t>(*value);
    }
    std::uint32_t parse_alignment() {
        const Token& t = peek();
        const std::uint32_t a = parse_u32("alignment");
        if (a == 0 || (a & (a - 1)) != 0) fail(t, "alignment " + std::to_string(a) + " is not a power of two");
        return a;
    }
    // Both release the tokens they skip: the caller must not use `directive` afterwards.
    void skip_line(const Token& directive) {
        const std::uint32_t line = directive.line;
        next();
        while (peek().kind != TokenKind::end && peek().line == line) {
            next();
            release();
        }
    }
    void skip_section(const Token& directive_token) {
        const Token directive = directive_token;
        next();
        while (peek().kind != TokenKind::end && !peek().is_punct('{')) {
            next();
            release();
        }
        if (peek().kind == TokenKind::end) fail(directive, "unterminated .section (expected '{')");
        next();
        std::uint64_t depth = 1;
        while (depth > 0) {
            const Token& t = next();
            if (t.kind == TokenKind::end) fail(directive, "unterminated .section (missing '}')");
            if (t.is_punct('{')) ++depth;
            if (t.is_punct('}')) --depth;
            release();
        }
    }

    // ------------------------------------------------------------------ module scope
    struct Linkage {
        bool is_extern = false, is_visible = false, is_weak = false, is_common = false;
        std::optional<Token> first; // a copy: the tokens it came from are released before the declaration
        bool any() const { return is_extern || is_visible || is_weak || is_common; }
    };

    void parse_module() {
        Linkage linkage;
        bool seen_version = false, seen_target = false;
        while (true) {
            release();
            const Token& t = peek();
            if (t.kind == TokenKind::end) break;
            if (t.kind != TokenKind::directive)
                fail(t, "expected a directive at module scope, found " + describe(t));
            const std::string_view d = t.text;
            if (linkage.any() && d != ".entry" && d != ".func" && d != ".global" && d != ".const" &&
                d != ".shared" && d != ".visible" && d != ".extern" && d != ".weak" && d != ".common")
                fail(t, "linking directive " + std::string(linkage.first->text) + " must precede a variable or function, not " +
                            std::string(d));
            if (d == ".version") {
                next();
                const Token& v = peek();
                if (v.kind != TokenKind::decimal_float && v.kind != TokenKind::integer)
                    fail(v, "expected a version number after .version, found " + describe(v));
                if (seen_version) fail(t, "duplicate .version directive");
                seen_version = true;
                module_.version = std::string(next().text);
            } else if (d == ".target") {
                next();
                if (seen_target) fail(t, "duplicate .target directive");
                seen_target = true;
                parse_target();
            } else if (d == ".address_size") {
                next();
                const Token& v = peek();
                const std::uint32_t size = parse_u32("address size");
                if (size != 32 && size != 64) fail(v, ".address_size must be 32 or 64, found " + std::to_string(size));
                module_.address_size = size;
            } else if (d == ".file" || d == ".loc") {
                skip_line(t);
            } else if (d == ".section") {
                skip_section(t);
            } else if (d == ".pragma") {
                parse_pragma();
            } else if (d == ".visible" || d == ".extern" || d == ".weak" || d == ".common") {
                next();
                if (!linkage.first) linkage.first = t;
                bool& flag = d == ".visible" ? linkage.is_visible
                             : d == ".extern" ? linkage.is_extern
                             : d == ".weak"   ? linkage.is_weak
                                              : linkage.is_common;
                if (flag) fail(t, "duplicate " + std::string(d));
                flag = true;
                continue; // keep the linkage for the declaration that follows
            } else if (d == ".entry" || d == ".func") {
                parse_function(linkage);
            } else if (d == ".global" || d == ".const" || d == ".shared") {
                parse_variables(linkage, /*module_scope=*/true);
            } else if (d == ".local") {
                fail(t, "module-scope .local variables are not supported (deprecated in PTX; declare them in a function)");
            } else if (d == ".tex" || d == ".texref" || d == ".surfref" || d == ".samplerref") {
                fail(t, "texture and surface declarations (" + std::string(d) + ") are not supported");
            } else if (d == ".alias") {
                fail(t, ".alias is not supported");
            } else if (d == ".maxntid" || d == ".reqntid" || d == ".minnctapersm" || d == ".maxnreg") {
                fail(t, std::string(d) + " must follow an .entry header");
            } else {
                fail(t, "unknown or unsupported directive " + describe(t));
            }
            linkage = Linkage{};
        }
        if (linkage.any()) fail(*linkage.first, "linking directive at end of input");
        if (!seen_version) fail(peek(), "missing .version directive");
        if (!seen_target) fail(peek(), "missing .target directive");
    }

    void parse_target() {
        bool first = true;
        do {
            const Token& w = expect_word("a target name");
            const std::string_view name = w.text;
            if (first) {
                if (name.substr(0, 3) != "sm_" && name.substr(0, 8) != "compute_")
                    fail(w, "expected an sm_XX target, found " + describe(w));
                module_.target = std::string(name);
                first = false;
            } else if (name == "map_f64_to_f32" || name == "texmode_independent") {
                fail(w, "target option '" + std::string(name) + "' is not supported");
            } else if (name != "debug" && name != "texmode_unified") {
                fail(w, "unknown target option " + describe(w));
            }
        } while (accept_punct(','));
    }

    void parse_pragma() {
        next();
        const Token& s = peek();
        if (s.kind != TokenKind::string) fail(s, "expected a string after .pragma, found " + describe(s));
        next();
        while (accept_punct(',')) {
            if (peek().kind != TokenKind::string) fail(peek(), "expected a string in .pragma list, found " + describe(peek()));
            next();
        }
        expect_punct(';', "after .pragma");
    }

    // ------------------------------------------------------------------ variables
    std::optional<ir::ScalarType> type_directive(const Token& t) const {
        if (t.kind != TokenKind::directive) return std::nullopt;
        return lookup_name(t.text.substr(1), all_scalar_types);
    }

    static ir::StateSpace space_of_directive(std::string_view d) {
        if (d == ".global") return ir::StateSpace::global;
        if (d == ".const") return ir::StateSpace::constant;
        if (d == ".shared") return ir::StateSpace::shared;
        if (d == ".local") return ir::StateSpace::local;
        if (d == ".param") return ir::StateSpace::param;
        return ir::StateSpace::none;
    }

    // Parses `[.align N] [.v2|.v4] .type` and returns (type, alignment or 0, vector width).
    struct DeclType {
        ir::ScalarType type = ir::ScalarType::none;
        std::uint32_t alignment = 0;
        std::uint32_t vector = 1;
    };
    DeclType parse_decl_type(bool allow_pred) {
        DeclType dt;
        while (true) {
            const Token& t = peek();
            if (t.kind != TokenKind::directive) fail(t, "expected a type, found " + describe(t));
            if (t.text == ".align") {
                next();
                if (dt.alignment != 0) fail(t, "duplicate .align");
                dt.alignment = parse_alignment();
                continue;
            }
            if (t.text == ".v2" || t.text == ".v4") {
                next();
                if (dt.vector != 1) fail(t, "duplicate vector modifier");
                dt.vector = t.text == ".v2" ? 2 : 4;
                continue;
            }
            if (t.text == ".v8") fail(t, ".v8 vectors are not supported");
            if (t.text == ".attribute") fail(t, "variable attributes (.attribute) are not supported");
            if (t.text == ".texref" || t.text == ".surfref" || t.text == ".samplerref")
                fail(t, "texture and surface declarations (" + std::string(t.text) + ") are not supported");
            if (auto type = type_directive(t)) {
                next();
                if (*type == ir::ScalarType::pred && !allow_pred) fail(t, ".pred is only allowed for registers");
                dt.type = *type;
                return dt;
            }
            fail(t, "expected a type, found " + describe(t));
        }
    }

    // `[N][M]...` after a declared name; returns the element count (0 for a leading `[]`) and whether `[]`
    // was used.
    std::pair<std::uint64_t, bool> parse_dimensions() {
        std::uint64_t count = 1;
        bool open = false;
        bool first = true;
        while (peek().is_punct('[')) {
            const Token& bracket = next();
            if (peek().is_punct(']')) {
                if (!first) fail(bracket, "only the first array dimension may be left empty");
                next();
                open = true;
                first = false;
                continue;
            }
            const Token& t = peek();
            const std::uint32_t n = parse_u32("array dimension");
            if (n == 0) fail(t, "array dimension must be positive");
            if (count > (std::uint64_t{1} << 40) / n) fail(t, "array is too large");
            count *= n;
            expect_punct(']', "after an array dimension");
            first = false;
        }
        return {open ? 0 : count, open};
    }

    // One initializer value: its first token, bits and kind.
    struct InitValue {
        const Token* at;
        std::uint64_t bits;
        RawOperand::Kind kind; // integer, f32, f64
        bool decimal;
    };
    // Where the values of one initializer go: each is encoded as it is read (its tokens are then released), and
    // the value past `capacity` is an error at the variable's name.
    struct InitTarget {
        const Token& name;
        ir::ScalarType type;
        std::uint64_t capacity; // elements; no bound for an open array (`x[] = {...}`)
        std::uint64_t count = 0;
        std::vector<std::uint8_t>& bytes;
    };
    void parse_initializer(InitTarget& target, int depth = 0) {
        if (depth > 8) fail(peek(), "initializer nested too deeply");
        if (accept_punct('{')) {
            if (!peek().is_punct('}')) {
                do {
                    release();
                    parse_initializer(target, depth + 1);
                } while (accept_punct(','));
            }
            expect_punct('}', "to close the initializer list");
            return;
        }
        const std::string_view variable = target.name.text;
        const Token& t = peek();
        if (t.kind == TokenKind::word) {
            // A function's name: its address (a function pointer table). Variable addresses are not supported.
            const auto f = function_index_.find(t.text);
            if (f == function_index_.end() || functions_[f->second].is_entry)
                fail(t, "address-of initializers ('" + std::string(t.text) + "' in the initializer of '" +
                            std::string(variable) + "') are only supported for function names (function pointers)");
            if (ir::size_bytes(target.type) != 8 || ir::is_float(target.type))
                fail(t, "the function address '" + std::string(t.text) + "' needs a 64-bit integer variable ('" +
                            std::string(variable) + "' is ." + std::string(ir::name(target.type)) + ")");
            next();
            if (++target.count > target.capacity)
                fail(target.name, "too many initializers for '" + std::string(variable) + "' (" +
                                      std::to_string(target.count) + " for " + std::to_string(target.capacity) +
                                      " elements)");
            functions_[f->second].address_taken = true;
            const std::uint64_t address = function_address(f->second);
            for (unsigned i = 0; i < 8; ++i) target.bytes.push_back(static_cast<std::uint8_t>(address >> (8 * i)));
            return;
        }
        const bool negative = accept_punct('-');
        const Token& v = peek();
        InitValue value{&t, 0, RawOperand::Kind::integer, false};
        if (!parse_literal(v, negative, value.bits, value.kind, value.decimal))
            fail(v, "expected a constant in the initializer of '" + std::string(variable) + "', found " + describe(v));
        next();
        if (++target.count > target.capacity)
            fail(target.name, "too many initializers for '" + std::string(variable) + "' (" +
                                  std::to_string(target.count) + " for " + std::to_string(target.capacity) + " elements)");
        encode_initializer(value, target.type, target.bytes);
    }

    // Literal token -> bits. Integer bits are two's complement; f32/f64 are IEEE bits; a decimal float is f64.
    bool parse_literal(const Token& v, bool negative, std::uint64_t& bits, RawOperand::Kind& kind, bool& decimal) {
        decimal = false;
        switch (v.kind) {
        case TokenKind::integer: {
            const auto value = integer_literal_bits(v.text);
            if (!value) fail(v, "integer literal " + std::string(v.text) + " does not fit in 64 bits");
            bits = negative ? (~*value + 1) : *value;
            kind = RawOperand::Kind::integer;
            return true;
        }
        case TokenKind::f32_hex: {
            bits = *hex_float_bits(v.text);
            if (negative) bits ^= 0x80000000ULL;
            kind = RawOperand::Kind::f32;
            return true;
        }
        case TokenKind::f64_hex: {
            bits = *hex_float_bits(v.text);
            if (negative) bits ^= 0x8000000000000000ULL;
            kind = RawOperand::Kind::f64;
            return true;
        }
        case TokenKind::decimal_float: {
            const auto value = decimal_float_value(v.text);
            if (!value) fail(v, "floating-point literal " + std::string(v.text) + " is out of range");
            bits = f64_bits(negative ? -*value : *value);
            kind = RawOperand::Kind::f64;
            decimal = true;
            return true;
        }
        default:
            return false;
        }
    }

    // Encodes one initializer value as `type` and appends its little-endian bytes.
    void encode_initializer(const InitValue& v, ir::ScalarType type, std::vector<std::uint8_t>& bytes) {
        std::uint64_t bits = 0;
        const unsigned size = ir::size_bytes(type);
        if (type == ir::ScalarType::f32 || type == ir::ScalarType::f64) {
            double value = 0;
            if (v.kind == RawOperand::Kind::integer) value = static_cast<double>(static_cast<std::int64_t>(v.bits));
            else if (v.kind == RawOperand::Kind::f32) value = f32_from_bits(static_cast<std::uint32_t>(v.bits));
            else value = f64_from_bits(v.bits);
            bits = type == ir::ScalarType::f32 ? f32_bits(static_cast<float>(value)) : f64_bits(value);
        } else {
            if (v.kind != RawOperand::Kind::integer && ir::is_float(type))
                fail(*v.at, "a ." + std::string(ir::name(type)) + " initializer must be an integer bit pattern");
            if (v.decimal) fail(*v.at, "a decimal floating-point initializer needs an .f32 or .f64 variable");
            bits = v.bits;
            if (v.kind != RawOperand::Kind::integer && size < ((v.kind == RawOperand::Kind::f32) ? 4U : 8U))
                fail(*v.at, "floating-point bit pattern does not fit in ." + std::string(ir::name(type)));
            if (v.kind == RawOperand::Kind::integer && !fits_integer(bits, size))
                fail(*v.at, "initializer " + std::string(v.at->text) + " does not fit in ." + std::string(ir::name(type)));
        }
        for (unsigned i = 0; i < size; ++i) bytes.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
    }

    static bool fits_integer(std::uint64_t bits, unsigned size) {
        if (size >= 8) return true;
        const auto value = static_cast<std::int64_t>(bits);
        const std::int64_t lo = -(std::int64_t{1} << (8 * size - 1));
        const std::int64_t hi = (std::int64_t{1} << (8 * size)) - 1;
        return value >= lo && value <= hi;
    }

    void parse_variables(const Linkage& linkage, bool module_scope) {
        const Token space_token = next(); // copies: an initializer releases the tokens it has read
        const ir::StateSpace space = space_of_directive(space_token.text);
        if (!module_scope) {
            if (space == ir::StateSpace::global || space == ir::StateSpace::constant)
                fail(space_token, "function-scope " + std::string(space_token.text) + " variables are not supported");
            if (space == ir::StateSpace::shared && !function_->is_entry)
                fail(space_token, ".shared variables inside a .func are not supported (declare them at module scope)");
        }
        const DeclType dt = parse_decl_type(/*allow_pred=*/false);
        do {
            const Token name_token = expect_word("a variable name");
            if (name_token.text.front() == '%') fail(name_token, "variable names cannot start with '%'");
            const std::string name(name_token.text);
            auto [count, open] = parse_dimensions();
            ir::Symbol symbol;
            symbol.name = name;
            symbol.space = space;
            symbol.type = dt.type;
            symbol.alignment = dt.alignment != 0 ? dt.alignment : ir::size_bytes(dt.type) * dt.vector;
            symbol.is_extern = linkage.is_extern;
            symbol.is_visible = linkage.is_visible;
            symbol.line = name_token.line;
            if (accept_punct('=')) {
                if (space != ir::StateSpace::global && space != ir::StateSpace::constant)
                    fail(name_token, "only .global and .const variables can have initializers");
                if (linkage.is_extern) fail(name_token, "an .extern variable cannot have an initializer");
                InitTarget target{name_token, dt.type, open ? ~std::uint64_t{0} : count * dt.vector, 0,
                                  symbol.initializer};
                parse_initializer(target);
                if (open) count = (target.count + dt.vector - 1) / dt.vector;
            }
            symbol.element_count = count * dt.vector;
            symbol.size_bytes = symbol.element_count * ir::size_bytes(dt.type);
            if (count == 0) {
                if (!(space == ir::StateSpace::shared && linkage.is_extern))
                    fail(name_token, "an array without a size is only allowed for .extern .shared (dynamic shared memory)");
            }
            if (linkage.is_extern && !(space == ir::StateSpace::shared && count == 0))
                fail(name_token, "external variable '" + name +
                                     "' is defined in another module (separate compilation and linking are not supported)");
            if (count != 0) account_variable(name_token, symbol, module_scope);
            if (module_scope) declare_global(name_token, std::move(symbol));
            else declare_local_symbol(name_token, std::move(symbol));
        } while (accept_punct(','));
        expect_punct(';', "after a variable declaration");
    }

    // ------------------------------------------------------------------ resource limits
    // Adds a sized variable to its segment, laid out as ir/layout.hpp will lay it out, and fails at its name when
    // the segment passes its limit (ptx/limits.hpp). A kernel's own .shared variables follow the module's.
    void account_variable(const Token& at, const ir::Symbol& s, bool module_scope) {
        const auto add = [&](std::uint64_t& used, std::uint64_t base, std::uint64_t limit, const std::string& what,
                             std::string_view rule, std::string_view knob) {
            used = ir::align_up(used, ir::effective_alignment(s)) + s.size_bytes;
            if (base + used > limit)
                fail(at, "'" + s.name + "' brings " + what + " to " + std::to_string(base + used) + " bytes, more than the " +
                             std::to_string(limit) + " " + std::string(rule) + " (ptx::Limits::" + std::string(knob) + ")");
        };
        const std::string function = function_ ? "'" + function_->body.name + "'" : std::string();
        switch (s.space) {
        case ir::StateSpace::local:
        case ir::StateSpace::param:
            add(function_local_bytes_, 0, limits_.max_local_bytes_per_thread, "the local memory of " + function,
                "bytes per thread CUDA allows", "max_local_bytes_per_thread");
            break;
        case ir::StateSpace::shared:
            if (module_scope)
                add(module_shared_bytes_, 0, limits_.max_static_shared_bytes, "the module's static shared memory",
                    "bytes of static shared memory CUDA allows per block", "max_static_shared_bytes");
            else
                add(function_shared_bytes_, module_shared_bytes_, limits_.max_static_shared_bytes,
                    "the static shared memory of " + function + " (with the module's)",
                    "bytes of static shared memory CUDA allows per block", "max_static_shared_bytes");
            break;
        case ir::StateSpace::constant:
            add(module_const_bytes_, 0, limits_.max_const_bytes, "the module's constant memory",
                "bytes of constant memory CUDA provides", "max_const_bytes");
            break;
        case ir::StateSpace::global:
            add(module_global_bytes_, 0, limits_.max_global_bytes, "the module's .global variables", "bytes allowed",
                "max_global_bytes");
            break;
        default:
            break;
        }
    }

    // Called at each instruction's first token, before it is read.
    void count_instruction(const Token& at) {
        if (function_->body.code.size() >= limits_.max_function_instructions)
            fail(at, "'" + function_->body.name + "' has more than " + std::to_string(limits_.max_function_instructions) +
                         " instructions (ptx::Limits::max_function_instructions)");
        if (++module_instructions_ > limits_.max_module_instructions)
            fail(at, "the module has more than " + std::to_string(limits_.max_module_instructions) +
                         " instructions (ptx::Limits::max_module_instructions)");
    }

    // After layout, the totals a kernel reaches only through inlining (its callees' .local and call-sequence
    // .param variables) or through module variables declared after it; reported at the kernel's name.
    void check_kernel_segments() const {
        for (const ir::Kernel& k : module_.kernels) {
            const auto found = function_index_.find(k.name);
            const std::uint32_t column = found != function_index_.end() ? functions_[found->second].column : 0;
            const auto check = [&](std::uint64_t used, std::uint64_t limit, std::string_view what, std::string_view knob) {
                if (used > limit)
                    fail_at(k.line, column, "kernel '" + k.name + "' needs " + std::to_string(used) + " bytes of " +
                                                std::string(what) + ", more than the " + std::to_string(limit) +
                                                " CUDA allows (ptx::Limits::" + std::string(knob) + ")");
            };
            check(k.local_bytes, limits_.max_local_bytes_per_thread, "local memory per thread after inlining",
                  "max_local_bytes_per_thread");
            check(k.shared_bytes, limits_.max_static_shared_bytes, "static shared memory", "max_static_shared_bytes");
            check(k.param_bytes, limits_.max_kernel_param_bytes, "kernel parameters", "max_kernel_param_bytes");
        }
    }

    void declare_global(const Token& at, ir::Symbol symbol) {
        if (global_index_.count(symbol.name) != 0 || function_index_.count(symbol.name) != 0)
            fail(at, "redeclaration of '" + symbol.name + "'");
        global_index_.emplace(symbol.name, static_cast<ir::SymbolId>(module_.globals.size()));
        module_.globals.push_back(std::move(symbol));
    }

    void declare_local_symbol(const Token& at, ir::Symbol symbol) {
        auto& scope = symbol_scopes_.back();
        if (scope.count(symbol.name) != 0 || register_scopes_.back().count(symbol.name) != 0)
            fail(at, "redeclaration of '" + symbol.name + "' in the same scope");
        const auto id = static_cast<ir::SymbolId>(function_->body.symbols.size());
        scope.emplace(symbol.name, id);
        function_->body.symbols.push_back(std::move(symbol));
    }

    // ------------------------------------------------------------------ functions
    // Releases the tokens of each parameter once it is read: callers hold no Token reference across the call.
    // A kernel's parameters are checked against CUDA's parameter-space limit as they are read.
    // prototype: a `.callprototype` list, whose parameters may all be named `_`.
    void parse_param_list(std::vector<ir::Param>& params, bool is_entry, bool prototype = false) {
        expect_punct('(', "to open a parameter list");
        if (accept_punct(')')) return;
        std::unordered_set<std::string_view> names; // views of the input text
        std::uint64_t param_bytes = 0;
        do {
            release();
            const Token& t = peek();
            if (t.is_directive(".reg"))
                fail(t, ".reg parameters are not supported (nvcc passes parameters in the .param space)");
            if (!t.is_directive(".param")) fail(t, "expected .param, found " + describe(t));
            next();
            ir::Param param;
            std::uint32_t alignment = 0;
            ir::ScalarType type = ir::ScalarType::none;
            while (type == ir::ScalarType::none) {
                const Token& m = peek();
                if (m.is_directive(".align")) {
                    next();
                    alignment = parse_alignment();
                } else if (auto ty = type_directive(m)) {
                    next();
                    if (*ty == ir::ScalarType::pred) fail(m, ".pred parameters are not supported");
                    type = *ty;
                } else if (m.is_directive(".texref") || m.is_directive(".samplerref") || m.is_directive(".surfref")) {
                    fail(m, "texture and surface parameters (" + std::string(m.text) + ") are not supported");
                } else {
                    fail(m, "expected a parameter type, found " + describe(m));
                }
            }
            // Pointer attributes: .ptr [.space] [.align N]
            if (peek().is_directive(".ptr")) {
                const Token& ptr = next();
                if (!is_entry) fail(ptr, ".ptr is only allowed on kernel parameters");
                param.is_pointer = true;
                const ir::StateSpace s = space_of_directive(peek().text);
                if (peek().kind == TokenKind::directive &&
                    (s == ir::StateSpace::global || s == ir::StateSpace::shared || s == ir::StateSpace::constant ||
                     s == ir::StateSpace::local))
                    next();
                if (peek().is_directive(".align")) {
                    next();
                    parse_alignment(); // alignment of the pointee: a hint that does not affect the parameter
                }
            }
            const Token& name_token = expect_word("a parameter name");
            auto [count, open] = parse_dimensions();
            if (open) fail(name_token, "parameter arrays need a size");
            param.name = std::string(name_token.text);
            param.type = type;
            const std::uint64_t size = count * ir::size_bytes(type);
            if (size > 0xffffffffULL) fail(name_token, "parameter is too large");
            param.size_bytes = static_cast<std::uint32_t>(size);
            param.alignment = alignment != 0 ? alignment : ir::size_bytes(type);
            if (!(prototype && name_token.text == "_") && !names.insert(name_token.text).second)
                fail(name_token, "duplicate parameter '" + param.name + "'");
            if (is_entry) {
                param_bytes = ir::align_up(param_bytes, param.alignment) + param.size_bytes;
                if (param_bytes > limits_.max_kernel_param_bytes)
                    fail(name_token, "parameter '" + param.name + "' brings the kernel's parameters to " +
                                         std::to_string(param_bytes) + " bytes, more than the " +
                                         std::to_string(limits_.max_kernel_param_bytes) +
                                         " CUDA allows (ptx::Limits::max_kernel_param_bytes)");
            }
            params.push_back(std::move(param));
        } while (accept_punct(','));
        expect_punct(')', "to close a parameter list");
    }

    void parse_function(const Linkage& linkage) {
        const Token& kind = next();
        Function f;
        f.is_entry = kind.text == ".entry";
        if (!f.is_entry && peek().is_punct('(')) {
            parse_param_list(f.body.params, false);
            f.num_returns = static_cast<std::uint32_t>(f.body.params.size());
        }
        const Token name_token = expect_word("a function name"); // a copy: parse_param_list releases tokens
        if (name_token.text.front() == '%') fail(name_token, "function names cannot start with '%'");
        f.body.name = std::string(name_token.text);
        f.body.line = name_token.line;
        f.column = name_token.column;
        if (peek().is_punct('(')) {
            std::vector<ir::Param> inputs;
            parse_param_list(inputs, f.is_entry);
            const NameMap<char> returns = [&] {
                NameMap<char> names;
                for (std::uint32_t r = 0; r < f.num_returns; ++r) names.emplace(f.body.params[r].name, 0);
                return names;
            }();
            for (const auto& p : inputs)
                if (returns.count(p.name) != 0) fail(name_token, "duplicate parameter '" + p.name + "'");
            if (f.body.params.empty()) f.body.params = std::move(inputs); // no second copy of a long list
            else for (auto& p : inputs) f.body.params.push_back(std::move(p));
        }
        // Performance-tuning directives (entries) and .noreturn (functions).
        while (peek().kind == TokenKind::directive) {
            const Token& d = peek();
            auto& dir = f.body.directives;
            if (d.text == ".maxntid" || d.text == ".reqntid") {
                if (!f.is_entry) fail(d, std::string(d.text) + " is only allowed on an .entry");
                next();
                std::array<std::uint32_t, 3> dims{1, 1, 1};
                for (int i = 0; i < 3; ++i) {
                    const Token& v = peek();
                    dims[static_cast<std::size_t>(i)] = parse_u32("thread count");
                    if (dims[static_cast<std::size_t>(i)] == 0) fail(v, std::string(d.text) + " values must be positive");
                    if (!accept_punct(',')) break;
                }
                auto& slot = d.text == ".maxntid" ? dir.maxntid : dir.reqntid;
                if (slot) fail(d, "duplicate " + std::string(d.text));
                slot = dims;
            } else if (d.text == ".minnctapersm" || d.text == ".maxnreg") {
                if (!f.is_entry) fail(d, std::string(d.text) + " is only allowed on an .entry");
                next();
                auto& slot = d.text == ".minnctapersm" ? dir.minnctapersm : dir.maxnreg;
                if (slot) fail(d, "duplicate " + std::string(d.text));
                slot = parse_u32(d.text.substr(1));
            } else if (d.text == ".noreturn") {
                if (f.is_entry) fail(d, ".noreturn is only allowed on a .func");
                next();
            } else if (d.text == ".pragma") {
                parse_pragma();
            } else if (d.text == ".maxnctapersm") {
                fail(d, ".maxnctapersm is deprecated and not supported (use .minnctapersm)");
            } else {
                fail(d, "unsupported directive " + describe(d) + " in a function header");
            }
        }
        const std::string name = f.body.name;
        if (global_index_.count(name) != 0) fail(name_token, "'" + name + "' is already declared as a variable");
        auto existing = function_index_.find(name);
        if (accept_punct(';')) {
            // A prototype: remember it so calls can name it (and fail clearly if it is never defined).
            if (existing == function_index_.end()) {
                function_index_.emplace(name, functions_.size());
                functions_.push_back(std::move(f));
            } else if (functions_[existing->second].is_entry != f.is_entry) {
                fail(name_token, "'" + name + "' is declared both as .entry and as .func");
            }
            return;
        }
        if (linkage.is_extern) fail(name_token, "an .extern function cannot have a body");
        if (!peek().is_punct('{')) fail(peek(), "expected '{' or ';' after the header of '" + name + "', found " + describe(peek()));
        std::size_t index = functions_.size();
        if (existing != function_index_.end()) {
            Function& old = functions_[existing->second];
            if (old.defined) fail(name_token, "redefinition of '" + name + "'");
            if (old.is_entry != f.is_entry) fail(name_token, "'" + name + "' is declared both as .entry and as .func");
            if (old.body.params.size() != f.body.params.size() || old.num_returns != f.num_returns)
                fail(name_token, "definition of '" + name + "' does not match its earlier declaration");
            index = existing->second;
            f.address_taken = old.address_taken; // named as a value (a function pointer) before its body
            functions_[index] = std::move(f);
        } else {
            function_index_.emplace(name, index);
            functions_.push_back(std::move(f));
        }
        functions_[index].defined = true;
        parse_body(functions_[index]);
    }

    // ------------------------------------------------------------------ function bodies
    struct LabelRef {
        ir::Pc pc;
        Token name; // a copy: the statement's tokens are released before labels are resolved
    };

    void parse_body(Function& f) {
        function_ = &f;
        register_scopes_.assign(1, {});
        symbol_scopes_.assign(1, {});
        labels_.clear();
        label_refs_.clear();
        prototypes_.clear();
        param_index_.clear();
        function_local_bytes_ = 0;
        function_shared_bytes_ = 0;
        for (std::size_t i = 0; i < f.body.params.size(); ++i)
            param_index_.emplace(f.body.params[i].name, static_cast<ir::SymbolId>(i));
        expect_punct('{', "to open a function body");
        int depth = 1;
        Token close{};
        while (depth > 0) {
            release();
            const Token& t = peek();
            if (t.kind == TokenKind::end) fail(t, "unexpected end of input inside the body of '" + f.body.name + "'");
            if (t.is_punct('{')) {
                next();
                if (depth >= 64) fail(t, "scopes nested too deeply");
                register_scopes_.emplace_back();
                symbol_scopes_.emplace_back();
                ++depth;
                continue;
            }
            if (t.is_punct('}')) {
                next();
                register_scopes_.pop_back();
                symbol_scopes_.pop_back();
                --depth;
                close = t;
                continue;
            }
            if (t.is_punct(';')) {
                next();
                continue;
            }
            if (t.kind == TokenKind::directive) {
                parse_body_directive();
                continue;
            }
            if (t.kind == TokenKind::word && peek(1).is_punct(':')) {
                define_label(t);
                continue;
            }
            if (t.is_punct('@') || t.kind == TokenKind::word) {
                parse_statement();
                continue;
            }
            fail(t, "expected an instruction, declaration or label, found " + describe(t));
        }
        auto& code = f.body.code;
        for (const LabelRef& ref : label_refs_) {
            auto it = labels_.find(ref.name.text);
            if (it == labels_.end()) fail(ref.name, "unknown label '" + std::string(ref.name.text) + "'");
            code[ref.pc].operands[0].target = it->second;
        }
        // Falling off the end of a body returns: make it explicit so every path ends in ret/exit/bra.
        bool needs_ret = code.empty();
        if (!code.empty()) {
            const ir::Instruction& last = code.back();
            const bool terminates = last.guard.reg == ir::no_reg &&
                                    (last.op == ir::Opcode::ret || last.op == ir::Opcode::exit || last.op == ir::Opcode::bra);
            needs_ret = !terminates;
        }
        for (const auto& [name, pc] : labels_)
            if (pc == code.size()) needs_ret = true;
        if (needs_ret) {
            if (code.size() >= limits_.max_function_instructions)
                fail(close, "'" + f.body.name + "' has more than " + std::to_string(limits_.max_function_instructions) +
                                " instructions with the ret added at its end (ptx::Limits::max_function_instructions)");
            ir::Instruction ret;
            ret.op = ir::Opcode::ret;
            ret.line = close.line;
            ret.column = 1;
            code.push_back(ret);
        }
        f.body.labels.reserve(labels_.size());
        for (const auto& [name, pc] : labels_) f.body.labels.emplace_back(name, pc);
        std::sort(f.body.labels.begin(), f.body.labels.end(),
                  [](const auto& a, const auto& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
        function_ = nullptr;
    }

    void define_label(const Token& t) {
        next();
        next(); // ':'
        if (t.text.front() == '%') fail(t, "label names cannot start with '%'");
        if (peek().is_directive(".callprototype")) return define_prototype(t);
        const auto pc = static_cast<ir::Pc>(function_->body.code.size());
        if (!labels_.emplace(std::string(t.text), pc).second) fail(t, "duplicate label '" + std::string(t.text) + "'");
    }

    // `name: .callprototype [(.param ... _)] _ (.param ... _, ...);`: the signature an indirect call names. Only
    // the parameters' sizes matter: an indirect call binds its arguments to the target's parameters by position.
    void define_prototype(const Token& name) {
        const std::string label(name.text);
        next(); // .callprototype
        CallPrototype proto;
        std::vector<ir::Param> params;
        if (peek().is_punct('(')) {
            parse_param_list(params, false, true);
            for (const ir::Param& p : params) proto.returns.push_back(p.size_bytes);
            params.clear();
        }
        const Token& underscore = expect_word("'_' (the prototype's name placeholder)");
        if (underscore.text != "_") fail(underscore, "expected '_' in a .callprototype, found " + describe(underscore));
        if (peek().is_punct('(')) {
            parse_param_list(params, false, true);
            for (const ir::Param& p : params) proto.args.push_back(p.size_bytes);
        }
        if (peek().is_directive(".noreturn") || peek().is_directive(".abi_preserve") ||
            peek().is_directive(".abi_preserve_control"))
            fail(peek(), "'" + std::string(peek().text) + "' on a .callprototype is not supported");
        expect_punct(';', "after a .callprototype");
        if (!prototypes_.emplace(label, std::move(proto)).second)
            fail_at(name.line, name.column, "duplicate call prototype '" + label + "'");
    }

    void parse_body_directive() {
        const Token& t = peek();
        const std::string_view d = t.text;
        if (d == ".reg") {
            parse_registers();
        } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".global" || d == ".const") {
            parse_variables(Linkage{}, /*module_scope=*/false);
        } else if (d == ".pragma") {
            parse_pragma();
        } else if (d == ".loc" || d == ".file") {
            skip_line(t);
        } else if (d == ".tex" || d == ".texref" || d == ".surfref" || d == ".samplerref") {
            fail(t, "texture and surface declarations (" + std::string(d) + ") are not supported");
        } else if (d == ".extern" || d == ".visible" || d == ".weak") {
            fail(t, "linking directive " + std::string(d) + " is not allowed inside a function body");
        } else {
            fail(t, "unexpected directive " + describe(t) + " inside a function body");
        }
    }

    void parse_registers() {
        const Token& reg = next();
        if (peek().is_directive(".v2") || peek().is_directive(".v4") || peek().is_directive(".v8"))
            fail(peek(), "vector registers (.reg " + std::string(peek().text) + ") are not supported");
        const Token& type_token = peek();
        const auto type = type_directive(type_token);
        if (!type) fail(type_token, "expected a register type after .reg, found " + describe(type_token));
        next();
        (void)reg;
        do {
            release(); // a long list of names is read name by name
            const Token& name_token = expect_word("a register name");
            const std::string_view name = name_token.text;
            if (accept_punct('<')) {
                const Token& n = peek();
                const std::uint32_t count = parse_u32("register count");
                expect_punct('>', "after a register count");
                if (count > limits_.max_function_registers)
                    fail(n, "register count " + std::to_string(count) + " is too large (at most " +
                                std::to_string(limits_.max_function_registers) + " registers per function)");
                for (std::uint32_t i = 0; i < count; ++i)
                    declare_register(name_token, std::string(name) + std::to_string(i), *type);
            } else {
                declare_register(name_token, std::string(name), *type);
            }
        } while (accept_punct(','));
        expect_punct(';', "after a register declaration");
    }

    void declare_register(const Token& at, std::string name, ir::ScalarType type) {
        auto& scope = register_scopes_.back();
        if (scope.count(name) != 0 || symbol_scopes_.back().count(name) != 0)
            fail(at, "redeclaration of register '" + name + "' in the same scope");
        auto& regs = function_->body.registers;
        if (regs.size() >= limits_.max_function_registers)
            fail(at, "too many registers in '" + function_->body.name + "' (at most " +
                         std::to_string(limits_.max_function_registers) + ")");
        if (++module_registers_ > limits_.max_module_registers)
            fail(at, "the module declares more than " + std::to_string(limits_.max_module_registers) +
                         " registers (ptx::Limits::max_module_registers)");
        scope.emplace(name, static_cast<ir::RegId>(regs.size()));
        regs.push_back(ir::RegisterInfo{std::move(name), type});
    }

    // ------------------------------------------------------------------ name resolution
    std::optional<ir::RegId> find_register(std::string_view name) const {
        for (auto it = register_scopes_.rbegin(); it != register_scopes_.rend(); ++it) {
            auto found = it->find(name);
            if (found != it->end()) return found->second;
        }
        return std::nullopt;
    }

    struct SymbolRef {
        ir::SymbolScope scope;
        ir::SymbolId id;
        ir::StateSpace space;
    };
    std::optional<SymbolRef> find_symbol(std::string_view name) const {
        for (auto it = symbol_scopes_.rbegin(); it != symbol_scopes_.rend(); ++it) {
            auto found = it->find(name);
            if (found != it->end())
                return SymbolRef{ir::SymbolScope::kernel_local, found->second, function_->body.symbols[found->second].space};
        }
        if (auto found = param_index_.find(name); found != param_index_.end())
            return SymbolRef{ir::SymbolScope::kernel_param, found->second, ir::StateSpace::param};
        if (auto found = global_index_.find(name); found != global_index_.end())
            return SymbolRef{ir::SymbolScope::module, found->second, module_.globals[found->second].space};
        return std::nullopt;
    }

    static std::optional<ir::SpecialReg> find_special(std::string_view name) {
        return lookup_name(name, all_special_regs);
    }

    ir::ScalarType register_type(ir::RegId id) const { return function_->body.registers[id].type; }

    // A name in a register position: declared register, else special register, else an error that says which.
    ir::RegId resolve_register(const Token& t) const {
        if (auto r = find_register(t.text)) return *r;
        if (find_special(t.text) || is_known_unsupported_special(t.text))
            fail(t, "special register '" + std::string(t.text) + "' cannot be used here");
        if (find_symbol(t.text)) fail(t, "'" + std::string(t.text) + "' is a variable, not a register");
        fail(t, "undeclared register '" + std::string(t.text) + "'");
    }

    // ------------------------------------------------------------------ statements
    struct Part {
        std::string_view text;
        std::uint32_t column;
    };

    void parse_statement() {
        ir::Instruction inst;
        if (accept_punct('@')) {
            inst.guard.negated = accept_punct('!');
            const Token& g = expect_word("a guard predicate register");
            inst.guard.reg = resolve_register(g);
            if (register_type(inst.guard.reg) != ir::ScalarType::pred)
                fail(g, "guard '" + std::string(g.text) + "' is not a .pred register");
        }
        const Token& op_token = expect_word("an instruction");
        count_instruction(op_token);
        inst.line = op_token.line;
        inst.column = op_token.column;
        // Split the opcode word into its head and modifiers, remembering each part's column.
        std::vector<Part> parts;
        {
            const std::string_view text = op_token.text;
            std::size_t start = 0;
            for (std::size_t i = 0; i <= text.size(); ++i) {
                if (i == text.size() || text[i] == '.') {
                    parts.push_back(Part{text.substr(start, i - start), op_token.column + static_cast<std::uint32_t>(start)});
                    start = i + 1;
                }
            }
        }
        const std::string_view head = parts[0].text;
        if (head.front() == '%' || head.front() == '$')
            fail(op_token, "expected an instruction, found " + describe(op_token));
        if (head == "cp" && parts.size() > 1 && parts[1].text == "async") {
            parse_cp_async(inst, op_token, parts);
            return;
        }
        if (auto reason = unsupported_reason(head); !reason.empty())
            fail(op_token, "unsupported instruction '" + std::string(op_token.text) + "': " + std::string(reason));
        auto op = opcode_from_head(head);
        if (!op) {
            if (peek().is_punct(':')) fail(op_token, "label '" + std::string(op_token.text) + "' needs no guard");
            fail(op_token, "unsupported instruction '" + std::string(op_token.text) + "'");
        }
        inst.op = *op;
        std::size_t first_modifier = 1;
        if (head == "bar" && parts.size() > 1 && parts[1].text == "warp") {
            inst.op = ir::Opcode::bar_warp_sync;
            first_modifier = 2;
        }
        if (inst.op == ir::Opcode::call) {
            parse_call(inst, op_token, parts);
            return;
        }
        if (inst.op == ir::Opcode::tex || inst.op == ir::Opcode::suld || inst.op == ir::Opcode::sust) {
            parse_texture(inst, op_token, parts);
            return;
        }
        std::vector<std::pair<ir::ScalarType, Part>> types;
        for (std::size_t i = first_modifier; i < parts.size(); ++i) apply_modifier(inst, op_token, head, parts[i], types);
        finish_modifiers(inst, op_token, head, parts, types);

        std::vector<RawOperand> raw;
        if (!peek().is_punct(';')) {
            do {
                raw.push_back(parse_raw_operand());
            } while (accept_punct(','));
        }
        const Token& semi = peek();
        if (!semi.is_punct(';')) fail(semi, "expected ',' or ';' after an operand of '" + std::string(op_token.text) + "', found " + describe(semi));
        next();
        if (inst.op == ir::Opcode::vabsdiff4)
            for (const RawOperand& r : raw)
                if (r.name && r.name->text.find('.') != std::string_view::npos)
                    fail(*r.name, "byte selectors and masks on vabsdiff4 operands ('" + std::string(r.name->text) +
                                      "') are not supported; nvcc's __vabsdiff*4 and __vsad*4 use the defaults");
        const std::vector<RoleSpec> roles = operand_roles(inst, op_token, raw);
        if (raw.size() != roles.size())
            fail(raw.size() > roles.size() ? *raw[roles.size()].at : op_token,
                 "'" + std::string(op_token.text) + "' expects " + std::to_string(roles.size()) + " operand" +
                     (roles.size() == 1 ? "" : "s") + ", found " + std::to_string(raw.size()));
        if (raw.size() > inst.operands.size()) fail(op_token, "too many operands");
        inst.num_operands = static_cast<std::uint8_t>(raw.size());
        for (std::size_t i = 0; i < raw.size(); ++i)
            inst.operands[i] = convert_operand(inst, op_token, raw[i], roles[i], i);
        check_instruction(inst, op_token, raw);
        function_->body.code.push_back(inst);
    }

    // ---- modifiers
    [[noreturn]] void fail_part(const Token& op_token, const Part& part, const std::string& message) const {
        fail_at(op_token.line, part.column, message);
    }

    template <class T>
    void set_once(T& field, T value, const Token& op_token, const Part& part) const {
        if (field != T{}) fail_part(op_token, part, "duplicate or conflicting modifier '." + std::string(part.text) + "'");
        field = value;
    }
    void set_flag(bool& flag, const Token& op_token, const Part& part) const {
        if (flag) fail_part(op_token, part, "duplicate modifier '." + std::string(part.text) + "'");
        flag = true;
    }

    static bool one_of(ir::Opcode op, std::initializer_list<ir::Opcode> ops) {
        return std::find(ops.begin(), ops.end(), op) != ops.end();
    }

    void apply_modifier(ir::Instruction& inst, const Token& op_token, std::string_view head, const Part& part,
                        std::vector<std::pair<ir::ScalarType, Part>>& types) {
        using ir::Opcode;
        const std::string_view m = part.text;
        const Opcode op = inst.op;
        if (m.empty()) fail_part(op_token, part, "empty modifier in '" + std::string(op_token.text) + "'");
        if (auto t = lookup_name(m, all_scalar_types)) {
            types.emplace_back(*t, part);
            return;
        }
        if (one_of(op, {Opcode::add, Opcode::sub, Opcode::mul, Opcode::mad, Opcode::fma, Opcode::div, Opcode::rcp,
                        Opcode::sqrt, Opcode::cvt})) {
            if (auto r = lookup_name(m, all_float_roundings)) {
                if (*r == ir::Rounding::rna && op != Opcode::cvt)
                    fail_part(op_token, part, "rounding .rna is only allowed on cvt");
                return set_once(inst.rounding, *r, op_token, part);
            }
        }
        if (op == Opcode::cvt)
            if (auto r = lookup_name(m, all_integer_roundings)) return set_once(inst.rounding, *r, op_token, part);
        if (m == "ftz" && one_of(op, {Opcode::add, Opcode::sub, Opcode::mul, Opcode::mad, Opcode::fma, Opcode::div,
                                      Opcode::rcp, Opcode::sqrt, Opcode::rsqrt, Opcode::sin, Opcode::cos,
                                      Opcode::lg2, Opcode::ex2, Opcode::abs, Opcode::neg, Opcode::min, Opcode::max,
                                      Opcode::setp, Opcode::set, Opcode::cvt, Opcode::slct, Opcode::tanh,
                                      Opcode::testp}))
            return set_flag(inst.ftz, op_token, part);
        if (m == "sat" && one_of(op, {Opcode::add, Opcode::sub, Opcode::mul, Opcode::mad, Opcode::fma, Opcode::cvt}))
            return set_flag(inst.sat, op_token, part);
        if (m == "cc" && one_of(op, {Opcode::add, Opcode::sub, Opcode::mad, Opcode::addc, Opcode::subc, Opcode::madc}))
            return set_flag(inst.carry_out, op_token, part);
        if (one_of(op, {Opcode::mul, Opcode::mad, Opcode::mul24, Opcode::mad24, Opcode::madc})) {
            if (m == "lo") return set_once(inst.mul_mode, ir::MulMode::lo, op_token, part);
            if (m == "hi") return set_once(inst.mul_mode, ir::MulMode::hi, op_token, part);
            if (m == "wide" && one_of(op, {Opcode::mul, Opcode::mad}))
                return set_once(inst.mul_mode, ir::MulMode::wide, op_token, part);
        }
        if (m == "approx" && one_of(op, {Opcode::div, Opcode::rcp, Opcode::sqrt, Opcode::rsqrt, Opcode::sin,
                                         Opcode::cos, Opcode::lg2, Opcode::ex2, Opcode::tanh}))
            return set_flag(inst.approx, op_token, part);
        if (m == "full" && op == Opcode::div) return set_flag(inst.full, op_token, part);
        if (one_of(op, {Opcode::setp, Opcode::set})) {
            if (auto c = lookup_name(m, all_compare_ops)) return set_once(inst.cmp, *c, op_token, part);
            if (auto b = lookup_name(m, all_bool_ops)) return set_once(inst.bool_op, *b, op_token, part);
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::cvta})) {
            if (auto s = lookup_name(m, all_memory_spaces)) return set_once(inst.space, *s, op_token, part);
            if (m == "to" && op == Opcode::cvta) return set_flag(inst.to_space, op_token, part);
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::fence})) {
            if (auto o = lookup_name(m, all_mem_orders)) return set_once(inst.order, *o, op_token, part);
            if (m == "mmio") fail_part(op_token, part, "the .mmio qualifier is not supported");
        }
        if (one_of(op, {Opcode::ld, Opcode::st, Opcode::atom, Opcode::red, Opcode::fence, Opcode::membar})) {
            if (op == Opcode::membar && m == "gl") return set_once(inst.scope, ir::Scope::gpu, op_token, part);
            if (auto s = lookup_name(m, all_scopes)) {
                if (op == Opcode::membar && *s == ir::Scope::gpu)
                    fail_part(op_token, part, "membar uses .gl for the GPU scope");
                return set_once(inst.scope, *s, op_token, part);
            }
            if (m == "proxy") fail_part(op_token, part, "proxy fences are not supported");
        }
        if (one_of(op, {Opcode::ld, Opcode::st})) {
            // Cache operators and eviction hints only steer the caches; values are unaffected, and the timing
            // model decides caching itself. Accepted and ignored (docs/ptx.md).
            static constexpr std::string_view ignored[] = {
                "ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged",
                "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B"};
            for (std::string_view s : ignored)
                if (m == s) return;
            if (m == "v2" || m == "v4") {
                if (inst.vector_width != 1) fail_part(op_token, part, "duplicate vector modifier '." + std::string(m) + "'");
                inst.vector_width = m == "v2" ? 2 : 4;
                return;
            }
            if (m == "v8") fail_part(op_token, part, ".v8 vectors are not supported");
            if (m == "nc" && op == Opcode::ld) return set_flag(inst.non_coherent, op_token, part);
            if (m == "L2::cache_hint") fail_part(op_token, part, "cache-policy operands (.L2::cache_hint) are not supported");
        }
        if (one_of(op, {Opcode::atom, Opcode::red})) {
            if (auto a = lookup_name(m, all_atom_ops)) return set_once(inst.atom_op, *a, op_token, part);
            if (m == "noftz") return; // the default for f16 atomics: no flush to zero
            if (m == "v2" || m == "v4" || m == "v8") fail_part(op_token, part, "vector atomics are not supported");
        }
        if (op == Opcode::shfl) {
            if (auto s = lookup_name(m, all_shfl_modes)) return set_once(inst.shfl_mode, *s, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part); // `uni` doubles as "seen .sync" until checked
        }
        if (op == Opcode::vote) {
            if (auto v = lookup_name(m, all_vote_modes)) return set_once(inst.vote_mode, *v, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part);
        }
        if (op == Opcode::match) {
            if (m == "any") return set_once(inst.vote_mode, ir::VoteMode::any, op_token, part);
            if (m == "all") return set_once(inst.vote_mode, ir::VoteMode::all, op_token, part);
            if (m == "sync") return set_flag(inst.uni, op_token, part);
        }
        if (op == Opcode::bar_warp_sync && m == "sync") return set_flag(inst.uni, op_token, part);
        if (op == Opcode::redux) {
            if (m == "sync") return set_flag(inst.uni, op_token, part); // `uni` marks "seen .sync" until checked
            if (auto a = lookup_name(m, all_atom_ops)) return set_once(inst.atom_op, *a, op_token, part);
            if (m == "abs" || m == "NaN")
                fail_part(op_token, part, "'." + std::string(m) + "' belongs to redux.sync on .f32 (sm_100a), which is not supported");
        }
        if (op == Opcode::dp2a) {
            if (m == "lo") return set_once(inst.mul_mode, ir::MulMode::lo, op_token, part);
            if (m == "hi") return set_once(inst.mul_mode, ir::MulMode::hi, op_token, part);
        }
        if (op == Opcode::vabsdiff4) {
            if (m == "sat") return set_flag(inst.sat, op_token, part);
            if (m == "add") return set_flag(inst.accumulate, op_token, part);
        }
        if (op == Opcode::prefetch || op == Opcode::prefetchu) {
            if (auto s = lookup_name(m, all_memory_spaces)) return set_once(inst.space, *s, op_token, part);
            if (auto l = lookup_name(m, all_cache_levels)) return set_once(inst.cache_level, *l, op_token, part);
            if (m == "tensormap") fail_part(op_token, part, "prefetch.tensormap (sm_90) is not supported");
        }
        if (op == Opcode::bar) {
            if (m == "sync") return set_once(inst.barrier, ir::BarrierMode::sync, op_token, part);
            if (m == "arrive") return set_once(inst.barrier, ir::BarrierMode::arrive, op_token, part);
            if (m == "red") return set_flag(inst.uni, op_token, part); // `uni` marks "seen .red" until checked
            if (m == "popc" || m == "and" || m == "or") {
                if (!inst.uni) fail_part(op_token, part, "'." + std::string(m) + "' must follow .red");
                const auto mode = m == "popc" ? ir::BarrierMode::red_popc
                                  : m == "and" ? ir::BarrierMode::red_and
                                               : ir::BarrierMode::red_or;
                return set_once(inst.barrier, mode, op_token, part);
            }
            if (m == "aligned" && head == "barrier") return set_flag(inst.full, op_token, part); // marks .aligned
            if (m == "cta") return set_once(inst.scope, ir::Scope::cta, op_token, part); // bar{.cta}: the only scope
        }
        if (m == "uni" && one_of(op, {Opcode::bra, Opcode::ret})) return set_flag(inst.uni, op_token, part);
        if (op == Opcode::shf) {
            if (m == "l" || m == "r") {
                if (inst.approx) fail_part(op_token, part, "duplicate shift direction");
                inst.approx = true; // marks "direction seen" until checked
                inst.funnel_right = m == "r";
                return;
            }
            if (m == "wrap" || m == "clamp") {
                if (inst.full) fail_part(op_token, part, "duplicate .wrap/.clamp");
                inst.full = true; // marks "mode seen" until checked
                inst.clamp = m == "clamp";
                return;
            }
        }
        if (op == Opcode::prmt)
            if (auto p = lookup_name(m, all_prmt_modes)) return set_once(inst.prmt, *p, op_token, part);
        if (op == Opcode::testp)
            if (auto t = lookup_name(m, all_test_kinds)) return set_once(inst.test, *t, op_token, part);
        if (op == Opcode::bfind && m == "shiftamt") return set_flag(inst.shiftamt, op_token, part);
        if (m == "NaN" && one_of(op, {Opcode::min, Opcode::max})) return set_flag(inst.propagate_nan, op_token, part);
        fail_part(op_token, part, "unsupported modifier '." + std::string(m) + "' on '" + std::string(head) + "'");
    }

    // Required modifiers, type counts and allowed types per opcode.
    void finish_modifiers(ir::Instruction& inst, const Token& op_token, std::string_view head,
                          const std::vector<Part>& parts, const std::vector<std::pair<ir::ScalarType, Part>>& types) {
        using ir::Opcode;
        using ir::ScalarType;
        const std::string opname(op_token.text);
        const auto fail_here = [&](const std::string& message) { fail(op_token, message); };
        const auto want_types = [&](std::size_t n) {
            if (types.size() != n) {
                if (types.size() > n) fail_part(op_token, types[n].second, "'" + opname + "' has too many type modifiers");
                fail_here("'" + opname + "' needs " + (n == 1 ? std::string("a type") : std::to_string(n) + " types"));
            }
        };
        const auto type_must = [&](bool ok, std::size_t which = 0) {
            if (!ok)
                fail_part(op_token, types[which].second,
                          "type ." + std::string(ir::name(types[which].first)) + " is not allowed for '" + std::string(head) + "'");
        };
        const auto require = [&](bool ok, const std::string& message) {
            if (!ok) fail_here("'" + opname + "': " + message);
        };
        (void)parts;
        const Opcode op = inst.op;
        switch (op) {
        case Opcode::bar_warp_sync:
        case Opcode::membar:
        case Opcode::fence:
        case Opcode::bra:
        case Opcode::ret:
        case Opcode::exit:
        case Opcode::trap:
            want_types(0);
            break;
        case Opcode::bar:
            if (inst.barrier == ir::BarrierMode::none) {
                if (inst.uni) fail_here("'" + opname + "' needs .popc, .and or .or after .red");
                fail_here("'" + opname + "' needs .sync, .arrive or .red");
            }
            break;
        case Opcode::cvt: case Opcode::set: case Opcode::slct: case Opcode::dp4a: case Opcode::dp2a:
            want_types(2);
            break;
        case Opcode::vabsdiff4:
            want_types(3);
            break;
        case Opcode::prefetch: case Opcode::prefetchu:
            want_types(0);
            break;
        default:
            want_types(1);
            break;
        }
        if (!types.empty()) inst.type = types[0].first;
        if (types.size() == 2) inst.src_type = types[1].first;
        const ScalarType t = inst.type;
        const auto is_int = [](ScalarType x) { return is_integer_type(x); };
        const auto is_fp = [](ScalarType x) { return x == ScalarType::f32 || x == ScalarType::f64; };
        const auto is_half = [](ScalarType x) { return ir::is_half_type(x); };
        const auto is_bits = [](ScalarType x) { return is_bit_type(x); };
        const auto int16up = [&](ScalarType x) { return is_int(x) && ir::size_bytes(x) >= 2; };
        const auto is_32_64 = [](ScalarType x) {
            return x == ScalarType::u32 || x == ScalarType::s32 || x == ScalarType::u64 || x == ScalarType::s64;
        };
        const bool float_rounding = inst.rounding != ir::Rounding::none;

        // Flags that only make sense for floating-point types.
        if (op != Opcode::cvt && op != Opcode::set && op != Opcode::slct) {
            if (inst.ftz)
                require(t == ScalarType::f32 || t == ScalarType::f16 || t == ScalarType::f16x2 ||
                            (t == ScalarType::f64 && (op == Opcode::rcp || op == Opcode::rsqrt)),
                        ".ftz needs an .f32 or .f16 type");
        }
        switch (op) {
        case Opcode::add: case Opcode::sub:
            type_must(int16up(t) || is_fp(t) || is_half(t));
            if (inst.carry_out) require(is_32_64(t), ".cc needs a 32- or 64-bit integer type");
            if (inst.sat) require(t == ScalarType::s32 || t == ScalarType::f32 || is_half(t), ".sat needs .s32, .f32 or a half type");
            if (float_rounding) require(!is_int(t), "rounding modifiers need a floating-point type");
            break;
        case Opcode::mul:
            type_must(int16up(t) || is_fp(t) || is_half(t));
            if (is_int(t)) {
                require(inst.mul_mode != ir::MulMode::none, "integer mul needs .lo, .hi or .wide");
                if (inst.mul_mode == ir::MulMode::wide) require(ir::size_bytes(t) <= 4, ".wide needs a 16- or 32-bit type");
                require(!float_rounding, "rounding modifiers need a floating-point type");
                require(!inst.sat, ".sat needs a floating-point type");
            } else {
                require(inst.mul_mode == ir::MulMode::none, ".lo/.hi/.wide need an integer type");
            }
            break;
        case Opcode::mad:
            type_must(int16up(t) || is_fp(t));
            if (is_int(t)) {
                require(inst.mul_mode != ir::MulMode::none, "integer mad needs .lo, .hi or .wide");
                if (inst.mul_mode == ir::MulMode::wide) require(ir::size_bytes(t) <= 4, ".wide needs a 16- or 32-bit type");
                require(!float_rounding, "rounding modifiers need a floating-point type");
                if (inst.sat) require(t == ScalarType::s32 && inst.mul_mode == ir::MulMode::hi, ".sat needs mad.hi.s32");
                if (inst.carry_out) require(is_32_64(t), ".cc needs a 32- or 64-bit integer type");
            } else {
                require(inst.mul_mode == ir::MulMode::none, ".lo/.hi/.wide need an integer type");
                require(!inst.carry_out, ".cc needs an integer type");
            }
            break;
        case Opcode::mul24: case Opcode::mad24:
            type_must(t == ScalarType::u32 || t == ScalarType::s32);
            require(inst.mul_mode == ir::MulMode::lo || inst.mul_mode == ir::MulMode::hi, "needs .lo or .hi");
            break;
        case Opcode::madc:
            type_must(is_32_64(t));
            require(inst.mul_mode == ir::MulMode::lo || inst.mul_mode == ir::MulMode::hi, "needs .lo or .hi");
            break;
        case Opcode::addc: case Opcode::subc:
            type_must(is_32_64(t));
            break;
        case Opcode::fma:
            type_must(is_fp(t) || is_half(t));
            require(float_rounding, "fma needs a rounding modifier (.rn, .rz, .rm or .rp)");
            break;
        case Opcode::div:
            type_must(int16up(t) || is_fp(t));
            if (is_int(t)) require(!float_rounding && !inst.approx && !inst.full, "rounding and .approx/.full need a floating-point type");
            if (t == ScalarType::f64) require(!inst.approx && !inst.full, "div.f64 takes a rounding modifier, not .approx/.full");
            require((inst.approx ? 1 : 0) + (inst.full ? 1 : 0) + (float_rounding ? 1 : 0) <= 1,
                    ".approx, .full and rounding modifiers are mutually exclusive");
            break;
        case Opcode::rem:
            type_must(int16up(t));
            break;
        case Opcode::abs: case Opcode::neg:
            type_must((is_int(t) && is_signed_integer(t) && ir::size_bytes(t) >= 2) || is_fp(t) || is_half(t));
            break;
        case Opcode::min: case Opcode::max:
            type_must(int16up(t) || is_fp(t) || is_half(t));
            if (inst.propagate_nan) require(t == ScalarType::f32 || is_half(t), ".NaN needs .f32 or a half type");
            break;
        case Opcode::popc: case Opcode::clz: case Opcode::brev:
            type_must(t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::bfe: case Opcode::bfind:
            type_must(is_32_64(t));
            break;
        case Opcode::bfi:
            type_must(t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::prmt: case Opcode::lop3:
            type_must(t == ScalarType::b32);
            break;
        case Opcode::shf:
            type_must(t == ScalarType::b32);
            require(inst.approx, "shf needs .l or .r");
            require(inst.full, "shf needs .wrap or .clamp");
            inst.approx = false;
            inst.full = false;
            break;
        case Opcode::and_: case Opcode::or_: case Opcode::xor_: case Opcode::not_:
            type_must(t == ScalarType::pred || t == ScalarType::b16 || t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::cnot:
            type_must(t == ScalarType::b16 || t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::shl:
            type_must(t == ScalarType::b16 || t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::shr:
            type_must((is_bits(t) || is_int(t)) && ir::size_bytes(t) >= 2 && ir::size_bytes(t) <= 8);
            break;
        case Opcode::setp: case Opcode::set: {
            const ScalarType cmp_type = op == Opcode::set ? inst.src_type : t;
            if (op == Opcode::set)
                type_must(t == ScalarType::u32 || t == ScalarType::s32 || t == ScalarType::f32);
            type_must((is_bits(cmp_type) && cmp_type != ScalarType::b8 && cmp_type != ScalarType::b128) ||
                          int16up(cmp_type) || is_fp(cmp_type) || is_half(cmp_type),
                      op == Opcode::set ? 1 : 0);
            require(inst.cmp != ir::CompareOp::none, "needs a comparison (.eq, .lt, ...)");
            const bool float_cmp = is_fp(cmp_type) || is_half(cmp_type);
            const bool unordered = inst.cmp >= ir::CompareOp::equ;
            const bool unsigned_cmp = inst.cmp >= ir::CompareOp::lo && inst.cmp <= ir::CompareOp::hs;
            if (float_cmp) require(!unsigned_cmp, "unsigned comparisons need an integer type");
            else require(!unordered, "unordered comparisons need a floating-point type");
            if (is_bits(cmp_type))
                require(inst.cmp == ir::CompareOp::eq || inst.cmp == ir::CompareOp::ne, "bit-size types compare only with .eq/.ne");
            if (inst.ftz) require(cmp_type == ScalarType::f32 || is_half(cmp_type), ".ftz needs an .f32 comparison");
            break;
        }
        case Opcode::selp:
            type_must(int16up(t) || (is_bits(t) && ir::size_bytes(t) >= 2 && t != ScalarType::b128) || is_fp(t));
            break;
        case Opcode::slct:
            type_must(int16up(t) || (is_bits(t) && ir::size_bytes(t) >= 2 && t != ScalarType::b128) || is_fp(t));
            type_must(inst.src_type == ScalarType::s32 || inst.src_type == ScalarType::f32, 1);
            if (inst.ftz) require(inst.src_type == ScalarType::f32, ".ftz needs an .f32 selector");
            break;
        case Opcode::cvt: {
            const ScalarType d = t, s = inst.src_type;
            const auto convertible = [&](ScalarType x) { return is_int(x) || is_fp(x) || is_half(x); };
            type_must(convertible(d), 0);
            type_must(convertible(s), 1);
            const bool d_float = is_fp(d) || is_half(d), s_float = is_fp(s) || is_half(s);
            const bool integer_rounding = inst.rounding >= ir::Rounding::rni;
            const bool frnd = float_rounding && !integer_rounding;
            const auto float_bits = [](ScalarType x) {
                return x == ScalarType::f64 ? 64U : x == ScalarType::f32 ? 32U : x == ScalarType::f16x2 || x == ScalarType::bf16x2 ? 16U : 16U;
            };
            if (d == ScalarType::f16x2 || d == ScalarType::bf16x2) {
                require(s == ScalarType::f32, "packing to ." + std::string(ir::name(d)) + " converts from .f32");
                require(frnd, "needs a floating-point rounding modifier");
            } else if (s == ScalarType::f16x2 || s == ScalarType::bf16x2) {
                fail_part(op_token, types[1].second, "cvt from a packed half type is not supported");
            } else if (d_float && s_float) {
                const bool narrowing = float_bits(d) < float_bits(s) || (d != s && float_bits(d) == float_bits(s));
                if (d == s) {
                    require(!frnd, "a same-type float cvt takes an integer rounding (.rni/.rzi/.rmi/.rpi) or none");
                } else if (narrowing) {
                    require(frnd, "a narrowing float conversion needs a floating-point rounding modifier");
                } else {
                    require(!float_rounding, "a widening float conversion takes no rounding modifier");
                }
            } else if (d_float && !s_float) {
                require(frnd, "an integer-to-float conversion needs a floating-point rounding modifier");
            } else if (!d_float && s_float) {
                require(integer_rounding, "a float-to-integer conversion needs an integer rounding modifier (.rni, .rzi, .rmi, .rpi)");
            } else {
                require(!float_rounding, "an integer-to-integer conversion takes no rounding modifier");
            }
            if (inst.rounding == ir::Rounding::rna) require(is_half(d) || d == ScalarType::f32, ".rna is not supported here");
            if (inst.ftz) require(d == ScalarType::f32 || s == ScalarType::f32 || d == ScalarType::f16 || s == ScalarType::f16,
                                  ".ftz needs an .f32 or .f16 side");
            break;
        }
        case Opcode::cvta:
            type_must(t == ScalarType::u32 || t == ScalarType::u64);
            require(inst.space != ir::StateSpace::none, "cvta needs a state space (.global, .shared, .local, .const, .param)");
            break;
        case Opcode::mov:
            type_must(t != ScalarType::b8 && t != ScalarType::u8 && t != ScalarType::s8);
            break;
        case Opcode::rcp: case Opcode::sqrt:
            type_must(is_fp(t));
            if (t == ScalarType::f32)
                require(inst.approx != float_rounding, "needs exactly one of .approx or a rounding modifier");
            else
                require(inst.approx ? (inst.ftz && !float_rounding) : float_rounding,
                        ".f64 needs a rounding modifier (or .approx.ftz for rcp)");
            if (op == Opcode::sqrt && t == ScalarType::f64) require(!inst.approx, "sqrt.approx needs .f32");
            break;
        case Opcode::rsqrt:
            type_must(is_fp(t));
            require(inst.approx, "rsqrt needs .approx");
            break;
        case Opcode::sin: case Opcode::cos: case Opcode::lg2:
            type_must(t == ScalarType::f32);
            require(inst.approx, "needs .approx");
            break;
        case Opcode::ex2: case Opcode::tanh:
            type_must(t == ScalarType::f32 || is_half(t));
            require(inst.approx, "needs .approx");
            break;
        case Opcode::copysign: case Opcode::testp:
            type_must(is_fp(t));
            if (op == Opcode::testp) require(inst.test != ir::TestKind::none, "testp needs a test (.finite, .infinite, ...)");
            break;
        case Opcode::ld: case Opcode::st:
            type_must(t != ScalarType::pred);
            if (inst.non_coherent) require(inst.space == ir::StateSpace::global, ".nc needs .global");
            if (op == Opcode::st) require(inst.space != ir::StateSpace::constant, "cannot store to the .const space");
            if (op == Opcode::ld) require(inst.order != ir::MemOrder::release && inst.order != ir::MemOrder::acq_rel && inst.order != ir::MemOrder::sc, "ld takes .weak, .volatile, .relaxed or .acquire");
            if (op == Opcode::st) require(inst.order != ir::MemOrder::acquire && inst.order != ir::MemOrder::acq_rel && inst.order != ir::MemOrder::sc, "st takes .weak, .volatile, .relaxed or .release");
            require(inst.order != ir::MemOrder::relaxed && inst.order != ir::MemOrder::acquire && inst.order != ir::MemOrder::release
                        ? inst.scope == ir::Scope::none : inst.scope != ir::Scope::none,
                    ".relaxed/.acquire/.release need a scope and only they take one");
            require(inst.vector_width == 1 || t != ScalarType::b128, "vectors of .b128 are not supported");
            break;
        case Opcode::atom: case Opcode::red: {
            require(inst.atom_op != ir::AtomOp::none, "needs an operation (.add, .min, .cas, ...)");
            require(inst.space == ir::StateSpace::none || inst.space == ir::StateSpace::global || inst.space == ir::StateSpace::shared,
                    "atomics need .global, .shared or no (generic) space");
            require(inst.order == ir::MemOrder::none || inst.order == ir::MemOrder::relaxed || inst.order == ir::MemOrder::acquire ||
                        inst.order == ir::MemOrder::release || inst.order == ir::MemOrder::acq_rel,
                    "atomics take .relaxed, .acquire, .release or .acq_rel");
            if (op == Opcode::red) require(inst.atom_op != ir::AtomOp::cas && inst.atom_op != ir::AtomOp::exch, "red has no .cas or .exch");
            bool ok = false;
            switch (inst.atom_op) {
            case ir::AtomOp::add:
                ok = t == ScalarType::u32 || t == ScalarType::s32 || t == ScalarType::u64 || t == ScalarType::f32 ||
                     t == ScalarType::f64 || is_half(t);
                break;
            case ir::AtomOp::min: case ir::AtomOp::max:
                ok = is_32_64(t);
                break;
            case ir::AtomOp::inc: case ir::AtomOp::dec:
                ok = t == ScalarType::u32;
                break;
            case ir::AtomOp::and_: case ir::AtomOp::or_: case ir::AtomOp::xor_:
                ok = t == ScalarType::b32 || t == ScalarType::b64;
                break;
            case ir::AtomOp::cas:
                ok = t == ScalarType::b32 || t == ScalarType::b64 || t == ScalarType::b16;
                break;
            case ir::AtomOp::exch:
                ok = t == ScalarType::b32 || t == ScalarType::b64;
                break;
            case ir::AtomOp::none:
                break;
            }
            type_must(ok);
            break;
        }
        case Opcode::bar: {
            const bool red = inst.uni;
            inst.uni = false;
            if (head == "barrier") {
                inst.aligned = inst.full;
                inst.full = false;
            }
            if (red) {
                want_types(1);
                if (inst.barrier == ir::BarrierMode::red_popc) type_must(t == ScalarType::u32);
                else type_must(t == ScalarType::pred);
            } else {
                want_types(0);
            }
            break;
        }
        case Opcode::bar_warp_sync:
            require(inst.uni, "needs .sync (bar.warp.sync)");
            inst.uni = false;
            break;
        case Opcode::membar:
            require(inst.scope == ir::Scope::cta || inst.scope == ir::Scope::gpu || inst.scope == ir::Scope::sys,
                    "membar needs .cta, .gl or .sys");
            break;
        case Opcode::fence:
            require(inst.order == ir::MemOrder::sc || inst.order == ir::MemOrder::acq_rel, "fence needs .sc or .acq_rel");
            require(inst.scope != ir::Scope::none, "fence needs a scope (.cta, .gpu, .sys)");
            break;
        case Opcode::shfl:
            require(inst.uni, "shfl without .sync is not supported (deprecated since PTX 6.0); use shfl.sync");
            inst.uni = false;
            require(inst.shfl_mode != ir::ShflMode::none, "needs .up, .down, .bfly or .idx");
            type_must(t == ScalarType::b32);
            break;
        case Opcode::vote:
            require(inst.uni, "vote without .sync is not supported (deprecated since PTX 6.0); use vote.sync");
            inst.uni = false;
            require(inst.vote_mode != ir::VoteMode::none, "needs .all, .any, .uni or .ballot");
            if (inst.vote_mode == ir::VoteMode::ballot) type_must(t == ScalarType::b32);
            else type_must(t == ScalarType::pred);
            break;
        case Opcode::match:
            require(inst.uni, "needs .sync");
            inst.uni = false;
            require(inst.vote_mode == ir::VoteMode::any || inst.vote_mode == ir::VoteMode::all, "needs .any or .all");
            type_must(t == ScalarType::b32 || t == ScalarType::b64);
            break;
        case Opcode::activemask:
            type_must(t == ScalarType::b32);
            break;
        case Opcode::nanosleep:
            type_must(t == ScalarType::u32);
            break;
        case Opcode::bra: case Opcode::ret: case Opcode::exit: case Opcode::call: case Opcode::trap:
            break;
        case Opcode::dp4a: case Opcode::dp2a: {
            // PTX ISA 9.0, Sec. 9.7.1.23/24: .atype = .btype = {.u32, .s32}; c and d are .u32 when both are .u32,
            // else .s32.
            const auto u32_or_s32 = [](ScalarType x) { return x == ScalarType::u32 || x == ScalarType::s32; };
            type_must(u32_or_s32(types[0].first), 0);
            type_must(u32_or_s32(types[1].first), 1);
            if (op == Opcode::dp2a) require(inst.mul_mode != ir::MulMode::none, "dp2a needs .lo or .hi");
            inst.src_type = types[0].first;
            inst.b_type = types[1].first;
            inst.type = inst.src_type == ScalarType::u32 && inst.b_type == ScalarType::u32 ? ScalarType::u32 : ScalarType::s32;
            break;
        }
        case Opcode::vabsdiff4: {
            // PTX ISA 9.0, Sec. 9.7.16.2 (SIMD video instructions): .dtype = .atype = .btype = {.u32, .s32};
            // .sat (merge form) and .add (accumulate form) are exclusive.
            for (std::size_t k = 0; k < 3; ++k) type_must(types[k].first == ScalarType::u32 || types[k].first == ScalarType::s32, k);
            require(!(inst.sat && inst.accumulate), ".sat cannot be combined with .add");
            inst.src_type = types[1].first;
            inst.b_type = types[2].first;
            break;
        }
        case Opcode::sad:
            type_must(int16up(t));
            break;
        case Opcode::redux:
            require(inst.uni, "needs .sync (redux.sync)");
            inst.uni = false;
            switch (inst.atom_op) {
            case ir::AtomOp::add: case ir::AtomOp::min: case ir::AtomOp::max:
                if (t == ScalarType::f32) fail_part(op_token, types[0].second, "redux.sync on .f32 (sm_100a) is not supported");
                type_must(t == ScalarType::u32 || t == ScalarType::s32);
                break;
            case ir::AtomOp::and_: case ir::AtomOp::or_: case ir::AtomOp::xor_:
                type_must(t == ScalarType::b32);
                break;
            default:
                require(false, "needs .add, .min, .max, .and, .or or .xor");
            }
            break;
        case Opcode::prefetch:
            require(inst.space == ir::StateSpace::none || inst.space == ir::StateSpace::global || inst.space == ir::StateSpace::local,
                    "prefetch takes .global, .local or no state space (generic)");
            require(inst.cache_level != ir::CacheLevel::none, "needs a cache level (.L1 or .L2)");
            if (inst.cache_level == ir::CacheLevel::L2_evict_last || inst.cache_level == ir::CacheLevel::L2_evict_normal)
                require(inst.space == ir::StateSpace::global, "an L2 eviction priority needs prefetch.global");
            break;
        case Opcode::prefetchu:
            require(inst.space == ir::StateSpace::none, "prefetchu takes a generic address and no state space");
            require(inst.cache_level == ir::CacheLevel::L1, "prefetchu needs .L1");
            break;
        case Opcode::vprintf: case Opcode::assertfail: // made by the inliner from a call, never parsed by name
            fail_here("'" + opname + "' is a device-runtime function: call it (call.uni (r), vprintf, (a, b);)");
            break;
        case Opcode::tex: case Opcode::suld: case Opcode::sust: // parse_texture reads these
            fail_here("internal error: '" + opname + "' reached the generic modifier rules");
            break;
        // issue 20: made by the inliner (malloc, free) or by parse_cp_async, never parsed here
        case Opcode::device_malloc: case Opcode::device_free:
            fail_here("'" + opname + "' is a device-runtime function: call it (call.uni (r), malloc, (a);)");
            break;
        case Opcode::cp_async: case Opcode::cp_async_commit_group: case Opcode::cp_async_wait_group:
        case Opcode::cp_async_wait_all:
            fail_here("internal error: '" + opname + "' reached the generic modifier checks");
        }
    }

    // ---- operands
    RawOperand parse_raw_operand() {
        RawOperand r;
        const Token& t = peek();
        r.at = &t;
        if (t.is_punct('{')) {
            next();
            r.kind = RawOperand::Kind::vector;
            do {
                const bool negative = accept_punct('-');
                const Token& e = peek();
                if (e.kind != TokenKind::word && e.kind != TokenKind::integer)
                    fail(e, "expected a register or integer constant in a vector operand, found " + describe(e));
                if (negative && e.kind != TokenKind::integer) fail(e, "'-' must be followed by an integer constant");
                next();
                if (r.count == 4) fail(e, "vector operands hold at most 4 elements");
                r.element_negative[r.count] = negative;
                r.elements[r.count++] = &e;
            } while (accept_punct(','));
            expect_punct('}', "to close a vector operand");
            return r;
        }
        if (t.is_punct('[')) {
            next();
            r.kind = RawOperand::Kind::address;
            const Token& b = peek();
            if (b.kind == TokenKind::word) {
                next();
                r.name = &b;
                if (peek().is_punct('+') || peek().is_punct('-')) {
                    const bool minus = next().is_punct('-');
                    const bool minus2 = !minus && accept_punct('-');
                    r.offset = parse_offset(minus || minus2);
                }
            } else if (b.kind == TokenKind::integer || b.is_punct('-')) {
                r.offset = parse_offset(accept_punct('-'));
            } else {
                fail(b, "expected a register, variable or constant address, found " + describe(b));
            }
            if (peek().is_punct('+') && r.name && r.name->kind == TokenKind::word && peek(1).kind == TokenKind::word)
                fail(peek(1), "an address is [base + constant]; register + register is not allowed");
            expect_punct(']', "to close an address");
            return r;
        }
        if (t.is_punct('!')) {
            next();
            r.negated = true;
            r.name = &expect_word("a predicate register after '!'");
            return r;
        }
        if (t.is_punct('-') || t.kind == TokenKind::integer || t.kind == TokenKind::f32_hex ||
            t.kind == TokenKind::f64_hex || t.kind == TokenKind::decimal_float) {
            const bool negative = accept_punct('-');
            const Token& v = peek();
            if (!parse_literal(v, negative, r.bits, r.kind, r.decimal))
                fail(v, "expected a constant after '-', found " + describe(v));
            next();
            return r;
        }
        if (t.is_punct('(')) fail(t, "constant expressions in parentheses are not supported");
        if (t.kind == TokenKind::word) {
            next();
            if (t.text == "_") {
                r.kind = RawOperand::Kind::sink;
                return r;
            }
            r.name = &t;
            if (accept_punct('|')) {
                r.kind = RawOperand::Kind::pair;
                r.name2 = &expect_word("a predicate register after '|'");
                return r;
            }
            if (peek().is_punct('+') || (peek().is_punct('-') && peek(1).kind == TokenKind::integer)) {
                // symbol+offset (mov/cvta of a variable address)
                const bool minus = next().is_punct('-');
                const bool minus2 = !minus && accept_punct('-');
                r.offset = parse_offset(minus || minus2);
            }
            return r;
        }
        fail(t, "expected an operand, found " + describe(t));
    }

    std::int64_t parse_offset(bool negative) {
        const Token& v = peek();
        if (v.kind != TokenKind::integer) fail(v, "expected an integer offset, found " + describe(v));
        next();
        const auto value = integer_literal_bits(v.text);
        if (!value || *value > (std::uint64_t{1} << 62)) fail(v, "offset " + std::string(v.text) + " is out of range");
        const auto magnitude = static_cast<std::int64_t>(*value);
        return negative ? -magnitude : magnitude;
    }

    std::vector<RoleSpec> operand_roles(const ir::Instruction& inst, const Token& op_token,
                                        const std::vector<RawOperand>& raw) const {
        using ir::Opcode;
        using ir::ScalarType;
        const ScalarType t = inst.type;
        const ScalarType u32 = ScalarType::u32, b32 = ScalarType::b32, pr = ScalarType::pred;
        const auto wide = [](ScalarType x) { return double_width(x); };
        switch (inst.op) {
        case Opcode::add: case Opcode::sub: case Opcode::div: case Opcode::rem: case Opcode::min: case Opcode::max:
        case Opcode::and_: case Opcode::or_: case Opcode::xor_: case Opcode::copysign: case Opcode::mul24:
        case Opcode::addc: case Opcode::subc:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::mul:
            if (inst.mul_mode == ir::MulMode::wide) return {{Role::dst, wide(t)}, {Role::src, t}, {Role::src, t}};
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::mad:
            if (inst.mul_mode == ir::MulMode::wide)
                return {{Role::dst, wide(t)}, {Role::src, t}, {Role::src, t}, {Role::src, wide(t)}};
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::fma: case Opcode::mad24: case Opcode::madc:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::abs: case Opcode::neg: case Opcode::not_: case Opcode::cnot: case Opcode::brev: case Opcode::rcp:
        case Opcode::sqrt: case Opcode::rsqrt: case Opcode::sin: case Opcode::cos: case Opcode::lg2: case Opcode::ex2:
        case Opcode::tanh:
            return {{Role::dst, t}, {Role::src, t}};
        case Opcode::popc: case Opcode::clz: case Opcode::bfind:
            return {{Role::dst, u32}, {Role::src, t}};
        case Opcode::testp:
            return {{Role::dst, pr}, {Role::src, t}};
        case Opcode::bfe:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::bfi:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::prmt:
            return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, b32}};
        case Opcode::lop3:
            return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, b32}, {Role::imm, b32}};
        case Opcode::shf:
            return {{Role::dst, b32}, {Role::src, b32}, {Role::src, b32}, {Role::src, u32}};
        case Opcode::shl: case Opcode::shr:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}};
        case Opcode::setp:
            if (inst.bool_op != ir::BoolOp::none)
                return {{Role::dst_pair, pr}, {Role::src, t}, {Role::src, t}, {Role::pred, pr}};
            return {{Role::dst_pair, pr}, {Role::src, t}, {Role::src, t}};
        case Opcode::set:
            if (inst.bool_op != ir::BoolOp::none)
                return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}, {Role::pred, pr}};
            return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}};
        case Opcode::selp:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::sel_pred, pr}};
        case Opcode::slct:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, inst.src_type}};
        case Opcode::cvt:
            if (t == ScalarType::f16x2 || t == ScalarType::bf16x2)
                return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.src_type}};
            return {{Role::dst, t}, {Role::src, inst.src_type}};
        case Opcode::cvta:
            return {{Role::dst, t}, {Role::src_addr, t}};
        case Opcode::mov:
            return {{Role::dst_data, t}, {Role::src_data, t}};
        case Opcode::ld:
            return {{Role::dst_data, t}, {Role::address, t}};
        case Opcode::st:
            return {{Role::address, t}, {Role::src_data, t}};
        case Opcode::atom:
            if (inst.atom_op == ir::AtomOp::cas)
                return {{Role::dst, t}, {Role::address, t}, {Role::src, t}, {Role::src, t}};
            return {{Role::dst, t}, {Role::address, t}, {Role::src, t}};
        case Opcode::red:
            return {{Role::address, t}, {Role::src, t}};
        case Opcode::bar:
            if (inst.barrier == ir::BarrierMode::sync)
                return raw.size() >= 2 ? std::vector<RoleSpec>{{Role::src, u32}, {Role::src, u32}}
                                       : std::vector<RoleSpec>{{Role::src, u32}};
            if (inst.barrier == ir::BarrierMode::arrive) return {{Role::src, u32}, {Role::src, u32}};
            if (raw.size() >= 4) return {{Role::dst, t}, {Role::src, u32}, {Role::src, u32}, {Role::pred, pr}};
            return {{Role::dst, t}, {Role::src, u32}, {Role::pred, pr}};
        case Opcode::bar_warp_sync: case Opcode::nanosleep:
            return {{Role::src, u32}};
        case Opcode::membar: case Opcode::fence: case Opcode::ret: case Opcode::exit: case Opcode::trap:
            return {};
        case Opcode::shfl:
            return {{Role::dst_pair, b32}, {Role::src, b32}, {Role::src, u32}, {Role::src, u32}, {Role::src, u32}};
        case Opcode::vote:
            return {{Role::dst, t}, {Role::pred, pr}, {Role::src, u32}};
        case Opcode::match:
            if (inst.vote_mode == ir::VoteMode::all) return {{Role::dst_pair, b32}, {Role::src, t}, {Role::src, u32}};
            return {{Role::dst, b32}, {Role::src, t}, {Role::src, u32}};
        case Opcode::activemask:
            return {{Role::dst, b32}};
        case Opcode::bra:
            return {{Role::label, ScalarType::none}};
        case Opcode::dp4a: case Opcode::dp2a: case Opcode::vabsdiff4:
            return {{Role::dst, t}, {Role::src, inst.src_type}, {Role::src, inst.b_type}, {Role::src, t}};
        case Opcode::sad:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, t}, {Role::src, t}};
        case Opcode::redux:
            return {{Role::dst, t}, {Role::src, t}, {Role::src, u32}};
        case Opcode::prefetch: case Opcode::prefetchu:
            return {{Role::address, ScalarType::none}};
        case Opcode::call: case Opcode::vprintf: case Opcode::assertfail:
        case Opcode::tex: case Opcode::suld: case Opcode::sust:
        // issue 20: operands set by the inliner (malloc, free) or by parse_cp_async
        case Opcode::device_malloc: case Opcode::device_free: case Opcode::cp_async:
        case Opcode::cp_async_commit_group: case Opcode::cp_async_wait_group: case Opcode::cp_async_wait_all:
            break;
        }
        fail(op_token, "internal error: no operand roles for '" + std::string(op_token.text) + "'");
    }

    // Which instructions accept registers wider than their type (PTX ISA 9.0, Sec. 6.4.2.1: ld, st, cvt).
    // suld/sust move raw .b8/.b16 elements through wider registers as ld/st do (nvcc uses %rs for .b8).
    static bool relaxed_sizes(ir::Opcode op) {
        return op == ir::Opcode::ld || op == ir::Opcode::st || op == ir::Opcode::cvt || op == ir::Opcode::suld ||
               op == ir::Opcode::sust;
    }

    std::string operand_label(const Token& op_token, std::size_t index) const {
        return "operand " + std::to_string(index + 1) + " of '" + std::string(op_token.text) + "'";
    }

    void check_register_type(const ir::Instruction& inst, const Token& op_token, const Token& reg_token, ir::RegId reg,
                             ir::ScalarType want, std::size_t index, bool is_dest) const {
        const ir::ScalarType have = register_type(reg);
        const bool relaxed = relaxed_sizes(inst.op) && !(inst.op == ir::Opcode::cvt && ir::is_float(want));
        if (!register_fits(want, have, relaxed, is_dest))
            fail(reg_token, operand_label(op_token, index) + ": register " + std::string(reg_token.text) + " has type ." +
                                std::string(ir::name(have)) + ", which does not fit ." + std::string(ir::name(want)));
    }

    ir::Operand convert_operand(ir::Instruction& inst, const Token& op_token, const RawOperand& raw, const RoleSpec& spec,
                                std::size_t index) {
        using Kind = RawOperand::Kind;
        ir::Operand out;
        const std::string where = operand_label(op_token, index);
        const auto bad = [&](const std::string& expected) -> ir::Operand {
            fail(*raw.at, where + " must be " + expected);
        };
        switch (spec.role) {
        case Role::label:
            if (raw.kind != Kind::name || raw.negated || raw.offset != 0) return bad("a label");
            if (find_register(raw.name->text) || raw.name->text.front() == '%')
                fail(*raw.name, "indirect branches through a register are not supported");
            out.kind = ir::OperandKind::label;
            label_refs_.push_back(LabelRef{static_cast<ir::Pc>(function_->body.code.size()), *raw.name});
            return out;
        case Role::pred:
        case Role::sel_pred: {
            if (raw.kind != Kind::name || raw.offset != 0) return bad("a predicate register");
            if (raw.negated && spec.role == Role::sel_pred) fail(*raw.at, where + " cannot be negated");
            out.kind = ir::OperandKind::reg;
            out.reg = resolve_register(*raw.name);
            out.negated = raw.negated;
            check_register_type(inst, op_token, *raw.name, out.reg, ir::ScalarType::pred, index, false);
            return out;
        }
        case Role::dst:
        case Role::dst_pair: {
            if (raw.kind == Kind::sink) {
                out.kind = ir::OperandKind::sink;
                return out;
            }
            if (raw.kind == Kind::pair) {
                if (spec.role != Role::dst_pair) fail(*raw.at, where + " cannot have a second '|' destination");
                out.kind = ir::OperandKind::reg;
                out.reg = resolve_register(*raw.name);
                check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, true);
                if (raw.name2->text != "_") {
                    out.reg2 = resolve_register(*raw.name2);
                    check_register_type(inst, op_token, *raw.name2, out.reg2, ir::ScalarType::pred, index, true);
                }
                return out;
            }
            if (raw.kind != Kind::name || raw.negated || raw.offset != 0) return bad("a register");
            out.kind = ir::OperandKind::reg;
            out.reg = resolve_register(*raw.name);
            check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, true);
            return out;
        }
        case Role::imm:
            if (raw.kind != Kind::integer) return bad("an integer constant");
            if (raw.bits > 0xff) fail(*raw.at, where + ": lookup table " + std::string(raw.at->text) + " is out of range 0..255");
            out.kind = ir::OperandKind::imm;
            out.imm_bits = raw.bits;
            return out;
        case Role::address:
            return convert_address(inst, op_token, raw, index);
        case Role::dst_data:
        case Role::src_data:
        case Role::src_addr:
        case Role::src:
            break;
        }
        const bool is_dest = spec.role == Role::dst_data;
        if (raw.kind == Kind::vector) {
            if (spec.role != Role::dst_data && spec.role != Role::src_data) return bad("a register or constant, not a vector");
            return convert_vector(inst, op_token, raw, spec, index, is_dest);
        }
        if (raw.kind == Kind::sink) {
            if (!is_dest) return bad("a source, not '_'");
            out.kind = ir::OperandKind::sink;
            return out;
        }
        if (raw.kind == Kind::pair || raw.kind == Kind::address) return bad(is_dest ? "a register" : "a register or constant");
        if (raw.kind == Kind::integer || raw.kind == Kind::f32 || raw.kind == Kind::f64) {
            if (is_dest) return bad("a register");
            if (spec.role == Role::src_addr) return bad("a register or variable");
            return convert_immediate(op_token, raw, spec.type, index);
        }
        // A name: register, special register, or (mov/cvta) a variable whose address is taken.
        if (raw.negated) {
            if (spec.type != ir::ScalarType::pred) fail(*raw.at, where + ": '!' is only allowed on predicates");
        }
        const std::string_view name = raw.name->text;
        if (auto reg = find_register(name)) {
            if (raw.offset != 0) fail(*raw.at, where + ": a register cannot take an offset");
            if (raw.negated) fail(*raw.at, where + " cannot be negated");
            out.kind = ir::OperandKind::reg;
            out.reg = *reg;
            check_register_type(inst, op_token, *raw.name, out.reg, spec.type, index, is_dest);
            return out;
        }
        if (is_dest) fail(*raw.name, find_symbol(name) ? where + " must be a register, not the variable '" + std::string(name) + "'"
                                                        : "undeclared register '" + std::string(name) + "'");
        if (auto special = find_special(name)) {
            if (raw.offset != 0 || raw.negated) return bad("a plain special register");
            const unsigned size = ir::size_bytes(*special);
            const unsigned want = ir::size_bytes(spec.type);
            if (spec.type == ir::ScalarType::pred || ir::is_float(spec.type) || (size != want && !(inst.op == ir::Opcode::cvt && want <= size)))
                fail(*raw.name, where + ": special register " + std::string(name) + " is " + std::to_string(size * 8) +
                                    "-bit and does not fit ." + std::string(ir::name(spec.type)));
            out.kind = ir::OperandKind::special;
            out.special = *special;
            return out;
        }
        if (is_known_unsupported_special(name)) {
            if (name == "%tid" || name == "%ntid" || name == "%ctaid" || name == "%nctaid")
                fail(*raw.name, "special register " + std::string(name) + " needs a component (.x, .y or .z)");
            if (name.substr(0, 7) == "%envreg")
                fail(*raw.name, "unsupported special register '" + std::string(name) +
                                    "': its value is driver-defined; only %envreg1 and %envreg2 (the cooperative-groups "
                                    "grid workspace) are modelled");
            fail(*raw.name, "unsupported special register '" + std::string(name) + "'");
        }
        if (const auto f = function_index_.find(name);
            f != function_index_.end() && !find_symbol(name) && inst.op == ir::Opcode::mov && spec.role == Role::src_data) {
            // `mov.u64 %rd, f;`: the function's address (ptx::function_address), a possible indirect-call target.
            if (functions_[f->second].is_entry)
                fail(*raw.name, "the address of the kernel '" + std::string(name) +
                                    "' is taken, as for a device-side kernel launch: dynamic parallelism is out of "
                                    "scope for gpuarch");
            if (ir::size_bytes(spec.type) != 8 || ir::is_float(spec.type) || raw.offset != 0 || raw.negated)
                fail(*raw.name, where + ": the function address '" + std::string(name) + "' needs mov.u64 or mov.b64");
            functions_[f->second].address_taken = true;
            out.kind = ir::OperandKind::imm;
            out.imm_type = ir::ImmType::integer;
            out.imm_bits = function_address(f->second);
            return out;
        }
        if (auto sym = find_symbol(name)) {
            const bool takes_address = (inst.op == ir::Opcode::mov && spec.role == Role::src_data) || spec.role == Role::src_addr;
            if (!takes_address)
                fail(*raw.name, where + ": the variable '" + std::string(name) + "' can only be used in an address "
                                "([" + std::string(name) + "]) or as the source of mov/cvta");
            if (!is_integer_type(spec.type) && !is_bit_type(spec.type))
                fail(*raw.name, where + ": a variable address needs an integer type");
            if (ir::size_bytes(spec.type) < 4) fail(*raw.name, where + ": a variable address needs a 32- or 64-bit type");
            if (spec.role == Role::src_addr) {
                if (inst.to_space) fail(*raw.name, where + ": cvta.to converts a generic address register, not a variable");
                if (sym->space != inst.space)
                    fail(*raw.name, where + ": '" + std::string(name) + "' is in ." + std::string(ir::name(sym->space)) +
                                        ", not ." + std::string(ir::name(inst.space)));
            }
            out.kind = ir::OperandKind::symbol;
            out.symbol_scope = sym->scope;
            out.symbol = sym->id;
            out.offset = raw.offset;
            return out;
        }
        if (function_index_.count(std::string(name)) != 0)
            fail(*raw.name, "taking the address of function '" + std::string(name) + "' is not supported (no indirect calls)");
        if (labels_.count(name) != 0 || name.front() == '$')
            fail(*raw.name, where + ": label '" + std::string(name) + "' cannot be used as a value");
        if (name.front() == '%') fail(*raw.name, "undeclared register '" + std::string(name) + "'");
        fail(*raw.name, "undeclared identifier '" + std::string(name) + "'");
    }

    ir::Operand convert_immediate(const Token& op_token, const RawOperand& raw, ir::ScalarType type, std::size_t index) const {
        using Kind = RawOperand::Kind;
        const std::string where = operand_label(op_token, index);
        ir::Operand out;
        out.kind = ir::OperandKind::imm;
        const unsigned size = ir::size_bytes(type);
        if (type == ir::ScalarType::f32 || type == ir::ScalarType::f64) {
            double value = 0;
            if (raw.kind == Kind::integer) value = static_cast<double>(static_cast<std::int64_t>(raw.bits));
            else if (raw.kind == Kind::f32) value = f32_from_bits(static_cast<std::uint32_t>(raw.bits));
            else value = f64_from_bits(raw.bits);
            if (type == ir::ScalarType::f32) {
                out.imm_type = ir::ImmType::f32;
                // An f32 literal keeps its exact bits (NaN payloads included); others convert by value.
                out.imm_bits = raw.kind == Kind::f32 ? raw.bits : f32_bits(static_cast<float>(value));
            } else {
                out.imm_type = ir::ImmType::f64;
                out.imm_bits = raw.kind == Kind::f64 ? raw.bits : f64_bits(value);
            }
            return out;
        }
        if (type == ir::ScalarType::pred) {
            // ptxas accepts any integer constant for a predicate (nvcc writes `mov.pred %p, -1`): non-zero is true.
            if (raw.kind != Kind::integer) fail(*raw.at, where + ": a predicate constant must be an integer");
            out.imm_bits = raw.bits != 0 ? 1 : 0;
            return out;
        }
        if (raw.decimal) fail(*raw.at, where + ": a decimal floating-point constant needs an .f32 or .f64 operand");
        if (raw.kind == Kind::f32 || raw.kind == Kind::f64) {
            const unsigned literal_size = raw.kind == Kind::f32 ? 4U : 8U;
            if (literal_size > size)
                fail(*raw.at, where + ": a " + std::to_string(literal_size * 8) + "-bit floating-point bit pattern does not fit ." +
                                  std::string(ir::name(type)));
            out.imm_type = raw.kind == Kind::f32 ? ir::ImmType::f32 : ir::ImmType::f64;
            out.imm_bits = raw.bits;
            return out;
        }
        if (!fits_integer(raw.bits, size))
            fail(*raw.at, where + ": constant " + std::string(raw.at->text) + " does not fit ." + std::string(ir::name(type)));
        out.imm_bits = raw.bits;
        return out;
    }

    ir::Operand convert_vector(ir::Instruction& inst, const Token& op_token, const RawOperand& raw, const RoleSpec& spec,
                               std::size_t index, bool is_dest) {
        const std::string where = operand_label(op_token, index);
        ir::Operand out;
        out.kind = ir::OperandKind::vector;
        out.vector_count = raw.count;
        const bool is_mov = inst.op == ir::Opcode::mov;
        if (!is_mov && raw.count != inst.vector_width)
            fail(*raw.at, where + " has " + std::to_string(raw.count) + " elements but the instruction is .v" +
                              std::to_string(inst.vector_width));
        if (is_mov && raw.count < 2) fail(*raw.at, where + ": a packing vector needs 2 or 4 elements");
        unsigned element_size = 0, total = 0;
        std::uint8_t constants = 0;
        for (std::uint8_t e = 0; e < raw.count; ++e) {
            const Token& t = *raw.elements[e];
            if (t.kind == TokenKind::integer) {
                if (!is_mov || is_dest) fail(t, where + ": constant elements are only allowed in a mov packing source");
                constants = static_cast<std::uint8_t>(constants | (1U << e));
                out.vector[e] = ir::no_reg;
                continue;
            }
            if (t.text == "_") {
                if (!is_dest) fail(t, where + ": '_' is only allowed in a destination vector");
                if (is_mov) fail(t, where + ": mov unpacking needs a register for every element");
                out.vector[e] = ir::no_reg;
                continue;
            }
            const ir::RegId reg = resolve_register(t);
            out.vector[e] = reg;
            if (is_mov) {
                const ir::ScalarType have = register_type(reg);
                if (have == ir::ScalarType::pred) fail(t, where + ": predicates cannot be packed");
                const unsigned s = ir::size_bytes(have);
                if (element_size != 0 && s != element_size) fail(t, where + ": packed elements must have equal sizes");
                element_size = s;
                total += s;
            } else {
                check_register_type(inst, op_token, t, reg, spec.type, index, is_dest);
            }
        }
        if (is_mov) {
            if (!is_bit_type(spec.type)) fail(*raw.at, where + ": packing and unpacking need a .b16/.b32/.b64/.b128 mov");
            if (constants != 0) {
                // Constant elements take the register elements' width, or an equal share when all are constant.
                if (element_size == 0) element_size = ir::size_bytes(spec.type) / raw.count;
                if (element_size * raw.count != ir::size_bytes(spec.type) || element_size * raw.count > 8)
                    fail(*raw.at, where + ": constant elements need a packed value of at most 64 bits");
                for (std::uint8_t e = 0; e < raw.count; ++e) {
                    if ((constants & (1U << e)) == 0) continue;
                    const Token& t = *raw.elements[e];
                    auto value = integer_literal_bits(t.text);
                    if (!value) fail(t, where + ": constant " + std::string(t.text) + " does not fit in 64 bits");
                    std::uint64_t bits = raw.element_negative[e] ? ~*value + 1 : *value;
                    if (!fits_integer(bits, element_size))
                        fail(t, where + ": constant " + std::string(t.text) + " does not fit a " +
                                    std::to_string(element_size * 8) + "-bit element");
                    if (element_size < 8) bits &= (std::uint64_t{1} << (8 * element_size)) - 1;
                    out.imm_bits |= bits << (8 * element_size * e);
                    total += element_size;
                }
                out.vector_imm_mask = constants;
            }
            if (total != ir::size_bytes(spec.type))
                fail(*raw.at, where + ": the elements hold " + std::to_string(total * 8) + " bits but ." +
                                  std::string(ir::name(spec.type)) + " has " + std::to_string(ir::size_bytes(spec.type) * 8));
        }
        return out;
    }

    ir::Operand convert_address(ir::Instruction& inst, const Token& op_token, const RawOperand& raw, std::size_t index) {
        const std::string where = operand_label(op_token, index);
        if (raw.kind != RawOperand::Kind::address) fail(*raw.at, where + " must be an address [...]");
        ir::Operand out;
        out.kind = ir::OperandKind::address;
        out.offset = raw.offset;
        if (!raw.name) return out; // absolute address [imm]
        const std::string_view name = raw.name->text;
        if (auto reg = find_register(name)) {
            const ir::ScalarType type = register_type(*reg);
            if (!(is_integer_type(type) || is_bit_type(type)) || (ir::size_bytes(type) != 4 && ir::size_bytes(type) != 8))
                fail(*raw.name, where + ": address register " + std::string(name) + " must be a 32- or 64-bit integer");
            out.reg = *reg;
            return out;
        }
        auto sym = find_symbol(name);
        if (!sym) {
            if (find_special(name)) fail(*raw.name, where + ": a special register cannot be an address");
            if (name.front() == '%') fail(*raw.name, "undeclared register '" + std::string(name) + "'");
            fail(*raw.name, "undeclared variable '" + std::string(name) + "'");
        }
        const ir::StateSpace s = inst.space;
        if (s == ir::StateSpace::none) {
            if (sym->space == ir::StateSpace::param)
                fail(*raw.name, where + ": parameter '" + std::string(name) + "' must be accessed with ld.param/st.param");
        } else if (s != sym->space) {
            fail(*raw.name, where + ": '" + std::string(name) + "' is in the ." + std::string(ir::name(sym->space)) +
                                " space, not ." + std::string(ir::name(s)));
        }
        if (sym->scope == ir::SymbolScope::kernel_param && inst.op != ir::Opcode::ld && function_->is_entry)
            fail(*raw.name, where + ": kernel parameters are read-only");
        out.symbol_scope = sym->scope;
        out.symbol = sym->id;
        return out;
    }

    // Checks that need every operand: ld.param of a kernel param, address alignment of vectors etc.
    void check_instruction(const ir::Instruction& inst, const Token& op_token, const std::vector<RawOperand>& raw) const {
        if (inst.op == ir::Opcode::setp && inst.operands[0].kind == ir::OperandKind::sink)
            fail(*raw[0].at, "setp needs a destination predicate");
        (void)op_token;
    }

    // ---- texture and surface instructions (issue 20)
    // Unified mode only: the texture or surface is a 64-bit object handle in a register (CUDA 12 removed texture
    // references, so nvcc emits no .texref/.surfref operands). Operands (PTX ISA 9.0, Secs. 9.7.10.3, .7, .8):
    //   tex{.level}.geom.v4.dtype.ctype d, [t, c]{, lod}  -> operands d (vector of 4 .dtype registers), t (a 64-bit
    //                                                        register), c (vector), lod (.f32 register, .level only)
    //   suld.b.geom{.v2|.v4}.btype.mode d, [s, c]         -> operands d (vector of vector_width), s, c
    //   sust.b.geom{.v2|.v4}.btype.mode [s, c], a         -> operands s, c, a (vector of vector_width)
    // Coordinates: 1d {x}, 2d {x, y}, 3d {x, y, z, _}, a1d {layer, x}, a2d {layer, x, y, _}, cube {x, y, z, _},
    // acube {cube, x, y, z}; the layer and cube index are .s32, the others .ctype (tex; .f32 only for cube maps) or
    // .s32 byte/element coordinates (suld/sust, x in bytes). The fourth element of a 3d, a2d or cube vector is
    // ignored, as in the ISA. Rejected with a reason: tex.grad, .v2 half forms, multisample geometries, formatted
    // surface access (.p), layered and cube-map surfaces, tld4, txq, suq, sured.
    void parse_texture(ir::Instruction& inst, const Token& op_token, const std::vector<Part>& parts) {
        using ir::ScalarType;
        using ir::TexGeometry;
        const bool is_tex = inst.op == ir::Opcode::tex;
        const std::string opname(op_token.text);
        std::size_t i = 1;
        const auto part = [&]() -> const Part& {
            if (i >= parts.size()) fail(op_token, "'" + opname + "' is incomplete: it needs " +
                                                      (is_tex ? "a geometry, .v4, a result type and a coordinate type"
                                                              : ".b, a geometry, an element type and .trap, .clamp or .zero"));
            return parts[i];
        };
        if (is_tex) {
            if (part().text == "level") {
                inst.tex_level = true;
                ++i;
            } else if (part().text == "grad") {
                fail_part(op_token, part(), "tex.grad (explicit gradients) is not supported; tex and tex.level are");
            } else if (part().text == "base") {
                ++i; // .base: level 0, the default
            }
        } else {
            if (part().text == "p") fail_part(op_token, part(), "formatted surface access (" + std::string(ir::name(inst.op)) + ".p) is not supported; " + std::string(ir::name(inst.op)) + ".b is");
            if (part().text != "b") fail_part(op_token, part(), "expected .b after '" + std::string(ir::name(inst.op)) + "'");
            ++i;
        }
        {
            const Part& g = part();
            static constexpr std::pair<std::string_view, TexGeometry> geometries[] = {
                {"1d", TexGeometry::d1}, {"2d", TexGeometry::d2}, {"3d", TexGeometry::d3}, {"a1d", TexGeometry::a1d},
                {"a2d", TexGeometry::a2d}, {"cube", TexGeometry::cube}, {"acube", TexGeometry::acube}};
            for (const auto& [text, geometry] : geometries)
                if (g.text == text) inst.geometry = geometry;
            if (g.text == "2dms" || g.text == "a2dms") fail_part(op_token, g, "multisample textures (." + std::string(g.text) + ") are not supported");
            if (inst.geometry == TexGeometry::none) fail_part(op_token, g, "expected a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube), found ." + std::string(g.text));
            if (!is_tex && (inst.geometry == TexGeometry::cube || inst.geometry == TexGeometry::acube))
                fail_part(op_token, g, "." + std::string(g.text) + " is not a surface geometry (PTX ISA 9.0, Sec. 9.7.10.7)");
            if (!is_tex && (inst.geometry == TexGeometry::a1d || inst.geometry == TexGeometry::a2d))
                fail_part(op_token, g, "layered surfaces (." + std::string(g.text) + ") are not supported");
            ++i;
        }
        if (part().text == "v4" || part().text == "v2") {
            if (is_tex && part().text == "v2") fail_part(op_token, part(), "tex.v2 (half-precision results) is not supported; tex.v4 is");
            inst.vector_width = part().text == "v4" ? 4 : 2;
            ++i;
        } else if (is_tex) {
            fail_part(op_token, part(), "tex needs .v4");
        }
        const auto type_part = [&](std::initializer_list<ScalarType> allowed, std::string_view what) {
            const Part& t = part();
            const auto found = lookup_name(t.text, all_scalar_types);
            if (!found || std::find(allowed.begin(), allowed.end(), *found) == allowed.end())
                fail_part(op_token, t, "expected " + std::string(what) + ", found ." + std::string(t.text));
            ++i;
            return *found;
        };
        if (is_tex) {
            inst.type = type_part({ScalarType::f32, ScalarType::s32, ScalarType::u32}, "a result type (.f32, .s32, .u32)");
            if (inst.geometry == TexGeometry::cube || inst.geometry == TexGeometry::acube)
                inst.src_type = type_part({ScalarType::f32}, "the coordinate type .f32 (a cube map reads a direction)");
            else
                inst.src_type = type_part({ScalarType::f32, ScalarType::s32}, "a coordinate type (.f32, .s32)");
        } else {
            inst.type = type_part({ScalarType::b8, ScalarType::b16, ScalarType::b32, ScalarType::b64},
                                  "an element type (.b8, .b16, .b32, .b64)");
            if (inst.vector_width == 4 && inst.type == ScalarType::b64)
                fail(op_token, "'" + opname + "': .v4 with .b64 is not allowed (PTX ISA 9.0, Sec. 9.7.10.7)");
            const Part& m = part();
            if (m.text == "trap") inst.surface_clamp = ir::SurfaceClamp::trap;
            else if (m.text == "clamp") inst.surface_clamp = ir::SurfaceClamp::clamp;
            else if (m.text == "zero") inst.surface_clamp = ir::SurfaceClamp::zero;
            else fail_part(op_token, m, "expected .trap, .clamp or .zero, found ." + std::string(m.text));
            ++i;
        }
        if (i < parts.size()) fail_part(op_token, parts[i], "unsupported modifier '." + std::string(parts[i].text) + "' on '" + std::string(ir::name(inst.op)) + "'");

        const auto coordinate_count = [&]() -> unsigned {
            switch (inst.geometry) {
            case TexGeometry::d1: return 1;
            case TexGeometry::d2: case TexGeometry::a1d: return 2;
            default: return 4;
            }
        };
        const auto data_vector = [&](std::size_t index, bool is_dest) {
            RawOperand raw = parse_raw_operand();
            if (raw.kind != RawOperand::Kind::vector) fail(*raw.at, operand_label(op_token, index) + " must be a vector {...}");
            return convert_vector(inst, op_token, raw, RoleSpec{is_dest ? Role::dst_data : Role::src_data, inst.type}, index, is_dest);
        };
        // [object, {coordinates}] fills two operands.
        const auto object_and_coordinates = [&](std::size_t index) {
            expect_punct('[', "to open a texture or surface operand [object, {coordinates}]");
            const Token& object = expect_word("a texture or surface object register");
            ir::Operand h;
            h.kind = ir::OperandKind::reg;
            if (!find_register(object.text)) {
                if (find_symbol(object.text))
                    fail(object, "texture and surface references (.texref/.surfref '" + std::string(object.text) +
                                     "') are not supported; use texture and surface objects");
                fail(object, "undeclared register '" + std::string(object.text) + "'");
            }
            h.reg = resolve_register(object);
            check_register_type(inst, op_token, object, h.reg, ScalarType::b64, index, false);
            expect_punct(',', "between the object and its coordinates");
            const Token& open = peek();
            if (!open.is_punct('{')) fail(open, "expected a coordinate vector {...}, found " + describe(open));
            RawOperand raw = parse_raw_operand();
            if (raw.count != coordinate_count())
                fail(open, "." + std::string(ir::name(inst.geometry)) + " takes " + std::to_string(coordinate_count()) +
                               " coordinate" + (coordinate_count() == 1 ? "" : "s") + ", found " + std::to_string(raw.count));
            ir::Operand c;
            c.kind = ir::OperandKind::vector;
            c.vector_count = raw.count;
            const bool layered = inst.geometry == TexGeometry::a1d || inst.geometry == TexGeometry::a2d ||
                                 inst.geometry == TexGeometry::acube;
            for (std::uint8_t e = 0; e < raw.count; ++e) {
                const Token& t = *raw.elements[e];
                if (t.kind != TokenKind::word || t.text == "_") fail(t, "a coordinate must be a register");
                c.vector[e] = resolve_register(t);
                const ScalarType want = !is_tex || (layered && e == 0) ? ScalarType::s32 : inst.src_type;
                check_register_type(inst, op_token, t, c.vector[e], want, index + 1, false);
            }
            expect_punct(']', "to close a texture or surface operand");
            inst.operands[index] = h;
            inst.operands[index + 1] = c;
        };
        if (inst.op == ir::Opcode::sust) {
            object_and_coordinates(0);
            expect_punct(',', "after the surface operand");
            inst.operands[2] = data_vector(2, false);
            inst.num_operands = 3;
        } else {
            inst.operands[0] = data_vector(0, true);
            expect_punct(',', "after the destination");
            object_and_coordinates(1);
            inst.num_operands = 3;
            if (inst.tex_level) {
                expect_punct(',', "before the level of detail of tex.level");
                const Token& lod = expect_word("the level-of-detail register");
                ir::Operand l;
                l.kind = ir::OperandKind::reg;
                l.reg = resolve_register(lod);
                check_register_type(inst, op_token, lod, l.reg, ScalarType::f32, 3, false);
                inst.operands[3] = l;
                inst.num_operands = 4;
            }
        }
        const Token& semi = peek();
        if (!semi.is_punct(';')) fail(semi, "expected ';' after '" + opname + "', found " + describe(semi));
        next();
        function_->body.code.push_back(inst);
    }

    // ---- cp.async (issue 20; PTX ISA 9.0, Sec. 9.7.9.25, sm_80)
    // cp.async.ca.shared{::cta}.global{.L2::64B|.L2::128B|.L2::256B} [dst], [src], cp-size{, src-size | ignore-src};
    // cp.async.cg.shared{::cta}.global... with cp-size 16; cp.async.commit_group; cp.async.wait_group N;
    // cp.async.wait_all. The L2 prefetch sizes are hints and ignored; cache policies (.L2::cache_hint), the bulk
    // and tensor forms (sm_90) and cp.async.mbarrier.arrive are rejected. IR: space global (the timed access),
    // cache_level L1 (.ca) or L2 (.cg); operands [dst], [src], cp-size, then src-size (src_type u32) or ignore-src
    // (src_type pred); wait_group's N is operand 0.
    void parse_cp_async(ir::Instruction& inst, const Token& op_token, const std::vector<Part>& parts) {
        const auto finish = [&](ir::Opcode op, std::size_t modifiers) {
            if (parts.size() > modifiers)
                fail_part(op_token, parts[modifiers], "unsupported modifier '." + std::string(parts[modifiers].text) +
                                                          "' on '" + std::string(ir::name(op)) + "'");
            inst.op = op;
        };
        const std::string_view kind = parts.size() > 2 ? parts[2].text : std::string_view();
        if (kind == "commit_group" || kind == "wait_all") {
            finish(kind == "commit_group" ? ir::Opcode::cp_async_commit_group : ir::Opcode::cp_async_wait_all, 3);
            expect_punct(';', "after '" + std::string(op_token.text) + "'");
            function_->body.code.push_back(inst);
            return;
        }
        if (kind == "wait_group") {
            finish(ir::Opcode::cp_async_wait_group, 3);
            const RawOperand n = parse_raw_operand();
            if (n.kind != RawOperand::Kind::integer || n.bits > 0xffffffffU)
                fail(*n.at, "cp.async.wait_group takes an integer constant (the number of groups left pending)");
            expect_punct(';', "after '" + std::string(op_token.text) + "'");
            inst.num_operands = 1;
            inst.operands[0].kind = ir::OperandKind::imm;
            inst.operands[0].imm_bits = n.bits;
            function_->body.code.push_back(inst);
            return;
        }
        if (kind == "bulk")
            fail(op_token, "unsupported instruction '" + std::string(op_token.text) +
                               "': bulk asynchronous copies (cp.async.bulk, sm_90) are not supported");
        if (kind == "mbarrier")
            fail(op_token, "unsupported instruction '" + std::string(op_token.text) +
                               "': asynchronous barriers (cp.async.mbarrier.arrive) are not supported");
        inst.op = ir::Opcode::cp_async;
        bool shared = false, global = false;
        for (std::size_t i = 2; i < parts.size(); ++i) {
            const Part& part = parts[i];
            const std::string_view m = part.text;
            if (m == "ca" || m == "cg") {
                set_once(inst.cache_level, m == "ca" ? ir::CacheLevel::L1 : ir::CacheLevel::L2, op_token, part);
            } else if (m == "shared" || m == "shared::cta") {
                if (global) fail_part(op_token, part, "cp.async names the destination space before the source: .shared.global");
                set_flag(shared, op_token, part);
            } else if (m == "global") {
                set_flag(global, op_token, part);
            } else if (m == "L2::64B" || m == "L2::128B" || m == "L2::256B") {
                // an L2 prefetch-size hint: no value depends on it
            } else if (m == "L2::cache_hint") {
                fail_part(op_token, part, "cache-policy operands (.L2::cache_hint) are not supported");
            } else if (m == "shared::cluster") {
                fail_part(op_token, part, "cp.async to another CTA's shared memory (.shared::cluster, sm_90) is not supported");
            } else {
                fail_part(op_token, part, "unsupported modifier '." + std::string(m) + "' on 'cp.async'");
            }
        }
        if (inst.cache_level == ir::CacheLevel::none) fail(op_token, "'" + std::string(op_token.text) + "' needs .ca or .cg");
        if (!shared || !global) fail(op_token, "'" + std::string(op_token.text) + "' needs .shared.global (shared destination, global source)");
        std::vector<RawOperand> raw;
        do {
            raw.push_back(parse_raw_operand());
        } while (accept_punct(','));
        const Token& semi = peek();
        if (!semi.is_punct(';'))
            fail(semi, "expected ',' or ';' after an operand of '" + std::string(op_token.text) + "', found " + describe(semi));
        next();
        if (raw.size() < 3 || raw.size() > 4)
            fail(raw.size() > 4 ? *raw[4].at : op_token,
                 "'" + std::string(op_token.text) + "' expects 3 or 4 operands ([dst], [src], cp-size[, src-size or "
                 "ignore-src]), found " + std::to_string(raw.size()));
        inst.space = ir::StateSpace::shared;
        inst.operands[0] = convert_address(inst, op_token, raw[0], 0);
        inst.space = ir::StateSpace::global;
        inst.operands[1] = convert_address(inst, op_token, raw[1], 1);
        if (raw[2].kind != RawOperand::Kind::integer) fail(*raw[2].at, operand_label(op_token, 2) + " (cp-size) must be 4, 8 or 16");
        const std::uint64_t size = raw[2].bits;
        if (size != 4 && size != 8 && size != 16) fail(*raw[2].at, operand_label(op_token, 2) + " (cp-size) must be 4, 8 or 16");
        if (inst.cache_level == ir::CacheLevel::L2 && size != 16) fail(*raw[2].at, "cp.async.cg copies 16 bytes (cp-size 16)");
        inst.operands[2].kind = ir::OperandKind::imm;
        inst.operands[2].imm_bits = size;
        inst.num_operands = 3;
        if (raw.size() == 4) {
            const RawOperand& r = raw[3];
            const auto reg = r.kind == RawOperand::Kind::name ? find_register(r.name->text) : std::nullopt;
            if (reg && register_type(*reg) == ir::ScalarType::pred) {
                inst.src_type = ir::ScalarType::pred; // ignore-src
                inst.operands[3] = convert_operand(inst, op_token, r, RoleSpec{Role::pred, ir::ScalarType::pred}, 3);
            } else {
                inst.src_type = ir::ScalarType::u32; // src-size
                inst.operands[3] = convert_operand(inst, op_token, r, RoleSpec{Role::src, ir::ScalarType::u32}, 3);
                if (inst.operands[3].kind == ir::OperandKind::imm && inst.operands[3].imm_bits > size)
                    fail(*r.at, operand_label(op_token, 3) + " (src-size " + std::to_string(inst.operands[3].imm_bits) +
                                    ") exceeds cp-size " + std::to_string(size));
            }
            inst.num_operands = 4;
        }
        function_->body.code.push_back(inst);
    }

    // ---- call
    void parse_call(ir::Instruction& inst, const Token& op_token, const std::vector<Part>& parts) {
        for (std::size_t i = 1; i < parts.size(); ++i)
            if (parts[i].text != "uni") fail_part(op_token, parts[i], "unsupported modifier '." + std::string(parts[i].text) + "' on 'call'");
            else set_flag(inst.uni, op_token, parts[i]);
        CallSite site;
        site.line = op_token.line;
        site.column = op_token.column;
        const auto parse_symbol_list = [&](std::vector<ir::SymbolId>& out, std::string_view what) {
            expect_punct('(', "to open the call's " + std::string(what) + " list");
            if (accept_punct(')')) return;
            do {
                const Token& t = peek();
                if (t.kind != TokenKind::word)
                    fail(t, "call " + std::string(what) + " must be .param variables, found " + describe(t));
                next();
                auto sym = find_symbol(t.text);
                if (!sym || sym->scope != ir::SymbolScope::kernel_local || sym->space != ir::StateSpace::param)
                    fail(t, "call " + std::string(what) + " '" + std::string(t.text) +
                                "' must be a .param variable declared in the calling scope");
                out.push_back(sym->id);
            } while (accept_punct(','));
            expect_punct(')', "to close the call's " + std::string(what) + " list");
        };
        if (peek().is_punct('(')) {
            parse_symbol_list(site.returns, "return value");
            expect_punct(',', "after the call's return list");
        }
        const Token& callee = expect_word("a function name");
        if (auto target = find_register(callee.text)) {
            // `call (r), %rd, (args), prototype;`: an indirect call (ptx/inliner.hpp dispatches it).
            const ir::ScalarType type = function_->body.registers[*target].type;
            if (ir::size_bytes(type) != 8 || ir::is_float(type))
                fail(callee, "an indirect call's target '" + std::string(callee.text) + "' must be a 64-bit integer register");
            site.target = *target;
            if (accept_punct(',') && peek().is_punct('(')) parse_symbol_list(site.args, "argument");
            if (peek().is_punct(',')) next();
            const Token& proto = expect_word("the call's .callprototype label");
            auto p = prototypes_.find(proto.text);
            if (p == prototypes_.end())
                fail(proto, "'" + std::string(proto.text) +
                                "' is not a .callprototype declared before this call in the function (.calltargets lists "
                                "are not supported)");
            site.prototype = p->second;
            if (site.prototype.returns.size() != site.returns.size() || site.prototype.args.size() != site.args.size())
                fail(proto, "the indirect call passes " + std::to_string(site.args.size()) + " argument(s) and " +
                                std::to_string(site.returns.size()) + " return value(s); its prototype '" +
                                std::string(proto.text) + "' has " + std::to_string(site.prototype.args.size()) + " and " +
                                std::to_string(site.prototype.returns.size()));
            return add_call(inst, std::move(site));
        }
        if (callee.text.front() == '%') fail(callee, "undeclared register '" + std::string(callee.text) + "'");
        auto it = function_index_.find(callee.text);
        if (it == function_index_.end()) fail(callee, "call to undeclared function '" + std::string(callee.text) + "'");
        if (functions_[it->second].is_entry) fail(callee, "cannot call the kernel '" + std::string(callee.text) + "'");
        site.callee = std::string(callee.text);
        if (accept_punct(',')) {
            if (peek().is_punct('(')) parse_symbol_list(site.args, "argument");
            else fail(peek(), "expected '(' to open the call's argument list, found " + describe(peek()));
            if (peek().is_punct(',')) fail(peek(), "indirect calls with a prototype are not supported");
        }
        add_call(inst, std::move(site));
    }

    // Ends a call statement: Opcode::call whose immediate indexes the function's call sites (ptx/function.hpp).
    void add_call(ir::Instruction& inst, CallSite site) {
        expect_punct(';', "after a call");
        inst.op = ir::Opcode::call;
        inst.num_operands = 1;
        inst.operands[0].kind = ir::OperandKind::imm;
        inst.operands[0].imm_bits = function_->calls.size();
        function_->calls.push_back(std::move(site));
        function_->body.code.push_back(inst);
    }

    // ------------------------------------------------------------------ state
    std::string file_;
    Limits limits_;
    // Lexing on demand changes no observable state of the parse: peek() is const, the lexer and window mutable.
    mutable Lexer lexer_;
    mutable std::deque<Token> window_;
    std::size_t cursor_ = 0;
    ir::Module module_;
    std::vector<Function> functions_;
    NameMap<std::size_t> function_index_;
    NameMap<ir::SymbolId> global_index_;
    // Per function body.
    Function* function_ = nullptr;
    std::vector<NameMap<ir::RegId>> register_scopes_;
    std::vector<NameMap<ir::SymbolId>> symbol_scopes_;
    NameMap<ir::SymbolId> param_index_;
    NameMap<ir::Pc> labels_;
    std::vector<LabelRef> label_refs_;
    NameMap<CallPrototype> prototypes_; // .callprototype labels of the function being read
    // Bytes used so far, as read (account_variable), and instructions and registers so far in the module.
    std::uint64_t module_shared_bytes_ = 0, module_const_bytes_ = 0, module_global_bytes_ = 0;
    std::uint64_t function_local_bytes_ = 0, function_shared_bytes_ = 0;
    std::size_t module_instructions_ = 0, module_registers_ = 0;
};

} // namespace detail

// Parses, inlines, lays out and analyses a PTX module. Throws ParseError ("file:line:column: message"), also
// when a limit of `limits` is passed or the host runs out of memory.
inline ir::Module parse(std::string_view text, std::string file_name = "<string>", const Limits& limits = {}) {
    try {
        return detail::Parser(text, std::move(file_name), limits).run();
    } catch (const std::bad_alloc&) {
        // Only the parser's construction (copying the file name) can get here; run() reports its own.
        throw ParseError(SourcePosition{}, "out of host memory while parsing");
    }
}

// Reads and parses a file; the file name in errors is the path as given. Throws ParseError when the path is not
// a readable regular file (a directory is named as such) or holds more than limits.max_file_bytes bytes; reading
// stops one byte past the limit, so a huge file or an endless pipe costs no more than the limit.
inline ir::Module parse_file(const std::filesystem::path& path, const Limits& limits = {}) {
    const std::string name = path.string();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw ParseError(SourcePosition{name, 0, 0}, "is a directory, not a PTX file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ParseError(SourcePosition{name, 0, 0}, "cannot open PTX file");
    std::string text;
    try {
        const std::uint64_t cap = limits.max_file_bytes + 1;
        constexpr std::size_t chunk = std::size_t{1} << 20;
        while (in && text.size() < cap) {
            const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, cap - text.size()));
            const std::size_t old_size = text.size();
            text.resize(old_size + want);
            in.read(text.data() + old_size, static_cast<std::streamsize>(want));
            text.resize(old_size + static_cast<std::size_t>(in.gcount()));
        }
    } catch (const std::bad_alloc&) {
        throw ParseError(SourcePosition{name, 0, 0}, "out of host memory while reading PTX file");
    }
    if (in.bad()) throw ParseError(SourcePosition{name, 0, 0}, "error while reading PTX file");
    return parse(text, name, limits);
}

} // namespace gpuarch::ptx
