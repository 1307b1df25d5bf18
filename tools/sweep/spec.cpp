#include "spec.hpp"

#include <gpuarch/support/variants.hpp>

#include <gpuarch/core/error.hpp>

#include <corpus/corpus.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

namespace gpuarch::sweep {

namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

template <class T> void push_unique(std::vector<T>& out, const T& value) {
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
}

std::vector<std::string> corpus_names() {
    std::vector<std::string> out;
    for (const auto& c : kernels::corpus_cases()) out.emplace_back(c.name);
    return out;
}

std::vector<std::string> corpus_tags() {
    std::vector<std::string> out;
    for (const auto& c : kernels::corpus_cases()) {
        std::stringstream in{std::string(c.tags)};
        for (std::string tag; std::getline(in, tag, ',');) push_unique(out, tag);
    }
    return out;
}

class Reader {
public:
    explicit Reader(std::string_view origin) : origin_(origin) {}

    [[noreturn]] void fail(std::string_view where, const std::string& what) const {
        throw Error(origin_ + ": " + std::string(where) + ": " + what);
    }

    // A list of strings; a single string stands for a one-element list.
    std::vector<std::string> strings(const json& value, std::string_view where) const {
        std::vector<std::string> out;
        if (value.is_string()) {
            out.push_back(value.get<std::string>());
            return out;
        }
        if (!value.is_array()) fail(where, "expected a string or a list of strings, got " + value.dump());
        for (const auto& item : value) {
            if (!item.is_string()) fail(where, "expected a string, got " + item.dump());
            push_unique(out, item.get<std::string>());
        }
        if (out.empty()) fail(where, "the list is empty (a sweep over nothing)");
        return out;
    }

    const json& list(const json& value, std::string_view where) const {
        if (!value.is_array()) fail(where, "expected a list, got " + value.dump());
        if (value.empty()) fail(where, "the list is empty (a sweep over nothing)");
        return value;
    }

