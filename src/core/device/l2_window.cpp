#include "core/device/l2_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <cuda_runtime_api.h>

#include "core/error.hpp"

namespace gmlab {

namespace {

const char *property_name(int p) {
    switch (p) {
    case 0: return "normal";
    case 1: return "streaming";
    case 2: return "persisting";
    default: return "unknown";
    }
}

cudaAccessProperty to_cuda(int p) { return static_cast<cudaAccessProperty>(p); }

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

L2Limits l2_limits(const DeviceInfo &d) {
    return {d.cc_major, d.cc_minor, d.l2_bytes, d.persisting_l2_max_bytes, d.access_policy_max_window_bytes};
}

void require_l2_controls(const L2Limits &limits) {
    if (limits.cc_major < 8 || limits.persisting_max == 0 || limits.max_window == 0)
        fail(GM_ERROR_NOT_SUPPORTED, "L2 persisting accesses need compute capability 8.0 or later; this device is " +
                                         std::to_string(limits.cc_major) + "." + std::to_string(limits.cc_minor));
}

void check_window(const L2Limits &limits, std::size_t buffer_bytes, std::size_t offset, std::size_t num_bytes,
                  double hit_ratio, int hit_property, int miss_property) {
    require_l2_controls(limits);
    if (!(hit_ratio >= 0.0 && hit_ratio <= 1.0)) invalid("hit_ratio must be in 0..1, got " + number(hit_ratio));
    if (hit_property < 0 || hit_property > 2)
        invalid("hit_property must be 0 (normal), 1 (streaming) or 2 (persisting), got " + std::to_string(hit_property));
    if (miss_property < 0 || miss_property > 1)
        invalid("miss_property must be 0 (normal) or 1 (streaming), got " + std::to_string(miss_property));
    if (num_bytes == 0 || num_bytes > limits.max_window)
        invalid("num_bytes must be in 1.." + std::to_string(limits.max_window) +
                " (the device's accessPolicyMaxWindowSize), got " + std::to_string(num_bytes));
    if (offset > buffer_bytes || num_bytes > buffer_bytes - offset)
        invalid("the window (offset " + std::to_string(offset) + " + num_bytes " + std::to_string(num_bytes) +
                ") must lie inside the buffer of " + std::to_string(buffer_bytes) + " bytes");
}

std::size_t persisting_size(ContextState &ctx) {
    ctx.activate();
    std::size_t v = 0;
    GM_CUDA(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
    return v;
}

std::size_t set_persisting_size(ContextState &ctx, std::size_t bytes) {
    const L2Limits limits = l2_limits(ctx.info());
    require_l2_controls(limits);
    ctx.activate();
    GM_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, std::min(bytes, limits.persisting_max)));
    return persisting_size(ctx);
}

void set_window(ContextState &ctx, const void *base, std::size_t num_bytes, double hit_ratio, int hit_property,
                int miss_property) {
    ctx.activate();
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = const_cast<void *>(base);
    attr.accessPolicyWindow.num_bytes = num_bytes;
    attr.accessPolicyWindow.hitRatio = static_cast<float>(hit_ratio);
    attr.accessPolicyWindow.hitProp = to_cuda(hit_property);
    attr.accessPolicyWindow.missProp = to_cuda(miss_property);
    GM_CUDA(cudaStreamSetAttribute(ctx.stream(), cudaStreamAttributeAccessPolicyWindow, &attr));
}

void reset_window(ContextState &ctx) {
    require_l2_controls(l2_limits(ctx.info()));
    ctx.activate();
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.num_bytes = 0;  // a window of no bytes is no window
    GM_CUDA(cudaStreamSetAttribute(ctx.stream(), cudaStreamAttributeAccessPolicyWindow, &attr));
    GM_CUDA(cudaStreamSynchronize(ctx.stream()));
    GM_CUDA(cudaCtxResetPersistingL2Cache());
}

nlohmann::json l2_state(ContextState &ctx) {
    ctx.activate();
    nlohmann::json j = {{"persisting_set_aside_bytes", persisting_size(ctx)},
                        {"persisting_max_bytes", ctx.info().persisting_l2_max_bytes},
                        {"max_window_bytes", ctx.info().access_policy_max_window_bytes}};
    if (ctx.info().cc_major < 8) {
        j["window"] = nullptr;
        return j;
    }
    cudaStreamAttrValue attr{};
    GM_CUDA(cudaStreamGetAttribute(ctx.stream(), cudaStreamAttributeAccessPolicyWindow, &attr));
    const auto &w = attr.accessPolicyWindow;
    if (w.num_bytes == 0) {
        j["window"] = nullptr;
    } else {
        j["window"] = {{"num_bytes", w.num_bytes},
                       {"hit_ratio", w.hitRatio},
                       {"hit_property", property_name(w.hitProp)},
                       {"miss_property", property_name(w.missProp)}};
    }
    return j;
}

L2Restore::L2Restore(ContextState &ctx) : ctx_(ctx) { saved_set_aside_ = persisting_size(ctx); }

L2Restore::~L2Restore() {
    // Cleanup must not throw: each step is tried, whatever the one before did.
    try {
        reset_window(ctx_);
    } catch (...) {
    }
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, saved_set_aside_);
    (void)cudaGetLastError();
}

}  // namespace gmlab
