#include "inject/sass_pass.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "cupti/range_profiler_host.hpp"
#include "inject/cupti_call.hpp"
#include "inject/cupti_table.hpp"
#include "inject/kernel_choice.hpp"
#include "inject/record_sink.hpp"
#include "inject/record_types.hpp"

namespace gmexplain {
// A namespace of its own: the injection library is built as one translation
// unit, beside the counting pass, whose helpers have the same names.
namespace lines_pass {
namespace {

// The SASS metrics asked for (per executed instruction, summed over the
// warps). The ideal global sectors are one metric on Hopper and split by loads
// and stores on some chips (kAlternative: asked for, never missed); a chip that
// lacks another leaves it out, with a note. Hopper has no per-instruction
// bank-conflict metric: conflicts show as shared wavefronts over the ideal ones.
const char *const kMetrics[] = {
    "smsp__sass_inst_executed",
    "smsp__sass_inst_executed_op_global_ld",
    "smsp__sass_inst_executed_op_global_st",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_inst_executed_op_shared_ld",
    "smsp__sass_inst_executed_op_shared_st",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_local_ld",
    "smsp__sass_inst_executed_op_local_st",
    "smsp__sass_sectors_mem_local",
};
const char *const kAlternative[] = {
    "smsp__sass_sectors_mem_global_op_ld_ideal",
    "smsp__sass_sectors_mem_global_op_st_ideal",
};

// The driver's own entry points, from the libcuda the program has loaded
// (the library links no CUDA library): to wait for the kernels before a flush.
struct DriverCalls {
    CUresult (*synchronize)() = nullptr;
    CUresult (*push)(CUcontext) = nullptr;
    CUresult (*pop)(CUcontext *) = nullptr;
};

const DriverCalls &driver() {
    static DriverCalls calls = [] {
        DriverCalls d;
        if (void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
            d.synchronize = reinterpret_cast<CUresult (*)()>(dlsym(h, "cuCtxSynchronize"));
            d.push = reinterpret_cast<CUresult (*)(CUcontext)>(dlsym(h, "cuCtxPushCurrent_v2"));
            d.pop = reinterpret_cast<CUresult (*)(CUcontext *)>(dlsym(h, "cuCtxPopCurrent_v2"));
        }
        return d;
    }();
    return calls;
}

// One instruction of one function: (function, cubin CRC, pc offset).
using PcKey = std::tuple<std::string, std::uint32_t, std::uint32_t>;
using MetricSums = std::map<std::string, double>;

struct Cubin {
    std::vector<char> image;
    std::uint64_t crc = 0;
    bool crc_known = false;
};

struct State {
    LinesPlan plan;
    std::mutex mutex;
    CUpti_SubscriberHandle subscriber = nullptr;
    bool profiler_initialized = false;
    bool failed = false;
    std::vector<Cubin> cubins;                       // every module loaded, in order
    std::map<std::uint32_t, std::string> chips;      // configured devices and their chips
    std::map<std::uint64_t, std::string> metric_of;  // metric id -> name
    std::set<CUcontext> enabled;                     // contexts with SASS metrics on
    std::map<std::string, std::uint64_t> launches;   // per mangled name
    KernelChoice choice;  // the kernels this pass works on
    std::map<PcKey, MetricSums> pcs;                 // the flushed values, per instruction
};
State *g_state = nullptr;

void lines_note(const std::string &text) { sink_write(Line().field("type", records::kNote).field("text", "lines: " + text)); }

// The SASS metrics API needs the profiler initialised, and that only once a
// context exists (as for the counting pass).
void initialize_profiler() {
    if (g_state->profiler_initialized) return;
    auto init = GMX_PARAMS(CUpti_Profiler_Initialize_Params);
    cupti_check(cupti().cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    g_state->profiler_initialized = true;
}

// The chip's SASS metrics whose names say global, shared or local: written
// once when a metric asked for is missing, so that the note can be acted on.
void write_chip_metrics(const std::string &chip) {
    const auto &api = cupti();
    auto count = GMX_PARAMS(CUpti_SassMetrics_GetNumOfMetrics_Params);
    count.pChipName = chip.c_str();
    if (api.cuptiSassMetricsGetNumOfMetrics(&count) != CUPTI_SUCCESS) return;
    std::vector<CUpti_SassMetrics_MetricDetails> list(count.numOfMetrics);
    auto get = GMX_PARAMS(CUpti_SassMetrics_GetMetrics_Params);
    get.pChipName = chip.c_str();
    get.numOfMetrics = list.size();
    get.pMetricsList = list.data();
    if (api.cuptiSassMetricsGetMetrics(&get) != CUPTI_SUCCESS) return;
    std::string names;
    for (const auto &m : list) {
        const std::string n = m.pMetricName ? m.pMetricName : "";
        if (n.find("global") != std::string::npos || n.find("shared") != std::string::npos ||
            n.find("local") != std::string::npos)
            names += (names.empty() ? "" : ",") + n;
    }
    sink_write(Line().field("type", records::kSassMetrics).field("chip", chip).field("names", names));
}

// SetConfig once per device: the metrics the chip has, summed over the whole GPU.
void configure_device(std::uint32_t device) {
    if (g_state->chips.count(device)) return;
    const auto &api = cupti();
    const std::string chip = gmcupti::chip_name(cupti(), cupti_check, device);
    std::vector<CUpti_SassMetrics_Config> configs;
    std::string missing;
    auto add = [&](const char *metric) {
        auto prop = GMX_PARAMS(CUpti_SassMetrics_GetProperties_Params);
        prop.pChipName = chip.c_str();
        prop.pMetricName = metric;
        if (api.cuptiSassMetricsGetProperties(&prop) != CUPTI_SUCCESS) return false;
        g_state->metric_of[prop.metric.metricId] = metric;
        configs.push_back({prop.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
        return true;
    };
    for (const char *metric : kMetrics)
        if (!add(metric)) missing += (missing.empty() ? "" : ", ") + std::string(metric);
    for (const char *metric : kAlternative) add(metric);
    if (!missing.empty()) {
        lines_note("SASS metrics not available on chip " + chip + ": " + missing);
        write_chip_metrics(chip);
    }
    if (configs.empty()) throw CuptiFailure{"no SASS metric asked for is available on chip " + chip};
    auto set = GMX_PARAMS(CUpti_SassMetricsSetConfig_Params);
    set.deviceIndex = device;
    set.numOfMetricConfig = configs.size();
    set.pConfigs = configs.data();
    cupti_check(api.cuptiSassMetricsSetConfig(&set), "cuptiSassMetricsSetConfig");
    g_state->chips[device] = chip;
}

// Waits for the context's kernels, so that the flush holds every launch.
void synchronize(CUcontext ctx) {
    const DriverCalls &d = driver();
    if (!d.synchronize || !d.push || !d.pop) return;
    if (d.push(ctx) != CUDA_SUCCESS) return;
    d.synchronize();
    CUcontext popped = nullptr;
    d.pop(&popped);
}

// What each flush found (why: at a context's end or the exit):
// how a run that names no line can be told from one that collected nothing.
void flush_record(const char *why, std::size_t records, std::size_t instances, std::size_t unnamed) {
    sink_write(Line().field("type", records::kLinesFlush).field("at", why).field("records", std::uint64_t(records))
                   .field("instances", std::uint64_t(instances)).field("unnamed", std::uint64_t(unnamed)));
}

// Moves what the context collected into g_state->pcs.
void flush(CUcontext ctx, const char *why) {
    const auto &api = cupti();
    synchronize(ctx);
    auto props = GMX_PARAMS(CUpti_SassMetricsGetDataProperties_Params);
    props.ctx = ctx;
    cupti_check(api.cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties");
    const std::size_t records = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
    if (records == 0 || instances == 0) {
        flush_record(why, records, instances, 0);
        return;
    }
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
    std::vector<CUpti_SassMetrics_Data> data(records);
    for (std::size_t i = 0; i < records; ++i) {
        data[i].structSize = sizeof(CUpti_SassMetrics_Data);
        data[i].pInstanceValues = &values[i * instances];
    }
    auto fl = GMX_PARAMS(CUpti_SassMetricsFlushData_Params);
    fl.ctx = ctx;
    fl.numOfPatchedInstructionRecords = records;
    fl.numOfInstances = instances;
    fl.pMetricsData = data.data();
    cupti_check(api.cuptiSassMetricsFlushData(&fl), "cuptiSassMetricsFlushData");
    std::size_t unnamed = 0;
    for (const auto &d : data) {
        const std::string function = d.functionName ? d.functionName : "";
        if (function.empty()) {
            ++unnamed;
            continue;
        }
        MetricSums &sums = g_state->pcs[PcKey{function, d.cubinCrc, d.pcOffset}];
        for (std::size_t j = 0; j < instances; ++j) {
            auto it = g_state->metric_of.find(d.pInstanceValues[j].metricId);
            if (it != g_state->metric_of.end()) sums[it->second] += double(d.pInstanceValues[j].value);
        }
    }
    flush_record(why, records, instances, unnamed);
}

void disable(CUcontext ctx) {
    auto dis = GMX_PARAMS(CUpti_SassMetricsDisable_Params);
    dis.ctx = ctx;
    cupti_check(cupti().cuptiSassMetricsDisable(&dis), "cuptiSassMetricsDisable");
    if (dis.numOfDroppedRecords) lines_note(std::to_string(dis.numOfDroppedRecords) + " SASS metric records were dropped");
    g_state->enabled.erase(ctx);
}

// Enables SASS metrics on the context, once, with lazy patching: each
// function is patched at its first launch after, this one included, so the
// chosen kernels launched later are patched too (and so are the others: their
// values are left out when the lines are written). Measured on an H100, CUDA
// 13.0: patching every loaded function at once, enabling when the context is
// created, or flushing, disabling and enabling again at a second kernel's
// first launch collected nothing for the launches after.
void enable(CUcontext ctx) {
    const auto &api = cupti();
    initialize_profiler();
    uint32_t device = 0;
    cupti_check(api.cuptiGetDeviceId(ctx, &device), "cuptiGetDeviceId");
    configure_device(device);
    auto en = GMX_PARAMS(CUpti_SassMetricsEnable_Params);
    en.ctx = ctx;
    en.enableLazyPatching = 1;
    cupti_check(api.cuptiSassMetricsEnable(&en), "cuptiSassMetricsEnable");
    g_state->enabled.insert(ctx);
}

void give_up(const CuptiFailure &f) {
    g_state->failed = true;
    sink_write(Line().field("type", records::kLinesUnavailable).field("reason", f.what));
}

void on_launch(const CUpti_CallbackData &cb) {
    if (cb.callbackSite != CUPTI_API_ENTER || !cb.symbolName) return;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed) return;
    const std::string kernel = cb.symbolName;
    try {
        if (!g_state->choice.wanted(kernel)) return;
        const std::uint64_t launch = g_state->launches[kernel]++;
        if (launch < g_state->plan.launch_skip || g_state->enabled.count(cb.context)) return;
        enable(cb.context);
    } catch (const CuptiFailure &f) {
        give_up(f);
    }
}

void on_module_loaded(const CUpti_ResourceData &rd) {
    const auto *module = static_cast<const CUpti_ModuleResourceData *>(rd.resourceDescriptor);
    if (!module || !module->pCubin || module->cubinSize == 0) return;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    Cubin c;
    c.image.assign(module->pCubin, module->pCubin + module->cubinSize);
    g_state->cubins.push_back(std::move(c));
}

// A context about to be destroyed: its values are flushed while it exists.
void on_context_destroy(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed || !g_state->enabled.count(ctx)) return;
    try {
        flush(ctx, "context end");
        disable(ctx);
    } catch (const CuptiFailure &f) {
        give_up(f);
    }
}

void on_context_created() {
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (g_state->failed) return;
    try {
        initialize_profiler();
    } catch (const CuptiFailure &f) {
        give_up(f);
    }
}

void CUPTIAPI callback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void *data) {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && is_kernel_launch(id))
        on_launch(*static_cast<const CUpti_CallbackData *>(data));
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_MODULE_LOADED)
        on_module_loaded(*static_cast<const CUpti_ResourceData *>(data));
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
        on_context_created();
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE && id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        on_context_destroy(static_cast<const CUpti_ResourceData *>(data)->context);
}

// ---- From instructions to source lines --------------------------------------

struct SourceLine {
    std::string file;  // "" when the cubin has no line table (built without -lineinfo)
    std::uint32_t line = 0;
};

bool correlate(const Cubin &cubin, const std::string &function, std::uint32_t pc, SourceLine *out) {
    CUpti_GetSassToSourceCorrelationParams p;
    std::memset(&p, 0, sizeof p);
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = cubin.image.data();
    p.cubinSize = cubin.image.size();
    p.functionName = function.c_str();
    p.pcOffset = pc;
    if (cupti().cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return false;
    const std::string file = p.fileName ? p.fileName : "", dir = p.dirName ? p.dirName : "";
    std::free(p.fileName);  // CUPTI allocates both strings for the caller
    std::free(p.dirName);
    out->file = file.empty() || file[0] == '/' || dir.empty() ? file : dir + "/" + file;
    out->line = p.lineNumber;
    return true;
}

std::uint64_t crc_of(Cubin &c) {
    if (!c.crc_known) {
        CUpti_GetCubinCrcParams p;
        std::memset(&p, 0, sizeof p);
        p.size = CUpti_GetCubinCrcParamsSize;
        p.cubin = c.image.data();
        p.cubinSize = c.image.size();
        c.crc = cupti().cuptiGetCubinCrc(&p) == CUPTI_SUCCESS ? p.cubinCrc : 0;
        c.crc_known = true;
    }
    return c.crc;
}

// The cubin an instruction belongs to: the one whose CRC matches the record's
// (CUPTI reports 32 bits of it), else the first whose line table knows the function.
const Cubin *cubin_for(const std::string &function, std::uint32_t crc, std::uint32_t pc) {
    for (auto &c : g_state->cubins)
        if (std::uint32_t(crc_of(c)) == crc) return &c;
    SourceLine probe;
    for (auto &c : g_state->cubins)
        if (correlate(c, function, pc, &probe)) return &c;
    return nullptr;
}

double value(const MetricSums &m, const char *name) {
    auto it = m.find(name);
    return it == m.end() ? 0.0 : it->second;
}

bool has(const MetricSums &m, const char *name) { return m.count(name) > 0; }

// The figures of one source line, summed over its instructions. Global
// sectors are attributed to loads or stores by the instruction's own kind
// (smsp__sass_sectors_mem_global counts both).
struct LineFigures {
    double instructions = 0;
    double ld_requests = 0, ld_sectors = 0, ld_ideal = 0;
    double st_requests = 0, st_sectors = 0, st_ideal = 0;
    double shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    double local_ld = 0, local_st = 0, local_sectors = 0;
    MetricSums sass;  // every metric, summed
};

void add_instruction(LineFigures &f, const MetricSums &m) {
    for (const auto &[name, v] : m) f.sass[name] += v;
    f.instructions += value(m, "smsp__sass_inst_executed");
    const double ld = value(m, "smsp__sass_inst_executed_op_global_ld");
    const double st = value(m, "smsp__sass_inst_executed_op_global_st");
    const double sectors = value(m, "smsp__sass_sectors_mem_global");
    const bool split_ideal = has(m, "smsp__sass_sectors_mem_global_op_ld_ideal") || has(m, "smsp__sass_sectors_mem_global_op_st_ideal");
    if (ld > 0) {
        f.ld_requests += ld;
        f.ld_sectors += sectors;
        f.ld_ideal += split_ideal ? value(m, "smsp__sass_sectors_mem_global_op_ld_ideal") : value(m, "smsp__sass_sectors_mem_global_ideal");
    } else if (st > 0) {
        f.st_requests += st;
        f.st_sectors += sectors;
        f.st_ideal += split_ideal ? value(m, "smsp__sass_sectors_mem_global_op_st_ideal") : value(m, "smsp__sass_sectors_mem_global_ideal");
    }
    f.shared_requests += value(m, "smsp__sass_inst_executed_op_shared_ld") + value(m, "smsp__sass_inst_executed_op_shared_st");
    f.shared_wavefronts += value(m, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
    f.shared_ideal_wavefronts += value(m, "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
    f.local_ld += value(m, "smsp__sass_inst_executed_op_local_ld");
    f.local_st += value(m, "smsp__sass_inst_executed_op_local_st");
    f.local_sectors += value(m, "smsp__sass_sectors_mem_local");
}

void write_line(const std::string &function, const SourceLine &where, const LineFigures &f) {
    Line sass;
    for (const auto &[name, v] : f.sass) sass.field(name.c_str(), v);
    sink_write(Line().field("type", records::kLine).field("name", function).field("file", where.file)
                   .field("line", std::uint64_t(where.line)).field("instructions", f.instructions)
                   .field("global_ld_requests", f.ld_requests).field("global_ld_sectors", f.ld_sectors)
                   .field("global_ld_ideal_sectors", f.ld_ideal).field("global_st_requests", f.st_requests)
                   .field("global_st_sectors", f.st_sectors).field("global_st_ideal_sectors", f.st_ideal)
                   .field("shared_requests", f.shared_requests).field("shared_wavefronts", f.shared_wavefronts)
                   .field("shared_ideal_wavefronts", f.shared_ideal_wavefronts).field("local_ld", f.local_ld)
                   .field("local_st", f.local_st).field("local_sectors", f.local_sectors).raw("sass", sass.text()));
}

// Every flushed instruction of a chosen kernel, summed per source line; a
// kernel whose cubin has no line table gets one lines_no_info record instead.
void write_lines() {
    std::map<std::string, std::map<std::pair<std::string, std::uint32_t>, LineFigures>> per_kernel;
    std::map<std::string, std::uint64_t> without_line;  // instructions with no file:line, per kernel
    for (const auto &[key, sums] : g_state->pcs) {
        const auto &[function, crc, pc] = key;
        if (!g_state->choice.wanted(function)) continue;
        SourceLine where;
        const Cubin *cubin = cubin_for(function, crc, pc);
        if (!cubin || !correlate(*cubin, function, pc, &where) || where.file.empty() || where.line == 0) {
            ++without_line[function];
            continue;
        }
        add_instruction(per_kernel[function][{where.file, where.line}], sums);
    }
    for (const auto &[function, lines] : per_kernel)
        for (const auto &[where, figures] : lines) write_line(function, SourceLine{where.first, where.second}, figures);
    for (const auto &[function, n] : without_line)
        if (!per_kernel.count(function))
            sink_write(Line().field("type", records::kLinesNoInfo).field("name", function).field("instructions", n)
                           .field("cubins", std::uint64_t(g_state->cubins.size())));
}

std::string start(const LinesPlan &plan) {
    const auto &api = cupti();
    if (!api.sass_reason.empty()) return api.sass_reason;
    g_state = new State;  // lives to the end of the process: callbacks may come from any thread
    g_state->plan = plan;
    g_state->choice.choose(!plan.kernels.empty(), plan.kernels, plan.kernel_regex, plan.max_kernels);
    return subscribe_to_launches(&g_state->subscriber, callback,
                                 {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
                                  CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING});
}

void stop() {
    if (!g_state) return;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    try {
        // Contexts the program never destroyed: flushed now, while the driver still holds them.
        const std::set<CUcontext> still = g_state->enabled;
        if (!g_state->failed)
            for (CUcontext ctx : still) {
                flush(ctx, "exit");
                disable(ctx);
            }
    } catch (const CuptiFailure &f) {
        give_up(f);
    }
    write_lines();
    for (const auto &[name, n] : g_state->launches)
        if (g_state->choice.wanted(name)) sink_write(Line().field("type", records::kLaunches).field("name", name).field("count", n));
}

}  // namespace
}  // namespace lines_pass

std::string lines_start(const LinesPlan &plan) { return lines_pass::start(plan); }

void lines_stop() { lines_pass::stop(); }

}  // namespace gmexplain
