// The transport's workers: a fixed number of threads taking jobs from a
// bounded queue. When it is full the caller hears so at once and answers 503
// instead of piling up work.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gmserver {

class WorkerPool {
public:
    WorkerPool(std::size_t threads, std::size_t capacity);
    ~WorkerPool() { stop(); }
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // False, with the job dropped, when the queue is full or the pool stops.
    bool submit(std::function<void()> job);
    std::size_t queued();
    std::size_t busy() const { return busy_.load(); }
    std::size_t capacity() const { return capacity_; }
    // Finishes the jobs being run, drops the queued ones, joins the threads.
    void stop();
    // The same, waiting at most `grace` for the jobs being run: false, with
    // the threads not joined, when one is still running then.
    bool stop_within(std::chrono::milliseconds grace);

private:
    void loop();

    const std::size_t capacity_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> jobs_;
    std::vector<std::thread> threads_;
    std::atomic<std::size_t> busy_{0};
    bool stopping_ = false;
};

}  // namespace gmserver
