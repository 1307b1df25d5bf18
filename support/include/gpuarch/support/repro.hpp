#pragma once
// The reproduction contract shared by every study program (examples/*_study.cpp, sgemm_bounds): `--repro FILE`
// writes what the run computed as JSON, and `tools/repro` turns those files into docs/reproduction.md and plots.
//
//   {"experiment": "oaws", "paper": "Wang 2016", "title": "...",
//    "rows": [{"item": "...", "paper": "+73.1%", "ours": "+0.4%", "config": "...", "note": ""}],
//    "tables_markdown": "...",
//    "plots": [{"file": "x.png", "title": "...", "kind": "bar", "ylabel": "...", "labels": [...],
//               "series": {"name": [1.0, 2.0]}}]}
//
// `paper` is the published value exactly as the paper states it ("n/a" where it gives none); `ours` is the value
// this run computed, formatted the same way. Nothing here is typed by hand: a study fills `ours` from its results.
// Standard library only, so programs built without the example variants (sgemm_bounds) can use it too.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuarch::examples::repro {

struct Row {
    std::string item; // what is compared, with the paper's figure / table / section
    std::string paper; // as published
    std::string ours; // as computed by this run
    std::string config; // the machine, policies and inputs that produced `ours`
    std::string note; // why they differ, where it is short enough for a table cell
};

struct Plot {
    std::string file; // PNG name (no directory); tools/repro decides where it goes
    std::string title;
    std::string kind = "bar"; // "bar" (grouped bars per label) or "line" (one line per series over the labels)
    std::string ylabel;
    std::vector<std::string> labels;
    std::vector<std::pair<std::string, std::vector<double>>> series; // name -> one value per label
};

struct Report {
    std::string experiment; // "narasiman", "oaws", ...
    std::string paper; // "Narasiman 2010"
    std::string title;
    std::vector<Row> rows;
    std::string tables_markdown;
    std::vector<Plot> plots;

    void add(std::string item, std::string paper_value, std::string ours, std::string config, std::string note = "") {
        rows.push_back(
            Row{std::move(item), std::move(paper_value), std::move(ours), std::move(config), std::move(note)});
    }

    // Writes the JSON file; throws std::runtime_error when it cannot be written (a study then exits non-zero).
    void write(const std::string& path) const {
        std::ofstream out(path);
        if (!out) throw std::runtime_error("cannot write the reproduction file '" + path + "'");
        out << "{\"experiment\": " << quote(experiment) << ", \"paper\": " << quote(paper)
            << ", \"title\": " << quote(title) << ",\n \"rows\": [";
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const Row& r = rows[i];
            out << (i ? ",\n  " : "\n  ") << "{\"item\": " << quote(r.item) << ", \"paper\": " << quote(r.paper)
                << ", \"ours\": " << quote(r.ours) << ", \"config\": " << quote(r.config)
                << ", \"note\": " << quote(r.note) << '}';
        }
        out << "],\n \"tables_markdown\": " << quote(tables_markdown) << ",\n \"plots\": [";
        for (std::size_t i = 0; i < plots.size(); ++i) {
            const Plot& p = plots[i];
            out << (i ? ",\n  " : "\n  ") << "{\"file\": " << quote(p.file) << ", \"title\": " << quote(p.title)
                << ", \"kind\": " << quote(p.kind) << ", \"ylabel\": " << quote(p.ylabel) << ", \"labels\": [";
            for (std::size_t j = 0; j < p.labels.size(); ++j) out << (j ? ", " : "") << quote(p.labels[j]);
            out << "], \"series\": {";
            for (std::size_t s = 0; s < p.series.size(); ++s) {
                out << (s ? ", " : "") << quote(p.series[s].first) << ": [";
                for (std::size_t j = 0; j < p.series[s].second.size(); ++j)
                    out << (j ? ", " : "") << number(p.series[s].second[j]);
                out << ']';
            }
            out << "}}";
        }
        out << "]}\n";
        if (!out) throw std::runtime_error("failed writing the reproduction file '" + path + "'");
    }

    // The last step of every study's main. With --repro FILE (`path` not empty) writes the JSON there. Returns the
    // program's exit status: 1 with "<program>: <reason>" on stderr when the file cannot be written, otherwise 0
    // when every run passed and 1 when one did not (the study has already said which).
    [[nodiscard]] int finish(std::string_view program, const std::string& path, bool all_passed = true) const {
        if (!path.empty()) {
            try {
                write(path);
            } catch (const std::exception& e) {
                std::cerr << program << ": " << e.what() << '\n';
                return 1;
            }
        }
        return all_passed ? 0 : 1;
    }
    // The same after printing the study's Markdown to `out` and keeping it as tables_markdown: the terminal and
    // docs/reproduction.md show the same tables.
    [[nodiscard]] int finish(std::ostream& out, std::string markdown, std::string_view program, const std::string& path,
                             bool all_passed = true) {
        out << markdown;
        tables_markdown = std::move(markdown);
        return finish(program, path, all_passed);
    }

    static std::string quote(const std::string& s) {
        std::string o = "\"";
        for (const char c : s) {
            switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\t': o += "\\t"; break;
            case '\r': o += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    o += buf;
                } else {
                    o += c;
                }
            }
        }
        return o + '"';
    }

    // JSON has no NaN or infinity: a value the run could not compute is written as null (drawn as a gap).
    static std::string number(double v) {
        if (!(v == v) || v > 1e300 || v < -1e300) return "null";
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        return buf;
    }
};

// "%+.1f%%" of a ratio's gain: 1.076 -> "+7.6%".
inline std::string gain_pct(double ratio, int digits = 1) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%+.*f%%", digits, 100.0 * (ratio - 1.0));
    return buf;
}
inline std::string pct(double fraction, int digits = 1) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*f%%", digits, 100.0 * fraction);
    return buf;
}
inline std::string signed_pct(double fraction, int digits = 1) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%+.*f%%", digits, 100.0 * fraction);
    return buf;
}
inline std::string fixed(double v, int digits) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

} // namespace gpuarch::examples::repro
