// At most so many expensive requests (comparisons, results as CSV) run at
// once in the whole server, so that they can never take every worker: the
// others keep serving the cheap requests of everyone else. One past the
// limit is answered 503 `busy` at once (waiting would hold a worker too).
#pragma once

#include <atomic>
#include <cstddef>

#include "http/http_message.hpp"

namespace gmserver {

class ExpensiveGate {
public:
    // 0: no limit.
    static void set_limit(std::size_t at_once);
    // A slot for the request's lifetime, or none (ok() false): the answer
    // is then already set to 503.
    class Slot {
    public:
        explicit Slot(HttpResponse &res);
        ~Slot();
        Slot(const Slot &) = delete;
        Slot &operator=(const Slot &) = delete;
        bool ok() const { return held_; }

    private:
        bool held_ = false;
    };
};

}  // namespace gmserver