    static bool is_preset(const json& value) { return value.is_null() || (value.is_string() && value == "preset"); }

private:
    std::string origin_;
};

void check_keys(const Reader& reader, const json& object, std::string_view where,
                const std::vector<std::string>& allowed) {
    if (!object.is_object()) reader.fail(where, "expected an object, got " + object.dump());
    for (const auto& [key, value] : object.items())
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
            reader.fail(where, "unknown key '" + key + "' (valid: " + join(allowed) + ")");
}

std::vector<std::string> resolve_machines(const Reader& reader, const json& value) {
    const std::vector<std::string> valid = examples::machine_names();
    std::vector<std::string> out;
    for (const auto& name : reader.strings(value, "machines")) {
        if (name == "all") {
            for (const auto& m : valid) push_unique(out, m);
            continue;
        }
        if (std::find(valid.begin(), valid.end(), name) == valid.end())
            reader.fail("machines", "no machine named '" + name + "' (valid: " + join(valid) + ", or \"all\")");
        push_unique(out, name);
    }
    return out;
}

std::vector<std::string> resolve_schedulers(const Reader& reader, const json& value, const std::string& machine,
                                            const std::string& where) {
    const std::vector<std::string> valid = examples::scheduler_names(machine);
    std::vector<std::string> out;
    for (const auto& name : reader.strings(value, where)) {
        if (name == "all") {
            for (const auto& s : valid) push_unique(out, s);
            continue;
        }
        if (std::find(valid.begin(), valid.end(), name) == valid.end())
            reader.fail(where, "machine '" + machine + "' has no scheduler named '" + name +
                                   "' (valid: " + join(valid) + ", or \"all\")");
        push_unique(out, name);
    }
    return out;
}

// "all", a case name, or "tag:a" / "tag:a+b" (cases carrying every listed tag), in corpus order within a tag.
std::vector<std::string> resolve_kernels(const Reader& reader, const json& value) {
    const std::vector<std::string> names = corpus_names();
    const std::vector<std::string> tags = corpus_tags();
    std::vector<std::string> out;
    for (const auto& selector : reader.strings(value, "kernels")) {
        if (selector == "all") {
            for (const auto& n : names) push_unique(out, n);
        } else if (selector.rfind("tag:", 0) == 0) {
            std::vector<std::string> wanted;
            std::stringstream in(selector.substr(4));
            for (std::string tag; std::getline(in, tag, '+');) {
                if (std::find(tags.begin(), tags.end(), tag) == tags.end())
                    reader.fail("kernels", "no corpus kernel carries the tag '" + tag + "' in '" + selector +
                                               "' (tags: " + join(tags) + ")");
                wanted.push_back(tag);
            }
            if (wanted.empty()) reader.fail("kernels", "'" + selector + "' names no tag (tags: " + join(tags) + ")");
            bool any = false;
            for (const auto& c : kernels::corpus_cases()) {
                const bool all = std::all_of(wanted.begin(), wanted.end(),
                                             [&](const std::string& t) { return kernels::has_tag(c, t); });
                if (all) {
                    push_unique(out, std::string(c.name));
                    any = true;
                }
            }
            if (!any) reader.fail("kernels", "no corpus kernel carries all of '" + selector + "'");
        } else {
            if (std::find(names.begin(), names.end(), selector) == names.end())
                reader.fail("kernels", "no corpus kernel named '" + selector + "' (kernels: " + join(names) +
                                           "; or \"all\", or \"tag:T\" with T among " + join(tags) + ")");
            push_unique(out, selector);
        }
    }
    return out;
}

void read_knobs(const Reader& reader, const json& knobs, Spec& spec) {
    check_keys(reader, knobs, "knobs", {"mshr_entries", "allocate_on_fill", "clustered_ctas"});
    if (knobs.contains("mshr_entries")) {
        spec.mshr_entries.clear();
        for (const auto& v : reader.list(knobs["mshr_entries"], "knobs.mshr_entries")) {
            if (Reader::is_preset(v)) {
                push_unique(spec.mshr_entries, 0U);
            } else if (v.is_number_unsigned() && v.get<std::uint64_t>() >= 1 && v.get<std::uint64_t>() <= 65536) {
                push_unique(spec.mshr_entries, v.get<unsigned>());
            } else {
                reader.fail("knobs.mshr_entries",
                            "expected a number of MSHR entries in [1, 65536] or \"preset\", got " + v.dump());
            }
        }
    }
    if (knobs.contains("allocate_on_fill")) {
        spec.allocate_on_fill.clear();
        for (const auto& v : reader.list(knobs["allocate_on_fill"], "knobs.allocate_on_fill")) {
            if (Reader::is_preset(v)) push_unique(spec.allocate_on_fill, std::optional<bool>{});
            else if (v.is_boolean()) push_unique(spec.allocate_on_fill, std::optional<bool>{v.get<bool>()});
            else reader.fail("knobs.allocate_on_fill", "expected true, false or \"preset\", got " + v.dump());
        }
    }
    if (knobs.contains("clustered_ctas")) {
        spec.clustered_ctas.clear();
        for (const auto& v : reader.list(knobs["clustered_ctas"], "knobs.clustered_ctas")) {
            if (!v.is_boolean()) reader.fail("knobs.clustered_ctas", "expected true or false, got " + v.dump());
            push_unique(spec.clustered_ctas, v.get<bool>());
        }
    }
}

void read_slurm(const Reader& reader, const json& slurm, SlurmResources& out) {
    check_keys(reader, slurm, "slurm", {"cpus", "mem", "time", "partition", "chunk"});
    auto positive = [&](const char* key, unsigned& field) {
        if (!slurm.contains(key)) return;
        const json& v = slurm[key];
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 || v.get<std::uint64_t>() > 1000000)
            reader.fail(std::string("slurm.") + key, "expected a positive integer, got " + v.dump());
        field = v.get<unsigned>();
    };
    auto text = [&](const char* key, std::string& field) {
        if (!slurm.contains(key)) return;
        const json& v = slurm[key];
        if (!v.is_string()) reader.fail(std::string("slurm.") + key, "expected a string, got " + v.dump());
        field = v.get<std::string>();
        // These strings go into an sbatch script: refuse anything that could end the #SBATCH line.
        if (field.find_first_of("\n\r\"'`$\\ ") != std::string::npos)
            reader.fail(std::string("slurm.") + key,
                        "must not contain spaces, quotes or shell characters: " + v.dump());
    };
    positive("cpus", out.cpus);
    positive("chunk", out.chunk);
    text("mem", out.mem);
    text("time", out.time);
    text("partition", out.partition);
}

} // namespace

kernels::Size parse_size(std::string_view name) {
    if (name == "small") return kernels::Size::small;
    if (name == "large") return kernels::Size::large;
    throw Error("no size named '" + std::string(name) + "' (valid: small, large)");
}

