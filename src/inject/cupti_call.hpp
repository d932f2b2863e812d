// How the injection library's passes call CUPTI: each parameter struct zeroed
// with its size set, and each result checked, a failure thrown as a Failure
// that the pass turns into a record (never into the program's output).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "cupti/cupti_params.hpp"
#include "inject/sites/call_sites.hpp"
#include "inject/cupti_table.hpp"

namespace gmexplain {

// A CUPTI parameter struct T, zeroed, with T's own size (T_STRUCT_SIZE): the
// same fill as the library's counters (cupti/cupti_params.hpp).
#define GMX_PARAMS(T) GM_CUPTI_PARAMS(T)

// Why a pass stopped: the call and CUPTI's reason.
struct CuptiFailure {
    std::string what;
};

// Throws CuptiFailure unless r is CUPTI_SUCCESS; a missing permission is named
// ERR_NVGPUCTRPERM, as the driver's documentation of the fix calls it.
inline void cupti_check(CUptiResult r, const char *call) {
    if (r == CUPTI_SUCCESS) return;
    std::string why = std::string(call) + " failed: " + cupti_error(r);
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
        why = "ERR_NVGPUCTRPERM: " + why;
    throw CuptiFailure{why};
}

// The driver calls that launch a kernel, each of which a pass that watches
// launches subscribes to.
constexpr CUpti_CallbackId kKernelLaunchCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

// The driver calls that launch a CUDA graph: watched for the call site of the
// graph's kernels (their records carry the graph launch's correlation id).
constexpr CUpti_CallbackId kGraphLaunchCalls[] = {CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
                                                  CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};

template <std::size_t N> bool one_of(CUpti_CallbackId id, const CUpti_CallbackId (&ids)[N]) {
    for (CUpti_CallbackId x : ids)
        if (id == x) return true;
    return false;
}

inline bool is_graph_launch(CUpti_CallbackId id) { return one_of(id, kGraphLaunchCalls); }

inline bool is_kernel_launch(CUpti_CallbackId id) { return one_of(id, kKernelLaunchCalls); }

// The driver calls that start and end a stream capture: launches made while
// one is open are captured into a graph, not run, and are never counted.
constexpr CUpti_CallbackId kCaptureBeginCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,       CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz};
constexpr CUpti_CallbackId kCaptureEndCalls[] = {CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,
                                                 CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz};

// The host's waits for the device (the counting pass: a pending DelayKernel
// has been released by then, counter_pass.cpp).
constexpr CUpti_CallbackId kHostWaitCalls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize};

// The graph events that give a graph's kernels the line that captured them.
constexpr CUpti_CallbackId kGraphNodeEvents[] = {CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED,
                                                 CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED};

inline std::uint64_t graph_node_id(CUgraphNode node) {
    std::uint64_t id = 0;
    const CuptiTable &api = cupti();
    if (!node || !api.cuptiGetGraphNodeId || api.cuptiGetGraphNodeId(node, &id) != CUPTI_SUCCESS) return 0;
    return id;
}

// A kernel node created (inside the capturing launch's callbacks, or by
// cuGraphAddKernelNode) takes the calling thread's site; a clone its original's.
inline void on_graph_node_event(CUpti_CallbackId id, const void *data) {
    const auto *resource = static_cast<const CUpti_ResourceData *>(data);
    const auto *graph = resource ? static_cast<const CUpti_GraphData *>(resource->resourceDescriptor) : nullptr;
    if (!graph || graph->nodeType != CU_GRAPH_NODE_TYPE_KERNEL) return;
    if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED) {
        if (const std::uint64_t node = graph_node_id(graph->node)) note_graph_node(node);
    } else if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED) {
        const std::uint64_t node = graph_node_id(graph->node), original = graph_node_id(graph->originalNode);
        if (node && original) note_graph_node_clone(node, original);
    }
}

inline bool is_graph_node_event(CUpti_CallbackDomain domain, CUpti_CallbackId id) {
    return domain == CUPTI_CB_DOMAIN_RESOURCE &&
           (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED || id == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
}

// Subscribes `callback` to every kernel and graph launch, to the graph-node
// events (call sites) and to the resource events named; "" when done, else why not (the pass then does not run).
inline std::string subscribe_to_launches(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
                                         std::initializer_list<CUpti_CallbackId> resource_events) {
    const CuptiTable &api = cupti();
    if (CUptiResult r = api.cuptiSubscribe(subscriber, callback, nullptr); r != CUPTI_SUCCESS)
        return "cuptiSubscribe failed: " + cupti_error(r);
    std::vector<CUpti_CallbackId> driver_calls(std::begin(kKernelLaunchCalls), std::end(kKernelLaunchCalls));
    driver_calls.insert(driver_calls.end(), std::begin(kGraphLaunchCalls), std::end(kGraphLaunchCalls));
    driver_calls.insert(driver_calls.end(), std::begin(kCaptureBeginCalls), std::end(kCaptureBeginCalls));
    driver_calls.insert(driver_calls.end(), std::begin(kCaptureEndCalls), std::end(kCaptureEndCalls));
    for (CUpti_CallbackId id : driver_calls)
        if (CUptiResult r = api.cuptiEnableCallback(1, *subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id); r != CUPTI_SUCCESS)
            return "cuptiEnableCallback failed: " + cupti_error(r);
    for (CUpti_CallbackId id : kGraphNodeEvents)
        if (CUptiResult r = api.cuptiEnableCallback(1, *subscriber, CUPTI_CB_DOMAIN_RESOURCE, id); r != CUPTI_SUCCESS)
            return "cuptiEnableCallback failed: " + cupti_error(r);
    for (CUpti_CallbackId id : resource_events)
        if (CUptiResult r = api.cuptiEnableCallback(1, *subscriber, CUPTI_CB_DOMAIN_RESOURCE, id); r != CUPTI_SUCCESS)
            return "cuptiEnableCallback failed: " + cupti_error(r);
    return "";
}

}  // namespace gmexplain
