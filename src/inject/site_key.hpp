// One string per distinct call site, the same in the injection library (which
// names sites by number within a process) and in the front end (which joins
// processes and passes by it): the counting run after the trace is told which
// kernel at which site to count by this key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gmexplain {

inline std::string site_key(const std::string &file, int line, const std::string &function, const std::string &op,
                            const std::string &inner_op, const std::string &backward,
                            const std::vector<std::uint64_t> &addresses) {
    std::string key = file + ":" + std::to_string(line) + "|" + function + "|" + op + "|" + inner_op + "|" + backward;
    for (auto a : addresses) key += "|" + std::to_string(a);
    return key;
}

}  // namespace gmexplain
