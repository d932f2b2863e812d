#include "http/worker_pool.hpp"

#include <chrono>

namespace gmserver {

WorkerPool::WorkerPool(std::size_t threads, std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {
    for (std::size_t i = 0; i < (threads < 1 ? 1 : threads); ++i) threads_.emplace_back([this] { loop(); });
}

bool WorkerPool::submit(std::function<void()> job) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_ || jobs_.size() >= capacity_) return false;
        jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
    return true;
}

std::size_t WorkerPool::queued() {
    std::lock_guard<std::mutex> lock(mu_);
    return jobs_.size();
}

void WorkerPool::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_ && threads_.empty()) return;
        stopping_ = true;
        jobs_.clear();
    }
    cv_.notify_all();
    for (std::thread &t : threads_) t.join();
    threads_.clear();
}

bool WorkerPool::stop_within(std::chrono::milliseconds grace) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        jobs_.clear();
    }
    cv_.notify_all();
    const auto until = std::chrono::steady_clock::now() + grace;
    while (busy_.load() != 0) {
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    stop();
    return true;
}

void WorkerPool::loop() {
    while (true) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
            ++busy_;
        }
        job();
        --busy_;
    }
}

}  // namespace gmserver
