#pragma once
// Contract: every error gpuarch reports at run time is a gpuarch::Error (or derived), whose what() is a
// complete sentence a user can act on. Nothing on the simulation path throws anything else.
#include <stdexcept>
#include <string>

namespace gpuarch {

class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A source position in a text input (PTX, a sweep spec). Lines and columns are 1-based; 0 means unknown.
struct SourcePosition {
    std::string file;
    unsigned line = 0;
    unsigned column = 0;
};

inline std::string format_position(const SourcePosition& where) {
    std::string text = where.file.empty() ? std::string("<input>") : where.file;
    if (where.line != 0) {
        text += ':' + std::to_string(where.line);
        if (where.column != 0) text += ':' + std::to_string(where.column);
    }
    return text;
}

} // namespace gpuarch
