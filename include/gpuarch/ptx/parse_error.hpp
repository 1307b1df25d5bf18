#pragma once
// The one exception the PTX front end throws. Contract: what() is "file:line:column: message", the position is
// the first character of the offending token (1-based; columns count bytes, a tab is one column), and the
// message names the construct ("unsupported instruction 'wmma.load.a.sync...'").
#include <string>
#include <utility>

#include <gpuarch/core/error.hpp>

namespace gpuarch::ptx {

class ParseError : public Error {
public:
    ParseError(SourcePosition where, std::string message)
        : Error(format_position(where) + ": " + message), where_(std::move(where)), message_(std::move(message)) {}

    const SourcePosition& where() const { return where_; }
    const std::string& message() const { return message_; }

private:
    SourcePosition where_;
    std::string message_;
};

} // namespace gpuarch::ptx
