#pragma once
// The one exception the PTX front end throws. Contract: what() is "file:line:column: message", the position is
// the first character of the offending token (1-based; columns count bytes, a tab is one column), and the
// message names the construct ("unsupported instruction 'wmma.load.a.sync...'"). A word of the message (a run
// without whitespace: an identifier, a number, a quoted name) longer than max_word_in_message characters is
// shortened to its start and end plus its length, so an error about a 10 MB identifier stays one line long.
#include <cstddef>
#include <string>
#include <utility>

#include <gpuarch/core/error.hpp>

namespace gpuarch::ptx {

// Long enough for the mangled C++ names nvcc emits for ordinary templates, which are kept whole.
inline constexpr std::size_t max_word_in_message = 256;

inline std::string shorten_long_words(std::string message) {
    constexpr std::size_t head = 120, tail = 40;
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    std::string out;
    std::size_t i = 0;
    while (i < message.size()) {
        std::size_t end = i;
        while (end < message.size() && !is_space(message[end])) ++end;
        const std::size_t length = end - i;
        if (length > max_word_in_message) {
            out.append(message, i, head);
            out += "...";
            out.append(message, end - tail, tail);
            out += " (" + std::to_string(length) + " characters)";
        } else {
            out.append(message, i, length);
        }
        i = end;
        while (i < message.size() && is_space(message[i])) out += message[i++];
    }
    return out;
}

class ParseError : public Error {
public:
    // The base is initialized before the members, so message_ takes the shortened text.
    ParseError(SourcePosition where, std::string message)
        : Error(format_position(where) + ": " + (message = shorten_long_words(std::move(message)))),
          where_(std::move(where)), message_(std::move(message)) {}

    const SourcePosition& where() const { return where_; }
    const std::string& message() const { return message_; }

private:
    SourcePosition where_;
    std::string message_;
};

} // namespace gpuarch::ptx
