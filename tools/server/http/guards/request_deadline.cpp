#include "http/guards/request_deadline.hpp"

namespace gmserver {

namespace {

struct Current {
    bool active = false;
    std::chrono::steady_clock::time_point deadline;
    std::shared_ptr<std::atomic<bool>> cancelled;
    const std::atomic<bool> *every = nullptr;
    unsigned calls = 0;
    bool passed = false;
};

thread_local Current current;

}  // namespace

RequestDeadlineScope::RequestDeadlineScope(std::chrono::steady_clock::time_point deadline, std::shared_ptr<std::atomic<bool>> cancelled,
                                           const std::atomic<bool> *every) {
    current.every = every;
    current.active = true;
    current.deadline = deadline;
    current.cancelled = std::move(cancelled);
    current.calls = 0;
    current.passed = false;
}

RequestDeadlineScope::~RequestDeadlineScope() { current = Current{}; }

bool request_deadline_passed() {
    if (!current.active) return false;
    if (current.passed) return true;
    if ((current.calls++ & 63) != 0) return false;
    current.passed = (current.every && current.every->load(std::memory_order_relaxed)) ||
                     (current.cancelled && current.cancelled->load(std::memory_order_relaxed)) ||
                     std::chrono::steady_clock::now() >= current.deadline;
    return current.passed;
}

void check_request_deadline() {
    if (request_deadline_passed()) throw RequestDeadlinePassed{};
}

}  // namespace gmserver
