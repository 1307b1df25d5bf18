// Embedding one gpuarch component in someone else's simulator (docs/embedding.md): the host loop below owns the
// clock, the warps and a fixed-latency memory; gpuarch supplies only the L1 slot `mem::L1<mem::MSHR<32>>` (LSU,
// coalescer, 16 KB L1 data cache, 32 MSHRs). A hand-written address trace of warp loads goes in; per cycle the
// program prints what the L1 did: hits, misses (new MSHR entries), MSHR merges, packets sent, loads completed.
//
//   l1_trace [--latency N]     (default 40 cycles from a request leaving the L1 to its response)
//
// The per-cycle contract (include/gpuarch/mem/l1.hpp, "Timing contract"), in the order the loop calls it:
//   1. receive(response, now)  for every response that arrives this cycle;
//   2. cycle(now, downstream)  the LSU serves one coalesced access; line requests go into `downstream`;
//   3. drain_completed(f)      f(Completion) for each warp load whose data is all there;
//   4. accept(access, now)     at most one new warp memory instruction, only when can_accept();
// and the host moves the packets out of `downstream` (here: into a queue that answers after `latency` cycles).
#include <gpuarch/core/stats.hpp>
#include <gpuarch/mem/l1.hpp>

#include <gpuarch/support/cli.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {
using namespace gpuarch;

// One trace record: at or after cycle `at`, warp `warp` loads 4 bytes per lane from base + lane * stride.
struct TraceLoad {
    core::Cycle at;
    std::uint32_t warp;
    std::uint64_t base;
    std::uint64_t stride;
    const char* what;
};

// The hand-written trace. Lines are 128 B (the L1's default LineBytes).
const std::vector<TraceLoad> trace{
    {0, 0, 0x10000, 4, "warp 0: 32 consecutive floats, one line: a miss"},
    {1, 1, 0x10000, 4, "warp 1: the same line while it is in flight: an MSHR merge"},
    {2, 2, 0x20000, 128, "warp 2: one float per line, 32 lines: one miss per cycle until the MSHRs run out"},
    {3, 3, 0x30000, 8, "warp 3: two lines; it waited behind warp 2 (memory occlusion): 2 misses"},
    {60, 0, 0x10000, 4, "warp 0 again after the fill: a hit"},
    {61, 1, 0x20000, 128, "warp 1: warp 2's 32 lines, now cached: 32 hits"},
};

const char* state_name(mem::LsuState s) {
    switch (s) {
    case mem::LsuState::idle: return "idle";
    case mem::LsuState::busy: return "busy";
    case mem::LsuState::stalled_coalesce: return "LDST_COAL";
    case mem::LsuState::stalled_mshr: return "LDST_MSHR";
    case mem::LsuState::stalled_icnt: return "LDST_ICNT";
    }
    return "?";
}

std::uint64_t counter(const mem::L1<mem::MSHR<32>>& l1, const char* name) {
    core::StatsTable t;
    t.collect("", l1);
    return t.counter(name);
}
} // namespace

int main(int argc, char** argv) {
    core::Cycle latency = 40;
    CLI::App app{"Drives one gpuarch L1 (L1<MSHR<32>>) from a foreign simulator loop over a hand-written trace of "
                 "warp loads and prints what the L1 did each cycle.",
                 "l1_trace"};
    app.add_option("--latency", latency, "cycles from a request leaving the L1 to its response (default 40)")
        ->check(CLI::PositiveNumber)
        ->type_name("N");
    examples::cli::describe_exit_codes(app, examples::cli::exit_codes("the trace did not complete"));
    if (const auto status = examples::cli::parse(app, argc, argv)) return *status;
    using L1 = mem::L1<mem::MSHR<32>>;
    L1 l1(L1::Config{}, /*sm_id=*/0);
    mem::Downstream down{8}; // the L1's port into the host's memory
    std::multimap<core::Cycle, mem::MemPacket> arriving; // responses in flight, by arrival cycle
    std::vector<std::uint64_t> lanes(32);

    std::printf("%s: %u sets x %u ways x %u B lines, %u MSHRs, memory latency %llu cycles\n\n",
                std::string(L1::name).c_str(), L1::sets, L1::ways, L1::line_bytes, L1::mshr_entries,
                static_cast<unsigned long long>(latency));
    std::printf("%5s  %-9s %4s %6s %6s %5s  %s\n", "cycle", "LSU", "hits", "misses", "merges", "sent", "events");
    std::size_t next = 0;
    unsigned completed = 0;
    std::uint64_t hits = 0, misses = 0, merges = 0;
    mem::LsuState last_state = mem::LsuState::idle;
    for (core::Cycle now = 0; completed < trace.size(); ++now) {
        if (now > 100000) {
            std::cerr << "l1_trace: the trace did not finish\n";
            return 1;
        }
        std::string events;
        // 1. Responses that arrive this cycle.
        for (auto it = arriving.begin(); it != arriving.end() && it->first == now; it = arriving.erase(it))
            l1.receive(it->second, now);
        // 2. One L1 cycle.
        l1.cycle(now, down);
        const mem::LsuState state = l1.lsu_state();
        // 3. Finished loads.
        l1.drain_completed([&](const mem::Completion& c) {
            events += " [warp " + std::to_string(c.warp) + " load done: " + std::to_string(c.lines) + " lines, " +
                      std::to_string(c.misses) + " missed, " + std::to_string(now - c.accepted_at) + " cycles]";
            ++completed;
        });
        // The host's memory: every request is answered `latency` cycles after it left the L1.
        unsigned sent = 0;
        for (; !down.empty(); down.pop(), ++sent) {
            mem::MemPacket response = down.front();
            response.is_response = true;
            arriving.emplace(now + latency, response);
        }
        // 4. The next trace load, if its time has come and the LSU can take it.
        if (next < trace.size() && trace[next].at <= now && l1.can_accept()) {
            const TraceLoad& t = trace[next];
            for (std::size_t lane = 0; lane < lanes.size(); ++lane) lanes[lane] = t.base + lane * t.stride;
            mem::WarpAccess access;
            access.warp = t.warp;
            access.token = next;
            access.kind = mem::WarpAccess::load;
            access.space = ir::StateSpace::global;
            access.access_bytes = 4;
            access.width = 32;
            access.active = core::WarpMask::first(32);
            access.addresses = lanes.data(); // read during accept() only
            l1.accept(access, now);
            events += std::string(" [accepted: ") + t.what + "]";
            ++next;
        }
        const std::uint64_t h = counter(l1, "hits"), m = counter(l1, "misses"), g = counter(l1, "mshr_merges");
        if (h != hits || m != misses || g != merges || sent != 0 || !events.empty() || state != last_state)
            std::printf("%5llu  %-9s %4llu %6llu %6llu %5u %s\n", static_cast<unsigned long long>(now),
                        state_name(state), static_cast<unsigned long long>(h - hits),
                        static_cast<unsigned long long>(m - misses), static_cast<unsigned long long>(g - merges), sent,
                        events.c_str());
        hits = h;
        last_state = state;
        misses = m;
        merges = g;
    }
    std::printf("\ntotal: %llu hits, %llu misses, %llu MSHR merges\n", static_cast<unsigned long long>(hits),
                static_cast<unsigned long long>(misses), static_cast<unsigned long long>(merges));
    return 0;
}
