// Pass 1: the CUPTI activity API records every kernel, copy, set, allocation
// and unified-memory event of the program; each completed buffer is written
// to the record sink at once.
#pragma once

#include <cstdint>
#include <string>

namespace gmexplain {

// Enables the activity kinds; returns "" or why tracing is impossible.
// With unified_memory false the unified-memory counters are left off (the
// counting pass: they would slow the driver's fault handling).
// With subscribe false another pass owns the one CUPTI subscriber a process
// may have, and calls trace_context_created() from its own callback.
std::string trace_start(bool unified_memory, bool subscribe = true);
// Subscribes to context creation for the unified-memory counters: for a pass
// that started with subscribe false whose other pass then never subscribed
// (counters unavailable), else nothing would configure them.
void trace_watch_contexts();
// A context was created: the unified-memory counters can now be configured.
void trace_context_created();
// Called with each traced kernel launch's correlation id and duration (the
// single pass's choice of what to count: counters_kernel_traced).
void trace_on_kernel(void (*hook)(std::uint32_t correlation, std::uint64_t ns));
// An in-process session's end: every activity kind disabled, the buffers flushed.
void trace_detach();
// Flushes every buffer (at exit, and from a fatal signal as a best effort).
void trace_flush();

}  // namespace gmexplain
