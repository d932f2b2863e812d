#include "core/measurement/verify.hpp"

#include "core/error.hpp"

namespace gmlab {

void verification_failed(const std::string &what, std::uint64_t index, const std::string &expected,
                         const std::string &got) {
    fail(GM_ERROR_VERIFICATION_FAILED, what + ": element " + std::to_string(index) + " is " + got +
                                           ", the host reference says " + expected);
}

}  // namespace gmlab
