// The thread that keeps a storage's aggregates up to date: it folds the
// uploads queued by insert() into the stored per-model aggregates. Woken by
// an insert of this process (after `gather`, so that a burst is folded as one
// batch), and every `poll` for uploads that other processes stored.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace gmserver {

class BackgroundRefresher {
public:
    // fold(batch) folds up to `batch` queued uploads and returns how many it
    // folded; a full batch is followed by the next one at once.
    BackgroundRefresher(std::function<std::size_t(std::size_t)> fold, std::size_t batch, std::chrono::milliseconds poll,
                        std::chrono::milliseconds gather)
        : fold_(std::move(fold)), batch_(batch), poll_(poll), gather_(gather), thread_([this] { loop(); }) {}
    ~BackgroundRefresher() { stop(); }
    BackgroundRefresher(const BackgroundRefresher &) = delete;
    BackgroundRefresher &operator=(const BackgroundRefresher &) = delete;

    void poke() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            poked_ = true;
        }
        cv_.notify_all();
    }

    void stop() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (stopping_ && !thread_.joinable()) return;
            stopping_ = true;
        }
        cv_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

private:
    void loop() {
        std::unique_lock<std::mutex> lock(mu_);
        while (!stopping_) {
            cv_.wait_for(lock, poll_, [this] { return stopping_ || poked_; });
            if (poked_ && cv_.wait_for(lock, gather_, [this] { return stopping_; })) break;
            if (stopping_) break;
            poked_ = false;
            lock.unlock();
            bool failed = false;
            try {
                while (!stopping() && fold_(batch_) >= batch_) {
                }
            } catch (const std::exception &e) {
                std::fprintf(stderr, "gmlab-server: refreshing the aggregates: %s\n", e.what());
                failed = true;
            }
            lock.lock();
            // After a failure (the database went away) try again in a while.
            if (failed) cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; });
        }
    }

    bool stopping() {
        std::lock_guard<std::mutex> lock(mu_);
        return stopping_;
    }

    std::function<std::size_t(std::size_t)> fold_;
    const std::size_t batch_;
    const std::chrono::milliseconds poll_, gather_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool poked_ = false, stopping_ = false;
    std::thread thread_;  // last: starts after the members it uses
};

}  // namespace gmserver