Spec parse_spec(std::string_view text, std::string_view origin) {
    const Reader reader(origin);
    json root;
    try {
        root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        throw Error(std::string(origin) + ": not valid JSON: " + e.what());
    }
    check_keys(reader, root, "top level",
               {"name", "comment", "machines", "schedulers", "kernels", "sizes", "knobs", "slurm"});
    for (const char* required : {"machines", "kernels"})
        if (!root.contains(required)) reader.fail("top level", std::string("the key '") + required + "' is required");

    Spec spec;
    spec.name = "sweep";
    if (root.contains("name")) {
        if (!root["name"].is_string() || root["name"].get<std::string>().empty())
            reader.fail("name", "expected a non-empty string, got " + root["name"].dump());
        spec.name = root["name"].get<std::string>();
    }
    spec.machines = resolve_machines(reader, root["machines"]);

    const json all = "all";
    const json& schedulers = root.contains("schedulers") ? root["schedulers"] : all;
    if (schedulers.is_object()) {
        // Per machine: {"fermi": ["GTO"], "kepler": "all"}; a machine of the sweep left out is an error.
        for (const auto& [machine, value] : schedulers.items())
            if (std::find(spec.machines.begin(), spec.machines.end(), machine) == spec.machines.end())
                reader.fail("schedulers", "names machine '" + machine + "', which is not in \"machines\" (" +
                                              join(spec.machines) + ")");
        for (const auto& m : spec.machines) {
            if (!schedulers.contains(m)) reader.fail("schedulers", "gives no schedulers for machine '" + m + "'");
            spec.schedulers[m] = resolve_schedulers(reader, schedulers[m], m, "schedulers." + m);
        }
    } else {
        for (const auto& m : spec.machines)
            spec.schedulers[m] = resolve_schedulers(reader, schedulers, m, "schedulers");
    }

    spec.kernels = resolve_kernels(reader, root["kernels"]);

    spec.sizes = {kernels::Size::small};
    if (root.contains("sizes")) {
        spec.sizes.clear();
        for (const auto& name : reader.strings(root["sizes"], "sizes")) {
            if (name != "small" && name != "large")
                reader.fail("sizes", "no size named '" + name + "' (valid: small, large)");
            push_unique(spec.sizes, parse_size(name));
        }
    }

    spec.mshr_entries = {0};
    spec.allocate_on_fill = {std::nullopt};
    spec.clustered_ctas = {false};
    if (root.contains("knobs")) read_knobs(reader, root["knobs"], spec);
    if (root.contains("slurm")) read_slurm(reader, root["slurm"], spec.slurm);
    return spec;
}

Spec load_spec(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read the sweep spec '" + path.string() + "'");
    std::stringstream text;
    text << in.rdbuf();
    return parse_spec(text.str(), path.string());
}

std::vector<Point> expand(const Spec& spec) {
    std::vector<Point> points;
    for (const auto& machine : spec.machines)
        for (const auto& scheduler : spec.schedulers.at(machine))
            for (const auto& kernel : spec.kernels)
                for (const auto size : spec.sizes)
                    for (const auto mshr : spec.mshr_entries)
                        for (const auto& alloc : spec.allocate_on_fill)
                            for (const bool clustered : spec.clustered_ctas)
                                points.push_back(Point{machine, scheduler, kernel, size, mshr, alloc, clustered});
    return points;
}

nlohmann::json point_json(const Point& point) {
    json j = json::object(); // std::map-backed: keys come out sorted, which makes the dump canonical
    j["machine"] = point.machine;
    j["scheduler"] = point.scheduler;
    j["kernel"] = point.kernel;
    j["size"] = std::string(kernels::size_name(point.size));
    j["mshr_entries"] = point.mshr_entries == 0 ? json(nullptr) : json(point.mshr_entries);
    j["allocate_on_fill"] = point.allocate_on_fill ? json(*point.allocate_on_fill) : json(nullptr);
    j["clustered_ctas"] = point.clustered_ctas;
    return j;
}

std::string canonical_json(const Point& point) { return point_json(point).dump(); }

Point point_from_json(const nlohmann::json& j) {
    try {
        Point p;
        p.machine = j.at("machine").get<std::string>();
        p.scheduler = j.at("scheduler").get<std::string>();
        p.kernel = j.at("kernel").get<std::string>();
        p.size = parse_size(j.at("size").get<std::string>());
        const json& mshr = j.at("mshr_entries");
        p.mshr_entries = mshr.is_null() ? 0U : mshr.get<unsigned>();
        if (!mshr.is_null() && p.mshr_entries == 0) throw Error("mshr_entries must be null (preset) or at least 1");
        const json& alloc = j.at("allocate_on_fill");
        if (!alloc.is_null()) p.allocate_on_fill = alloc.get<bool>();
        p.clustered_ctas = j.at("clustered_ctas").get<bool>();
        return p;
    } catch (const json::exception& e) {
        throw Error("malformed sweep point " + j.dump() + ": " + e.what());
    }
}

std::uint64_t fnv1a64(std::string_view bytes) {
    std::uint64_t hash = 0xcbf29ce484222325ULL; // FNV-1a 64-bit offset basis
    for (const char c : bytes) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL; // FNV 64-bit prime
    }
    return hash;
}

std::string point_id(const Point& point) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(fnv1a64(canonical_json(point))));
    return text;
}

std::string describe(const Point& p) {
    std::string out = p.machine + ' ' + p.scheduler + ' ' + p.kernel + ' ' + std::string(kernels::size_name(p.size));
    out += " mshr=" + (p.mshr_entries == 0 ? std::string("preset") : std::to_string(p.mshr_entries));
    out += " alloc=" + (p.allocate_on_fill ? std::string(*p.allocate_on_fill ? "on_fill" : "on_miss") : "preset");
    out += p.clustered_ctas ? " clustered" : " round_robin";
    return out;
}

} // namespace gpuarch::sweep
