#pragma once
// The parser's top layer: the module-scope directives, and run(), which parses, inlines, lays out and analyses.
#include <deque>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/analyse.hpp>
#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/inliner.hpp>
#include <gpuarch/ptx/parser/functions.hpp>

namespace gpuarch::ptx::detail {

class Parser : public FunctionParser {
public:
    using FunctionParser::FunctionParser;

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

private:
    // Frees what the parse holds before building the message, so that message can be allocated.
    [[noreturn]] void out_of_memory() {
        SourcePosition where = position();
        module_ = ir::Module{};
        std::vector<Function>().swap(functions_);
        std::deque<Token>().swap(window_);
        throw ParseError(std::move(where), "out of host memory while parsing");
    }

    // ------------------------------------------------------------------ module scope
    void parse_module() {
        Linkage linkage;
        bool seen_version = false, seen_target = false;
        while (true) {
            release();
            const Token& t = peek();
            if (t.kind == TokenKind::end) break;
            if (t.kind != TokenKind::directive) fail(t, "expected a directive at module scope, found " + describe(t));
            const std::string_view d = t.text;
            if (linkage.any() && d != ".entry" && d != ".func" && d != ".global" && d != ".const" && d != ".shared" &&
                d != ".visible" && d != ".extern" && d != ".weak" && d != ".common")
                fail(t, "linking directive " + std::string(linkage.first->text) +
                            " must precede a variable or function, not " + std::string(d));
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
                bool& flag = d == ".visible"  ? linkage.is_visible
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
                fail(t,
                     "module-scope .local variables are not supported (deprecated in PTX; declare them in a function)");
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
};

} // namespace gpuarch::ptx::detail
