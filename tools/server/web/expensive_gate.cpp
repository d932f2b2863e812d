#include "web/expensive_gate.hpp"

#include <string>

#include "http/router.hpp"

namespace gmserver {

namespace {
std::atomic<std::size_t> limit{0}, running{0};
}  // namespace

void ExpensiveGate::set_limit(std::size_t at_once) { limit = at_once; }

ExpensiveGate::Slot::Slot(HttpResponse &res) {
    const std::size_t most = limit.load();
    if (most == 0) {
        held_ = true;
        ++running;
        return;
    }
    std::size_t now = running.load();
    do {
        if (now >= most) {
            send_error(res, 503, "busy",
                       std::to_string(now) + " comparisons are being made already (at most " + std::to_string(most) +
                           " at once, --max-expensive-at-once); retry after 1 s");
            res.set_header("Retry-After", "1");
            return;
        }
    } while (!running.compare_exchange_weak(now, now + 1));
    held_ = true;
}

ExpensiveGate::Slot::~Slot() {
    if (held_) --running;
}

}  // namespace gmserver
