#pragma once
// The sampling settings (sample.*, docs/sampling.md) as the library's options, for the CUDA runtime and
// gpuarch-run alike.
#include <gpuarch/sample/cta_sampler.hpp>
#include <gpuarch/sample/launch_sampler.hpp>
#include <gpuarch/support/settings.hpp>

namespace gpuarch::support {

inline sample::LaunchSamplingOptions launch_sampling_options(const Settings& s) {
    sample::LaunchSamplingOptions o;
    o.fast_forward = s.get("sample.fast_forward");
    o.warm_launches = static_cast<unsigned>(s.get_uint("sample.warm_launches"));
    o.repeated = s.get_bool("sample");
    o.warmup = static_cast<unsigned>(s.get_uint("sample.launch_warmup"));
    o.period = static_cast<unsigned>(s.get_uint("sample.launch_period"));
    o.tolerance = s.get_number("sample.launch_tolerance");
    return o;
}

inline sample::CtaSamplingOptions cta_sampling_options(const Settings& s) {
    sample::CtaSamplingOptions o;
    o.enabled = s.get_bool("sample") && s.get_bool("sample.ctas");
    o.batches = static_cast<unsigned>(s.get_uint("sample.batches"));
    return o;
}

} // namespace gpuarch::support
