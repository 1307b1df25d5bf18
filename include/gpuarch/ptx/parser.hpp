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
//   cvt                                                                       d, a (d, a, b for cvt.*.f16x2/bf16x2.f32:
//                                                                             a -> upper half)
//   cvta                                                                      d, a (register or symbol)
//   mov                                                                       d (reg or vector),
//                                                                             a (reg, imm, special, symbol, vector)
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
//   cp.async                                                                  [dst], [src], cp-size
//                                                                             [, src-size | ignore-src]
//   cp.async.wait_group                                                       N (immediate)
//   cp.async.commit_group cp.async.wait_all                                   (none)
//
// Implementation: parser/*.hpp, one class per layer, each deriving from the one below it and calling
// only into the layers below it:
//   parser/token_stream.hpp    tokens lexed on demand, errors
//   parser/scope.hpp           the state being built, name lookup, resource limits
//   parser/declarations.hpp    linkage, .pragma, variables and initializers
//   parser/operands.hpp        operands as written, operand roles, conversion to ir::Operand
//   parser/modifier_rules.hpp  opcode modifiers, and the per-family table of what each opcode requires
//   parser/instructions.hpp    statements, texture and surface access, cp.async, call
//   parser/functions.hpp       function headers and bodies
//   parser/module.hpp          module-scope directives and Parser::run()
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
#include <gpuarch/core/separate_compilation.hpp>
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
#include <gpuarch/ptx/parser/module.hpp>

namespace gpuarch::ptx {

// Parses, inlines, lays out and analyses a PTX module. Throws ParseError ("file:line:column: message"), also
// when a limit of `limits` is passed or the host runs out of memory. Under GPUARCH_SEPARATE_COMPILATION the parser
// is compiled in one unit only (gpuarch/core/separate_compilation.hpp): it is as large as the interpreter.
GPUARCH_SEPARATE_INLINE ir::Module parse(std::string_view text, std::string file_name = "<string>",
                                         const Limits& limits = {});
#if GPUARCH_SEPARATE_DEFINITIONS
GPUARCH_SEPARATE_INLINE ir::Module parse(std::string_view text, std::string file_name, const Limits& limits) {
    try {
        return detail::Parser(text, std::move(file_name), limits).run();
    } catch (const std::bad_alloc&) {
        // Only the parser's construction (copying the file name) can get here; run() reports its own.
        throw ParseError(SourcePosition{}, "out of host memory while parsing");
    }
}
#endif

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
