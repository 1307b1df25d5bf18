#pragma once
// Run-time settings of a simulation: which prebuilt variant runs (machine, scheduler, register file) and the knobs
// that need no recompilation, as `key = value` pairs like the gpgpusim.config files GPGPU-Sim's users know.
//
// Contract:
// - Every key is declared once, in settings.cpp's table, with its type, default and a one-line help text;
//   `setting_keys()` lists them, gpuarch-run --help-config prints them, and a test checks that
//   docs/cuda_runtime.md documents every one.
// - `Settings::set` rejects an unknown key or a malformed value with a gpuarch::Error that lists the valid keys or
//   values; a config file's errors carry `file:line`.
// - Settings remembers which keys were set explicitly, so a variant's printed name can list its run-time overrides.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuarch::support {

struct SettingKey {
    enum class Type : std::uint8_t { text, unsigned_integer, number, boolean, choice };
    std::string_view key;
    Type type;
    std::string_view default_value; // as text; "" = the machine preset's value
    std::string_view choices; // Type::choice: the valid values, '|'-separated; machine, scheduler and
        // register_file are checked against the registry instead
    std::string_view help;
};

// Every key Settings accepts, in documentation order.
const std::vector<SettingKey>& setting_keys();

class Settings {
public:
    // Sets `key` to `value` after checking both; `origin` ("file:line", "--machine", "GPUARCH_SETTINGS") prefixes
    // any error.
    void set(std::string_view key, std::string_view value, std::string_view origin = {});
    // Reads a config file: `key = value` lines, `#` comments, blank lines.
    void load_file(const std::filesystem::path& path);
    // Applies `key=value` pairs separated by newlines or ';' (how gpuarch-run hands settings to the runtime).
    void load_list(std::string_view list, std::string_view origin);
    // The pairs set so far, one `key=value` per line (the inverse of load_list).
    std::string to_list() const;

    bool has(std::string_view key) const { return values_.contains(std::string(key)); }
    // The value of `key`: as set, else its default ("" when the default is the preset's).
    std::string get(std::string_view key) const;
    std::uint64_t get_uint(std::string_view key) const;
    // A Type::number setting: a non-negative decimal ("0.01").
    double get_number(std::string_view key) const;
    bool get_bool(std::string_view key) const;
    // Unsigned value if set explicitly, else nullopt (a knob whose default is the preset's).
    std::optional<std::uint64_t> uint_if_set(std::string_view key) const;
    // Explicitly set keys with the given prefix ("l1." ...), for printing overrides.
    std::vector<std::pair<std::string, std::string>> explicit_with_prefix(std::string_view prefix) const;

private:
    std::map<std::string, std::string> values_;
};

} // namespace gpuarch::support
