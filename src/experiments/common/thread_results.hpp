// Kernels that leave one 32-bit word per thread, each computed from the
// thread's own words of a pattern-filled input (local_memory's array,
// register_pressure's live values): the buffers, the host's expected words and
// the checked launch of the core's point protocol on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device/context.hpp"
#include "core/experiment/params.hpp"
#include "core/experiment/point_protocol.hpp"
#include "core/experiment/result.hpp"
#include "core/measurement/harness.hpp"
#include "core/measurement/verify.hpp"

namespace gmlab {

// Threads of such a kernel: the parameter "threads", or for 0 (automatic)
// twice the threads the device holds resident at once.
std::size_t threads_for(ContextState &ctx, const Params &params);

class ThreadResults {
public:
    // Checks the memory budget for `threads` x words_per_thread input words
    // and the results (`experiment` names it), allocates both and fills the
    // input with the pattern of `seed`: word k of thread t is at k x threads + t.
    ThreadResults(ContextState &ctx, std::size_t threads, int words_per_thread, std::uint32_t seed, const std::string &experiment);

    // The host's word of every thread, reference(t), on all host cores.
    template <class Reference> void expect(Reference reference) {
        parallel_for(threads_, [&](std::uint64_t t) { want_[t] = reference(t); });
    }

    // The point of `launch`: the results poisoned, downloaded and compared
    // with the expected words (`what` names a mismatch).
    CheckedLaunch checked(Launch launch, const std::string &what, Result &out);

    std::uint32_t *input() const { return in_.as<std::uint32_t>(); }
    std::uint32_t *results() const { return result_.as<std::uint32_t>(); }
    std::size_t input_bytes() const { return in_bytes_; }
    std::size_t result_bytes() const { return out_bytes_; }

private:
    std::size_t threads_, in_bytes_, out_bytes_;
    DeviceArray in_, result_;
    std::vector<std::uint32_t> want_, host_;
};

}  // namespace gmlab
