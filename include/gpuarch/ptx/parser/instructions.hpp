#pragma once
// Statements: an optional guard, the opcode word, its operands; and the instructions read by their own rules
// (texture and surface access, cp.async, call).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/module.hpp>
#include <gpuarch/ir/names.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/modifiers.hpp>
#include <gpuarch/ptx/parser/instruction_names.hpp>
#include <gpuarch/ptx/parser/modifier_rules.hpp>

namespace gpuarch::ptx::detail {

class InstructionParser : public ModifierParser {
public:
    using ModifierParser::ModifierParser;

protected:
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
                    parts.push_back(
                        Part{text.substr(start, i - start), op_token.column + static_cast<std::uint32_t>(start)});
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
        for (std::size_t i = first_modifier; i < parts.size(); ++i)
            apply_modifier(inst, op_token, head, parts[i], types);
        finish_modifiers(inst, op_token, head, types);

        std::vector<RawOperand> raw;
        if (!peek().is_punct(';')) {
            do {
                raw.push_back(parse_raw_operand());
            } while (accept_punct(','));
        }
        const Token& semi = peek();
        if (!semi.is_punct(';'))
            fail(semi, "expected ',' or ';' after an operand of '" + std::string(op_token.text) + "', found " +
                           describe(semi));
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

    // ---- texture and surface instructions
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
            if (i >= parts.size())
                fail(op_token, "'" + opname + "' is incomplete: it needs " +
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
            if (part().text == "p")
                fail_part(op_token, part(),
                          "formatted surface access (" + std::string(ir::name(inst.op)) + ".p) is not supported; " +
                              std::string(ir::name(inst.op)) + ".b is");
            if (part().text != "b")
                fail_part(op_token, part(), "expected .b after '" + std::string(ir::name(inst.op)) + "'");
            ++i;
        }
        {
            const Part& g = part();
            static constexpr std::pair<std::string_view, TexGeometry> geometries[] = {
                {"1d", TexGeometry::d1},      {"2d", TexGeometry::d2},   {"3d", TexGeometry::d3},
                {"a1d", TexGeometry::a1d},    {"a2d", TexGeometry::a2d}, {"cube", TexGeometry::cube},
                {"acube", TexGeometry::acube}};
            for (const auto& [text, geometry] : geometries)
                if (g.text == text) inst.geometry = geometry;
            if (g.text == "2dms" || g.text == "a2dms")
                fail_part(op_token, g, "multisample textures (." + std::string(g.text) + ") are not supported");
            if (inst.geometry == TexGeometry::none)
                fail_part(op_token, g,
                          "expected a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube), found ." +
                              std::string(g.text));
            if (!is_tex && (inst.geometry == TexGeometry::cube || inst.geometry == TexGeometry::acube))
                fail_part(op_token, g,
                          "." + std::string(g.text) + " is not a surface geometry (PTX ISA 9.0, Sec. 9.7.10.7)");
            if (!is_tex && (inst.geometry == TexGeometry::a1d || inst.geometry == TexGeometry::a2d))
                fail_part(op_token, g, "layered surfaces (." + std::string(g.text) + ") are not supported");
            ++i;
        }
        if (part().text == "v4" || part().text == "v2") {
            if (is_tex && part().text == "v2")
                fail_part(op_token, part(), "tex.v2 (half-precision results) is not supported; tex.v4 is");
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
            inst.type =
                type_part({ScalarType::f32, ScalarType::s32, ScalarType::u32}, "a result type (.f32, .s32, .u32)");
            if (inst.geometry == TexGeometry::cube || inst.geometry == TexGeometry::acube)
                inst.src_type = type_part({ScalarType::f32}, "the coordinate type .f32 (a cube map reads a direction)");
            else inst.src_type = type_part({ScalarType::f32, ScalarType::s32}, "a coordinate type (.f32, .s32)");
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
        if (i < parts.size())
            fail_part(op_token, parts[i],
                      "unsupported modifier '." + std::string(parts[i].text) + "' on '" +
                          std::string(ir::name(inst.op)) + "'");

        const auto coordinate_count = [&]() -> unsigned {
            switch (inst.geometry) {
            case TexGeometry::d1: return 1;
            case TexGeometry::d2:
            case TexGeometry::a1d: return 2;
            default: return 4;
            }
        };
        const auto data_vector = [&](std::size_t index, bool is_dest) {
            RawOperand raw = parse_raw_operand();
            if (raw.kind != RawOperand::Kind::vector)
                fail(*raw.at, operand_label(op_token, index) + " must be a vector {...}");
            return convert_vector(inst, op_token, raw, RoleSpec{is_dest ? Role::dst_data : Role::src_data, inst.type},
                                  index, is_dest);
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
                               " coordinate" + (coordinate_count() == 1 ? "" : "s") + ", found " +
                               std::to_string(raw.count));
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

    // ---- cp.async (PTX ISA 9.0, Sec. 9.7.9.25, sm_80)
    // cp.async.ca.shared{::cta}.global{.L2::64B|.L2::128B|.L2::256B} [dst], [src], cp-size{, src-size | ignore-src};
    // cp.async.cg.shared{::cta}.global... with cp-size 16; cp.async.commit_group; cp.async.wait_group N;
    // cp.async.wait_all. The L2 prefetch sizes are hints and ignored; cache policies (.L2::cache_hint), the bulk
    // and tensor forms (sm_90) and cp.async.mbarrier.arrive are rejected. IR: space global (the timed access),
    // cache_level L1 (.ca) or L2 (.cg); operands [dst], [src], cp-size, then src-size (src_type u32) or ignore-src
    // (src_type pred); wait_group's N is operand 0.
    void parse_cp_async(ir::Instruction& inst, const Token& op_token, const std::vector<Part>& parts) {
        const auto finish = [&](ir::Opcode op, std::size_t modifiers) {
            if (parts.size() > modifiers)
                fail_part(op_token, parts[modifiers],
                          "unsupported modifier '." + std::string(parts[modifiers].text) + "' on '" +
                              std::string(ir::name(op)) + "'");
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
                if (global)
                    fail_part(op_token, part, "cp.async names the destination space before the source: .shared.global");
                set_flag(shared, op_token, part);
            } else if (m == "global") {
                set_flag(global, op_token, part);
            } else if (m == "L2::64B" || m == "L2::128B" || m == "L2::256B") {
                // an L2 prefetch-size hint: no value depends on it
            } else if (m == "L2::cache_hint") {
                fail_part(op_token, part, "cache-policy operands (.L2::cache_hint) are not supported");
            } else if (m == "shared::cluster") {
                fail_part(op_token, part,
                          "cp.async to another CTA's shared memory (.shared::cluster, sm_90) is not supported");
            } else {
                fail_part(op_token, part, "unsupported modifier '." + std::string(m) + "' on 'cp.async'");
            }
        }
        if (inst.cache_level == ir::CacheLevel::none)
            fail(op_token, "'" + std::string(op_token.text) + "' needs .ca or .cg");
        if (!shared || !global)
            fail(op_token,
                 "'" + std::string(op_token.text) + "' needs .shared.global (shared destination, global source)");
        std::vector<RawOperand> raw;
        do {
            raw.push_back(parse_raw_operand());
        } while (accept_punct(','));
        const Token& semi = peek();
        if (!semi.is_punct(';'))
            fail(semi, "expected ',' or ';' after an operand of '" + std::string(op_token.text) + "', found " +
                           describe(semi));
        next();
        if (raw.size() < 3 || raw.size() > 4)
            fail(raw.size() > 4 ? *raw[4].at : op_token,
                 "'" + std::string(op_token.text) +
                     "' expects 3 or 4 operands ([dst], [src], cp-size[, src-size or "
                     "ignore-src]), found " +
                     std::to_string(raw.size()));
        inst.space = ir::StateSpace::shared;
        inst.operands[0] = convert_address(inst, op_token, raw[0], 0);
        inst.space = ir::StateSpace::global;
        inst.operands[1] = convert_address(inst, op_token, raw[1], 1);
        if (raw[2].kind != RawOperand::Kind::integer)
            fail(*raw[2].at, operand_label(op_token, 2) + " (cp-size) must be 4, 8 or 16");
        const std::uint64_t size = raw[2].bits;
        if (size != 4 && size != 8 && size != 16)
            fail(*raw[2].at, operand_label(op_token, 2) + " (cp-size) must be 4, 8 or 16");
        if (inst.cache_level == ir::CacheLevel::L2 && size != 16)
            fail(*raw[2].at, "cp.async.cg copies 16 bytes (cp-size 16)");
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
            if (parts[i].text != "uni")
                fail_part(op_token, parts[i], "unsupported modifier '." + std::string(parts[i].text) + "' on 'call'");
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
                fail(callee,
                     "an indirect call's target '" + std::string(callee.text) + "' must be a 64-bit integer register");
            site.target = *target;
            if (accept_punct(',') && peek().is_punct('(')) parse_symbol_list(site.args, "argument");
            if (peek().is_punct(',')) next();
            const Token& proto = expect_word("the call's .callprototype label");
            auto p = prototypes_.find(proto.text);
            if (p == prototypes_.end())
                fail(proto,
                     "'" + std::string(proto.text) +
                         "' is not a .callprototype declared before this call in the function (.calltargets lists "
                         "are not supported)");
            site.prototype = p->second;
            if (site.prototype.returns.size() != site.returns.size() || site.prototype.args.size() != site.args.size())
                fail(proto, "the indirect call passes " + std::to_string(site.args.size()) + " argument(s) and " +
                                std::to_string(site.returns.size()) + " return value(s); its prototype '" +
                                std::string(proto.text) + "' has " + std::to_string(site.prototype.args.size()) +
                                " and " + std::to_string(site.prototype.returns.size()));
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
};

} // namespace gpuarch::ptx::detail
