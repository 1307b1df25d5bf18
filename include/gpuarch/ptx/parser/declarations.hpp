#pragma once
// Declarations: linkage directives, .pragma, and variables with their types, array dimensions and initializers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gpuarch/ir/layout.hpp>
#include <gpuarch/ir/module.hpp>
#include <gpuarch/ptx/function.hpp>
#include <gpuarch/ptx/literals.hpp>
#include <gpuarch/ptx/modifiers.hpp>
#include <gpuarch/ptx/parser/raw_operand.hpp>
#include <gpuarch/ptx/parser/scope.hpp>

namespace gpuarch::ptx::detail {

class DeclarationParser : public ParseScope {
public:
    using ParseScope::ParseScope;

protected:
    // .visible, .extern, .weak and .common read before the declaration they apply to.
    struct Linkage {
        bool is_extern = false, is_visible = false, is_weak = false, is_common = false;
        std::optional<Token> first; // a copy: the tokens it came from are released before the declaration
        bool any() const { return is_extern || is_visible || is_weak || is_common; }
    };

    void parse_pragma() {
        next();
        const Token& s = peek();
        if (s.kind != TokenKind::string) fail(s, "expected a string after .pragma, found " + describe(s));
        next();
        while (accept_punct(',')) {
            if (peek().kind != TokenKind::string)
                fail(peek(), "expected a string in .pragma list, found " + describe(peek()));
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
                                  std::to_string(target.count) + " for " + std::to_string(target.capacity) +
                                  " elements)");
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
        default: return false;
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
                fail(*v.at,
                     "initializer " + std::string(v.at->text) + " does not fit in ." + std::string(ir::name(type)));
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
                    fail(name_token,
                         "an array without a size is only allowed for .extern .shared (dynamic shared memory)");
            }
            if (linkage.is_extern && !(space == ir::StateSpace::shared && count == 0))
                fail(name_token,
                     "external variable '" + name +
                         "' is defined in another module (separate compilation and linking are not supported)");
            if (count != 0) account_variable(name_token, symbol, module_scope);
            if (module_scope) declare_global(name_token, std::move(symbol));
            else declare_local_symbol(name_token, std::move(symbol));
        } while (accept_punct(','));
        expect_punct(';', "after a variable declaration");
    }
};

} // namespace gpuarch::ptx::detail
