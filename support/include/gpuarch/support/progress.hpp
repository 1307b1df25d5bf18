#pragma once
// Progress of a program that runs a known number of simulations (the convention in cli.hpp).
//
// Contract:
//  - Everything goes to one stream, stderr by default, never stdout: stdout holds results that scripts read.
//  - On a terminal, one line redrawn in place: done/total, percent, failures, elapsed time, ETA and the last item
//    finished ("compare: [#####.......] 12/27  44% | 0 failed | 01:02 elapsed | ETA 01:20 | kepler GTO bfs").
//  - Anywhere else (a log file, a pipe, CI): only a start line ("compare: 27 runs") and an end line
//    ("compare: 27 runs done in 03:12, 0 failed"), so logs hold no carriage returns and stay short.
//  - quiet: nothing at all.
//  - step() and note() may be called from several threads (the studies run their simulations on threads).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace gpuarch::examples {

// "mm:ss", or "h:mm:ss" from an hour; "--:--" for an unknown (negative) duration.
inline std::string format_duration(double seconds) {
    if (seconds < 0) return "--:--";
    const auto total = static_cast<unsigned long long>(seconds + 0.5);
    char text[64];
    if (total >= 3600)
        std::snprintf(text, sizeof text, "%llu:%02llu:%02llu", total / 3600, total / 60 % 60, total % 60);
    else std::snprintf(text, sizeof text, "%02llu:%02llu", total / 60, total % 60);
    return text;
}

// The time the remaining items take at the mean rate so far; negative (unknown) before the first one.
inline double estimate_remaining(double elapsed, std::size_t done, std::size_t total) {
    if (done == 0 || done > total) return -1;
    return elapsed / static_cast<double>(done) * static_cast<double>(total - done);
}

class Progress {
public:
    using Clock = std::chrono::steady_clock;

    // `unit` names what is counted ("runs"). Writes the start line (or the first bar) now.
    Progress(std::string program, std::size_t total, bool quiet, std::string unit = "runs")
        : Progress(std::move(program), total, quiet, std::move(unit), std::cerr, ::isatty(STDERR_FILENO) != 0) {}
    Progress(std::string program, std::size_t total, bool quiet, std::string unit, std::ostream& os, bool terminal)
        : os_(os), program_(std::move(program)), unit_(std::move(unit)), enabled_(!quiet), terminal_(terminal),
          total_(total), start_(Clock::now()) {
        if (!enabled_) return;
        if (terminal_) draw("", true);
        else os_ << program_ << ": " << total_ << ' ' << unit_for(total_) << '\n' << std::flush;
    }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    ~Progress() { finish(); }

    // One item finished; `label` says which ("kepler GTO bfs"), `ok` whether it passed.
    void step(std::string_view label, bool ok = true) {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++done_;
        if (!ok) ++failed_;
        if (enabled_ && terminal_) draw(label, done_ == total_);
    }

    // A line that must be seen whatever the mode (a failure, a warning): on a terminal it replaces the bar, which
    // is drawn again below it on the next step.
    void note(std::string_view line) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (enabled_ && terminal_) os_ << "\r\x1b[K";
        os_ << line << '\n' << std::flush;
    }

    // Takes the bar off a terminal's line before the program writes a result line to stdout (which shares the
    // terminal); the next step draws it again. Nothing in a log.
    void clear() {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (enabled_ && terminal_ && !finished_) os_ << "\r\x1b[K" << std::flush;
    }

    // The end line; once (the destructor calls it too).
    void finish() {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (finished_) return;
        finished_ = true;
        if (!enabled_) return;
        if (terminal_) os_ << "\r\x1b[K";
        os_ << program_ << ": " << done_ << ' ' << unit_for(done_) << " done in " << format_duration(elapsed()) << ", "
            << failed_ << " failed" << (done_ < total_ ? " (" + std::to_string(total_ - done_) + " not run)" : "")
            << '\n'
            << std::flush;
    }

    std::size_t failed() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return failed_;
    }

private:
    // "1 run", "2 runs": the unit is given in the plural.
    std::string unit_for(std::size_t n) const {
        return n == 1 && !unit_.empty() && unit_.back() == 's' ? unit_.substr(0, unit_.size() - 1) : unit_;
    }
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

    // Called with the mutex held. Redraws at most ten times a second, except the first and the last bar.
    void draw(std::string_view label, bool force) {
        const auto now = Clock::now();
        if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
        last_draw_ = now;
        constexpr std::size_t width = 20;
        const std::size_t filled = total_ == 0 ? width : width * std::min(done_, total_) / total_;
        std::string bar(filled, '#');
        bar.resize(width, '.');
        const double t = elapsed();
        char line[256];
        std::snprintf(line, sizeof line, "%s: [%s] %zu/%zu %3zu%% | %zu failed | %s elapsed | ETA %s", program_.c_str(),
                      bar.c_str(), done_, total_, total_ == 0 ? 100 : 100 * done_ / total_, failed_,
                      format_duration(t).c_str(), format_duration(estimate_remaining(t, done_, total_)).c_str());
        os_ << '\r' << line;
        if (!label.empty()) os_ << " | " << label;
        os_ << "\x1b[K" << std::flush;
    }

    std::ostream& os_;
    std::string program_, unit_;
    bool enabled_, terminal_, finished_ = false;
    std::size_t total_, done_ = 0, failed_ = 0;
    Clock::time_point start_, last_draw_{};
    mutable std::mutex mutex_;
};

} // namespace gpuarch::examples
