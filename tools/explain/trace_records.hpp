// What the injection library wrote (inject/record_sink.hpp), read back: the
// records of every process of one pass, merged.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gmexplain {

// Where a launch was made in the user's program (inject/sites/call_sites.hpp).
struct CallSiteRecord {
    std::string file, function, op, backward;  // backward: the autograd node running it ("MmBackward0")
    std::string inner_op;                      // the innermost operator where it differs from op ("aten::gather")
    int line = 0;
    std::vector<std::uint64_t> addresses;  // a C/C++ program's: file is the executable, line 0; innermost frame first
    // One string per distinct site, the same in every pass and process.
    std::string key() const;
};

struct KernelRecord {
    std::string mangled, name;  // name: demangled
    std::string site;           // its call site's key, "" for none
    int device = 0, pid = 0;
    std::uint32_t stream = 0, graph = 0;
    std::uint64_t graph_node = 0;  // launched by a CUDA graph: its node's id
    std::int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    int registers = 0, static_shared = 0, dynamic_shared = 0, local_per_thread = 0;
    std::uint64_t start = 0, end = 0;
    std::uint32_t correlation = 0;
};

struct CopyRecord {
    std::string kind;       // HtoD, DtoH, DtoD, ... or "memset"
    std::string src, dst;   // pageable, pinned, device, managed, ...
    std::uint64_t bytes = 0, start = 0, end = 0;
    int device = 0;
    std::uint32_t stream = 0;
};

struct MemoryRecord {
    std::string op, memory;  // alloc/free; device, pinned, managed, ...
    std::uint64_t bytes = 0, time = 0;
    bool pool = false;
    std::uint64_t address = 0;  // matches a free to its allocation
    int device = 0;
};

struct UnifiedMemoryRecord {
    std::string counter;  // bytes_htod, bytes_dtoh, gpu_page_faults, cpu_page_faults, thrashing, throttling, remote_map
    // bytes for transfers; fault groups for a GPU fault; for a CPU fault the
    // faulting instruction's address (each record is one fault)
    std::uint64_t value = 0, start = 0, end = 0;
    int device = 0;     // the GPU it is about (in records written before the cause was kept: the destination id)
    std::string cause;  // transfers: user (a prefetch), coherence, speculative, eviction, access_counters, unknown;
                        // "" in records written before the cause was kept
};

struct DeviceRecord {
    int id = 0, sm_count = 0, compute_capability = 0;
    std::string name;
    std::uint64_t memory_bytes = 0, memory_bandwidth_kbs = 0, l2_bytes = 0;
    // What an SM holds at once, for a launch's theoretical occupancy (0 in records before they were kept).
    int max_warps_per_sm = 0, max_blocks_per_sm = 0, registers_per_sm = 0, shared_per_sm = 0;
};

struct CounterRecord {
    std::string mangled, name, chip;
    std::string site;  // the counted launch's call site's key, "" for none
    bool graph = false;  // one kernel of a counted CUDA graph launch (the profiler's range for it)
    std::uint64_t launch = 0, passes = 0;
    std::uint32_t correlation = 0;  // the launch's, as in its kernel record (the single pass)
    std::map<std::string, double> metrics;
    int pid = 0;                                                     // the process that counted it
    std::int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};          // the launch's (0 in records before they were kept)
    std::string replay;                                              // "kernel" or "application" ("" in older records)
};

struct PassRecords {
    std::vector<int> pids;  // every process that initialised CUDA
    int exits = 0;          // processes that reached exit() (not a crash or _exit)
    std::vector<int> signals;
    std::vector<int> signal_pids;  // the process of each signal
    std::string crash_stack;       // where the first of them came: crash_stack.hpp
    std::vector<std::string> notes;
    std::string trace_unavailable, counters_unavailable;
    std::uint64_t dropped = 0;
    std::vector<KernelRecord> kernels;
    std::vector<CopyRecord> copies;
    std::vector<MemoryRecord> memory;
    std::vector<UnifiedMemoryRecord> unified_memory;
    std::vector<DeviceRecord> devices;
    std::vector<CounterRecord> counters;
    std::map<std::string, std::uint64_t> launches;  // counting pass: launches per mangled name
    std::vector<std::vector<std::string>> metric_groups;  // application replay: the one-pass groups of the metrics
    // Where the processes' time under the injection went ("before_cuda_s",
    // "initialize_s", "profiler_setup_s", "counting_s", "exit_s"), summed
    // over the processes (src/inject/phase_times.hpp).
    std::map<std::string, double> phase_seconds;
    std::map<std::string, CallSiteRecord> sites;           // by key
    // Read but not yet joined (resolve_call_sites): each process numbers its
    // sites, and names a launch's site by the launch's correlation id.
    std::map<std::pair<int, std::uint64_t>, std::string> site_keys;     // (pid, site number) -> key
    std::map<std::pair<int, std::uint64_t>, std::uint64_t> launch_sites;  // (pid, correlation) -> site number
    std::vector<std::pair<int, std::uint64_t>> counter_sites;            // per counters record: (pid, site number)
    std::map<std::pair<int, std::uint64_t>, std::uint64_t> node_sites;    // (pid, graph node) -> site number
    std::map<std::pair<int, std::uint64_t>, std::uint64_t> node_originals;  // (pid, cloned node) -> its original
};

// Gives each kernel and counters record its call site's key (read_pass does
// this once every line is read; launch and site records may follow the
// kernel records they describe). A kernel a CUDA graph ran takes the site
// that captured (or added) its node, else the graph launch's.
void resolve_call_sites(PassRecords &records);

// Reads every <pass>-<pid>.jsonl in `folder`; lines that do not parse are
// counted in notes (a process killed mid-line leaves half a line).
PassRecords read_pass(const std::string &folder, const std::string &pass);
// Every <pass>-<pid>.jsonl in `folder`, in name order: each non-empty line
// handed to `add` with its process id. Lines `add` throws on are counted, and
// a note per process says how many, in `notes`.
void read_record_files(const std::string &folder, const std::string &pass,
                       const std::function<void(const std::string &line, int pid)> &add, std::vector<std::string> &notes);

// One JSON line into `out` (for tests and for read_pass).
void add_record(PassRecords &out, const std::string &line, int pid);


}  // namespace gmexplain
