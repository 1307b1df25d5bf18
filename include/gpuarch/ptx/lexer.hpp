#pragma once
// PTX tokens. Contract: Lexer::next() returns the input's tokens one at a time, in one linear pass, then
// TokenKind::end forever; it throws ParseError at the first character it cannot lex. It holds no tokens itself,
// so the parser decides how many it keeps (ptx/parser.hpp keeps one statement's worth). tokenize() collects every
// token of an input (for tests and tools). Comments (// and /* */) and whitespace produce no tokens. Token::text
// views the input, which must outlive the tokens.
//
// Token shapes (PTX ISA 9.0, Sec. 4):
//   word       an identifier or instruction: [A-Za-z_$%][A-Za-z0-9_$]* followed by any number of `.name` parts
//              and `::name` parts, so `ld.global.nc.v4.f32`, `%tid.x`, `$L__BB0_3`, `ld.global.L1::no_allocate.f32`
//              are single words (PTX identifiers contain no dots, so nothing is merged by accident)
//   directive  `.` followed by an identifier: `.reg`, `.b32`, `.align`
//   integer    decimal, 0x hex, 0b binary, 0-prefixed octal, optional U suffix (value checked by the parser)
//   f32_hex    0f/0F + exactly 8 hex digits;  f64_hex: 0d/0D + exactly 16 hex digits
//   decimal_float  digits with a fraction and/or exponent ("9.0", "1e-3"): used by .version and as f64 literals
//   string     "..." on one line, backslash escapes kept verbatim
//   punct      one of { } [ ] ( ) , ; : + - ! | @ < > =
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <gpuarch/ptx/parse_error.hpp>

namespace gpuarch::ptx {

enum class TokenKind : std::uint8_t { end, word, directive, integer, f32_hex, f64_hex, decimal_float, string, punct };

struct Token {
    TokenKind kind = TokenKind::end;
    std::string_view text;
    std::uint32_t line = 0;
    std::uint32_t column = 0;

    bool is_punct(char c) const { return kind == TokenKind::punct && text.size() == 1 && text[0] == c; }
    bool is_directive(std::string_view d) const { return kind == TokenKind::directive && text == d; }
};

namespace detail {
constexpr bool is_ident_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
constexpr bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
} // namespace detail

class Lexer {
public:
    // `file_name` is referenced, not copied: it must outlive the lexer.
    Lexer(std::string_view text, const std::string& file_name) : text_(text), file_name_(file_name) {}

