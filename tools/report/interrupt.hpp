// A way for a program that makes reports on behalf of others (gmlab-server)
// to stop one that has run too long: the report's loops over series and
// points call interruption_point(), which calls the hook the program set
// (it throws to stop the report). The CLI sets none.
#pragma once

#include <atomic>

namespace gmreport {

using InterruptCheck = void (*)();

inline std::atomic<InterruptCheck> &interrupt_hook() {
    static std::atomic<InterruptCheck> hook{nullptr};
    return hook;
}

inline void set_interrupt_check(InterruptCheck check) { interrupt_hook().store(check); }

inline void interruption_point() {
    if (const InterruptCheck check = interrupt_hook().load(std::memory_order_relaxed)) check();
}

}  // namespace gmreport
