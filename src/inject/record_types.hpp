// The record types the injection library writes and the front end reads
// (docs/explain.md describes each): one name, written once, for both sides.
// The Python start-up hook writes "note" records too (python/sitecustomize.py).
#pragma once

namespace gmexplain::records {

constexpr const char *kCallsite = "callsite";
constexpr const char *kCounters = "counters";
constexpr const char *kCountersUnavailable = "counters_unavailable";
constexpr const char *kDevice = "device";
constexpr const char *kDropped = "dropped";
constexpr const char *kExit = "exit";
constexpr const char *kKernel = "kernel";
constexpr const char *kLaunchSite = "launch_site";
constexpr const char *kLaunches = "launches";
constexpr const char *kLine = "line";
constexpr const char *kLinesFlush = "lines_flush";
constexpr const char *kLinesNoInfo = "lines_no_info";
constexpr const char *kLinesUnavailable = "lines_unavailable";
constexpr const char *kMemcpy = "memcpy";
constexpr const char *kMemory = "memory";
constexpr const char *kMemset = "memset";
constexpr const char *kMetricGroups = "metric_groups";
constexpr const char *kNodeClone = "node_clone";
constexpr const char *kNodeSite = "node_site";
constexpr const char *kNote = "note";
constexpr const char *kPhaseTimes = "phase_times";
constexpr const char *kProcess = "process";
constexpr const char *kSassMetrics = "sass_metrics";
constexpr const char *kSignal = "signal";
constexpr const char *kTraceUnavailable = "trace_unavailable";
constexpr const char *kUm = "um";

}  // namespace gmexplain::records
