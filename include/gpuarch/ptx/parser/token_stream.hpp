#pragma once
// The parser's bottom layer: tokens lexed on demand, and errors at a token or a position. The layers above it
// (each header in this folder derives from the one below; ptx/parser.hpp lists the order) read PTX through it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>

#include <gpuarch/core/error.hpp>
#include <gpuarch/ptx/lexer.hpp>
#include <gpuarch/ptx/limits.hpp>
#include <gpuarch/ptx/literals.hpp>
#include <gpuarch/ptx/parse_error.hpp>

namespace gpuarch::ptx::detail {

class TokenStream {
public:
    TokenStream(std::string_view text, std::string file_name, const Limits& limits)
        : file_(std::move(file_name)), limits_(limits), lexer_(text, file_) {
        if (text.size() > limits_.max_file_bytes) fail_input_size(text, limits_.max_file_bytes);
    }
    TokenStream(const TokenStream&) = delete; // lexer_ refers to file_
    TokenStream& operator=(const TokenStream&) = delete;

    // The input is longer than `limit` bytes: reports the position of its first byte past the limit.
    [[noreturn]] void fail_input_size(std::string_view text, std::uint64_t limit) const {
        const std::string_view head = text.substr(0, static_cast<std::size_t>(limit));
        const std::size_t last_newline = head.rfind('\n');
        const auto line = static_cast<std::uint32_t>(1 + std::count(head.begin(), head.end(), '\n'));
        const auto column = static_cast<std::uint32_t>(
            last_newline == std::string_view::npos ? head.size() + 1 : head.size() - last_newline);
        fail_at(line, column,
                "the input is longer than " + std::to_string(limit) +
                    " bytes (ptx::Limits::max_file_bytes); this is its first byte past the limit");
    }

protected:
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
        if (peek().kind != TokenKind::word)
            fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
        return next();
    }
    // A non-negative integer literal that fits in 32 bits.
    std::uint32_t parse_u32(std::string_view what) {
        const Token& t = peek();
        if (t.kind != TokenKind::integer)
            fail(t, "expected " + std::string(what) + " (an integer), found " + describe(t));
        next();
        const auto value = integer_literal_bits(t.text);
        if (!value || *value > 0xffffffffULL)
            fail(t, std::string(what) + " " + std::string(t.text) + " is out of range");
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

    std::string file_;
    Limits limits_;
    // Lexing on demand changes no observable state of the parse: peek() is const, the lexer and window mutable.
    mutable Lexer lexer_;
    mutable std::deque<Token> window_;
    std::size_t cursor_ = 0;
};

} // namespace gpuarch::ptx::detail
