#pragma once
// fetch::InOrder: the default fetch policy. The SM's own in-order fetch runs (timing/fetch.hpp): per scheduler,
// round-robin, one warp per cycle, fetch_per_warp instructions into its buffer, stopping after a control
// instruction until it resolves. It declares nothing else, so the SM compiles none of the fetch-policy hooks.
#include <string_view>

namespace gpuarch::fetch {

struct InOrder {
    static constexpr std::string_view name = "in-order";
    static constexpr bool in_order = true;
};

} // namespace gpuarch::fetch
