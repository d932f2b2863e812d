#include "experiments/common/thread_results.hpp"

#include "core/error.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/registry.hpp"
#include "experiments/common/point_checks.hpp"
#include "shared_kernels/fill_pattern.cuh"

namespace gmlab {

std::size_t threads_for(ContextState &ctx, const Params &params) {
    const DeviceInfo &dev = ctx.info();
    return params.is_auto("threads") ? static_cast<std::size_t>(dev.multiprocessors) * dev.max_threads_per_sm * 2
                                     : params.size("threads");
}

namespace {

// The budget check, before any allocation; returns the input's bytes.
std::size_t checked_input_bytes(ContextState &ctx, std::size_t threads, int words_per_thread, const std::string &experiment) {
    const std::size_t in_bytes = threads * static_cast<std::size_t>(words_per_thread) * sizeof(std::uint32_t);
    require_memory(ctx, in_bytes + threads * sizeof(std::uint32_t),
                   experiment + " (" + std::to_string(threads) + " threads x " + std::to_string(words_per_thread) +
                       " words of input)");
    return in_bytes;
}

}  // namespace

ThreadResults::ThreadResults(ContextState &ctx, std::size_t threads, int words_per_thread, std::uint32_t seed,
                             const std::string &experiment)
    : threads_(threads), in_bytes_(checked_input_bytes(ctx, threads, words_per_thread, experiment)),
      out_bytes_(threads * sizeof(std::uint32_t)), in_(ctx, in_bytes_), result_(ctx, out_bytes_), want_(threads),
      host_(threads) {
    GM_CUDA(kernels::launch_fill_pattern(input(), threads * static_cast<std::size_t>(words_per_thread), seed, ctx.stream()));
}

CheckedLaunch ThreadResults::checked(Launch launch, const std::string &what, Result &out) {
    CheckedLaunch point;
    point.launch = std::move(launch);
    point.poison = {{result_.get(), out_bytes_}};
    point.download = download_to(host_.data(), result_.get(), out_bytes_);
    point.check = [this, what, &out] {
        verify_equal(host_.data(), threads_, [this](std::uint64_t t) { return want_[t]; }, what,
                     "every thread's sum compared with the host's", out);
    };
    return point;
}

}  // namespace gmlab