    Token next() {
        const std::string_view text = text_;
        const std::size_t n = text.size();
        std::size_t& i = i_;
        std::uint32_t& line = line_;
        std::size_t& line_start = line_start_;
        const auto column_of = [&](std::size_t at) { return static_cast<std::uint32_t>(at - line_start + 1); };
        const auto fail = [&](std::size_t at, const std::string& message) {
            throw ParseError(SourcePosition{file_name_, line, column_of(at)}, message);
        };
        const auto token = [&](TokenKind kind, std::size_t begin, std::size_t end) {
            return Token{kind, text.substr(begin, end - begin), line, column_of(begin)};
        };
        while (i < n) {
            const char c = text[i];
            if (c == '\n') {
                ++i;
                ++line;
                line_start = i;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++i;
                continue;
            }
            if (c == '/' && i + 1 < n && text[i + 1] == '/') {
                while (i < n && text[i] != '\n') ++i;
                continue;
            }
            if (c == '/' && i + 1 < n && text[i + 1] == '*') {
                const std::size_t start = i;
                const std::uint32_t start_line = line;
                const std::uint32_t start_column = column_of(start);
                i += 2;
                while (i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/')) {
                    if (text[i] == '\n') {
                        ++line;
                        line_start = i + 1;
                    }
                    ++i;
                }
                if (i >= n)
                    throw ParseError(SourcePosition{file_name_, start_line, start_column}, "unterminated /* comment");
                i += 2;
                continue;
            }
            const std::size_t begin = i;
            if (detail::is_ident_start(c) || c == '%') {
                ++i;
                if (c == '%' && (i >= n || !detail::is_ident_char(text[i])))
                    fail(begin, "'%' must be followed by a register name");
                while (i < n) {
                    if (detail::is_ident_char(text[i])) {
                        ++i;
                    } else if (text[i] == '.' && i + 1 < n && detail::is_ident_char(text[i + 1])) {
                        i += 2;
                    } else if (text[i] == ':' && i + 2 < n && text[i + 1] == ':' &&
                               detail::is_ident_char(text[i + 2])) {
                        i += 3;
                    } else {
                        break;
                    }
                }
                return token(TokenKind::word, begin, i);
            }
            if (c == '.') {
                ++i;
                if (i >= n || !detail::is_ident_start(text[i])) fail(begin, "'.' must start a directive name");
                while (i < n && detail::is_ident_char(text[i])) ++i;
                return token(TokenKind::directive, begin, i);
            }
            if (detail::is_digit(c)) {
                TokenKind kind = TokenKind::integer;
                const char p = i + 1 < n ? text[i + 1] : '\0';
                if (c == '0' && (p == 'f' || p == 'F' || p == 'd' || p == 'D')) {
                    const std::size_t digits = (p == 'f' || p == 'F') ? 8 : 16;
                    i += 2;
                    const std::size_t start = i;
                    while (i < n && detail::is_hex_digit(text[i])) ++i;
                    if (i - start != digits)
                        fail(begin, std::string("a 0") + p + " floating-point literal needs exactly " +
                                        std::to_string(digits) + " hex digits");
                    kind = digits == 8 ? TokenKind::f32_hex : TokenKind::f64_hex;
                } else if (c == '0' && (p == 'x' || p == 'X')) {
                    i += 2;
                    const std::size_t start = i;
                    while (i < n && detail::is_hex_digit(text[i])) ++i;
                    if (i == start) fail(begin, "hex literal without digits");
                    if (i < n && text[i] == 'U') ++i;
                } else if (c == '0' && (p == 'b' || p == 'B')) {
                    i += 2;
                    const std::size_t start = i;
                    while (i < n && (text[i] == '0' || text[i] == '1')) ++i;
                    if (i == start) fail(begin, "binary literal without digits");
                    if (i < n && text[i] == 'U') ++i;
                } else {
                    while (i < n && detail::is_digit(text[i])) ++i;
                    bool is_float = false;
                    if (i + 1 < n && text[i] == '.' && detail::is_digit(text[i + 1])) {
                        is_float = true;
                        ++i;
                        while (i < n && detail::is_digit(text[i])) ++i;
                    }
                    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
                        std::size_t j = i + 1;
                        if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
                        if (j < n && detail::is_digit(text[j])) {
                            is_float = true;
                            i = j;
                            while (i < n && detail::is_digit(text[i])) ++i;
                        }
                    }
                    if (is_float) kind = TokenKind::decimal_float;
                    else if (i < n && text[i] == 'U') ++i;
                }
                if (i < n && (detail::is_ident_char(text[i]) || text[i] == '.'))
                    fail(begin, "malformed number '" + std::string(text.substr(begin, i + 1 - begin)) + "'");
                return token(kind, begin, i);
            }
            if (c == '"') {
                ++i;
                while (i < n && text[i] != '"' && text[i] != '\n') {
                    if (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
                    ++i;
                }
                if (i >= n || text[i] != '"') fail(begin, "unterminated string literal");
                ++i;
                return token(TokenKind::string, begin, i);
            }
            switch (c) {
            case '{':
            case '}':
            case '[':
            case ']':
            case '(':
            case ')':
            case ',':
            case ';':
            case ':':
            case '+':
            case '-':
            case '!':
            case '|':
            case '@':
            case '<':
            case '>':
            case '=': ++i; return token(TokenKind::punct, begin, i);
            default: break;
            }
            const auto byte = static_cast<unsigned char>(c);
            if (byte >= 0x20 && byte < 0x7f) fail(begin, std::string("unexpected character '") + c + "'");
            static constexpr char hex[] = "0123456789abcdef";
            fail(begin, std::string("unexpected byte 0x") + hex[byte >> 4] + hex[byte & 15]);
        }
        return Token{TokenKind::end, text.substr(n), line, column_of(n)};
    }

private:
    std::string_view text_;
    const std::string& file_name_;
    std::size_t i_ = 0;
    std::uint32_t line_ = 1;
    std::size_t line_start_ = 0;
};

// Out of host memory, throws ParseError at the last token lexed, never std::bad_alloc.
inline std::vector<Token> tokenize(std::string_view text, const std::string& file_name) {
    Lexer lexer(text, file_name);
    std::vector<Token> tokens;
    Token last{};
    try {
        do {
            last = lexer.next();
            tokens.push_back(last);
        } while (last.kind != TokenKind::end);
    } catch (const std::bad_alloc&) {
        std::vector<Token>().swap(tokens);
        throw ParseError(SourcePosition{file_name, last.line, last.column}, "out of host memory while lexing");
    }
    return tokens;
}

} // namespace gpuarch::ptx
