// Every request's deadline (--request-deadline-ms): the transport answers
// 503 `deadline` when a request's handler has not answered by then, and the
// handler's own long loops stop at their next check_request_deadline(),
// which throws RequestDeadlinePassed. The worker is then free for the next
// request. A drain that reaches its end cancels every request still running
// the same way, so that SIGTERM never waits on a runaway one.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

namespace gmserver {

struct HttpResponse;

// Not a std::exception: the handlers' own `catch (const std::exception &)`
// (a page that cannot be made is a 500 page) let it through to the transport.
struct RequestDeadlinePassed {
    const char *what() const noexcept { return "the request ran past its deadline"; }
};

// The request a worker runs: its deadline and the flag the transport sets
// when it has answered in the handler's place. Set for the handler's
// duration, on the worker's thread.
class RequestDeadlineScope {
public:
    // every: the server's flag that cancels all its requests (the end of a drain).
    RequestDeadlineScope(std::chrono::steady_clock::time_point deadline, std::shared_ptr<std::atomic<bool>> cancelled,
                         const std::atomic<bool> *every = nullptr);
    ~RequestDeadlineScope();
    RequestDeadlineScope(const RequestDeadlineScope &) = delete;
    RequestDeadlineScope &operator=(const RequestDeadlineScope &) = delete;
};

// The answer of a request stopped at its deadline: 503 `deadline`,
// Retry-After: 1, the connection closed.
void send_deadline(HttpResponse &res);

// Throws RequestDeadlinePassed when the request this thread runs is past its
// deadline, was cancelled, or its server cancelled every request; a no-op
// outside a request.
// Cheap enough for inner loops: it reads the clock once in 64 calls.
void check_request_deadline();
// The same as a test, without throwing.
bool request_deadline_passed();

}  // namespace gmserver
