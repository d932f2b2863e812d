#include "explain/explain_session.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <regex>

#include "explain/explain_document.hpp"
#include "explain/lab_figures.hpp"
#include "explain/program/program_launch.hpp"
#include "explain/replay_join.hpp"
#include "explain/rule_book.hpp"
#include "explain/source_lines.hpp"
#include "explain/trace_records.hpp"
#include "explain/trace_summary.hpp"
#include "inject/kernel_choice.hpp"
#include "inject/variables.hpp"

namespace gmexplain {

using nlohmann::json;

namespace {

bool is_file(const std::string &p) {
    struct stat st {};
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Outcome stop(int code, const std::string &message) {
    Outcome o;
    o.exit_code = code;
    o.message = message;
    return o;
}

std::string validate(const Options &o) {
    if (o.kernels < 1) return "--kernels " + std::to_string(o.kernels) + ": must be at least 1 (how many of the longest kernels are counted)";
    if (o.launch_count < 1) return "--launch-count 0: must be at least 1 (launches of each kernel counted)";
    if (o.replay != "kernel" && o.replay != "application")
        return "--replay " + o.replay + ": must be kernel or application";
    if (!o.kernel_regex.empty()) try {
            std::regex re(o.kernel_regex);
        } catch (const std::regex_error &e) {
            return "--kernel-regex " + o.kernel_regex + ": not a regular expression (" + e.what() + ")";
        }
    if (o.measure < kMeasureNever || o.measure > kMeasureAlways)
        return "measure " + std::to_string(o.measure) + ": must be 0 (never), 1 (where no run document is found) or 2 (always)";
    if (o.passes != 1 && o.passes != 2) return "--passes " + std::to_string(o.passes) + ": must be 1 or 2";
    if (o.argv.empty() && o.from_records.empty()) return "no program given: gmlab explain [options] -- PROGRAM [ARGS...]";
    return "";
}

// The folder of one explanation's records: --records, or a fresh temporary one.
std::string records_folder(const Options &o, bool *temporary) {
    *temporary = o.records_dir.empty();
    if (!*temporary) {
        mkdir(o.records_dir.c_str(), 0755);
        return o.records_dir;
    }
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/gmlab-explain-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    return mkdtemp(buf.data()) ? std::string(buf.data()) : "";
}

void remove_folder(const std::string &dir) {
    // Only what this explanation wrote: <pass>-<pid>.jsonl, and the folders of
    // the lines pass's runs of one kernel (lines-kernel-<i>/) with theirs.
    if (DIR *d = opendir(dir.c_str())) {
        while (dirent *e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.size() > 6 && n.substr(n.size() - 6) == ".jsonl") unlink((dir + "/" + n).c_str());
            else if (n.rfind("lines-kernel-", 0) == 0) remove_folder(dir + "/" + n);
        }
        closedir(d);
    }
    rmdir(dir.c_str());
}

using Env = std::vector<std::pair<std::string, std::string>>;

// The rules' counters and the launch's duration, each once.
std::string metric_list(const Options &o) {
    std::vector<std::string> names = load_rules(o.rules_dir).metrics();
    if (std::find(names.begin(), names.end(), "gpu__time_duration.sum") == names.end()) names.push_back("gpu__time_duration.sum");
    std::string metrics;
    for (const auto &m : names) metrics += (metrics.empty() ? "" : ",") + m;
    return metrics;
}

// The single pass: trace, and count the kernels (of those --kernel-regex
// names) whose traced time ranks among twice --kernels at a launch after the
// trace timed one of theirs; with --launch-skip or --launch-count, the
// launches they name of every kernel instead.
Env single_env(const Options &o) {
    const bool by_rank = o.launch_skip == 0 && o.launch_count == 1;
    return {{vars::kKernelRegex, o.kernel_regex},
            {vars::kCountTop, by_rank ? std::to_string(2 * o.kernels) : "0"},
            {vars::kMetrics, metric_list(o)},
            {vars::kLaunchSkip, std::to_string(o.launch_skip)},
            {vars::kLaunchCount, std::to_string(o.launch_count)}};
}

// A counting pass for the named kernels only, each at its call site where
// the trace knew one ("mangled<TAB>site key": kernel_choice.hpp).
Env counters_env(const Options &o, const std::vector<KernelSummary> &kernels) {
    std::string names;
    for (const auto &k : kernels) names += k.mangled + (k.site.empty() ? "" : "\t" + k.site) + "\n";
    return {{vars::kKernels, names},
            {vars::kMetrics, metric_list(o)},
            {vars::kLaunchSkip, std::to_string(o.launch_skip)},
            {vars::kLaunchCount, std::to_string(o.launch_count)}};
}

// The signal that ended the program: its own exit's, or the one the injection
// library recorded in any of its processes; 0 where none did.
int ending_signal(const PassRun &run) {
    if (run.exit.signal) return run.exit.signal;
    return run.records.signals.empty() ? 0 : run.records.signals.front();
}

// A program that crashed under explain before its records were written: the
// records a process keeps until its exit are lost with it, so "no kernel"
// would mislead. Each variable leaves out one part of explain, to find the
// part a program that runs to its end alone meets.
std::string crash_text(int signal, const std::string &stack) {
    const char *name = strsignal(signal);
    return "the program was ended by signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "") +
           " before its records were complete" + (stack.empty() ? "" : " (the crashing thread's stack: " + stack + ")") + ": if it runs to its end alone, GMLAB_EXPLAIN_GRAPHS=0 (CUDA graph "
           "launches not counted), GMLAB_EXPLAIN_CALLSITES=0 (no call sites) and --counters off (the trace alone) "
           "each leave out one part of explain";
}

// Which passes records kept with --records came from.
bool has_pass(const std::string &folder, const std::string &pass) { return !read_pass(folder, pass).pids.empty(); }

// What the single pass counted, as a counting pass of its own.
PassRun counted_in(const PassRun &run, bool single) {
    PassRun c;
    if (!single) return c;
    c.exit = run.exit;
    c.records.counters = run.records.counters;
    c.records.counters_unavailable = run.records.counters_unavailable;
    c.records.launches = run.records.launches;
    for (const auto &n : run.records.notes)
        if (n.rfind("metrics not available", 0) == 0 || n.rfind("the range profiler", 0) == 0) c.records.notes.push_back(n);
    return c;
}

// The chosen kernels that have no counted launch.
std::vector<KernelSummary> uncounted(const std::vector<KernelSummary> &chosen, const PassRecords &counted) {
    std::vector<KernelSummary> out;
    for (const auto &k : chosen)
        if (std::none_of(counted.counters.begin(), counted.counters.end(), [&](const CounterRecord &c) { return counts_for(c, k); }))
            out.push_back(k);
    return out;
}

// The kernels' summed share of the GPU's kernel time.
double share_of(const std::vector<KernelSummary> &kernels) {
    double share = 0;
    for (const auto &k : kernels) share += k.share_of_gpu_time;
    return share;
}

void merge_counts(PassRun &into, const PassRun &more) {
    for (const auto &c : more.records.counters) into.records.counters.push_back(c);
    if (into.records.counters_unavailable.empty()) into.records.counters_unavailable = more.records.counters_unavailable;
    for (const auto &n : more.records.notes) into.records.notes.push_back(n);
    for (const auto &[phase, seconds] : more.records.phase_seconds) into.records.phase_seconds[phase] += seconds;
    into.exit = more.exit;
}

PassRun run_pass(const Options &o, const std::string &resolved, const std::string &folder, const std::string &pass,
                 std::vector<std::pair<std::string, std::string>> env);

// Pass 3 (--lines): one more run of the program, SASS metrics per source line
// of the chosen kernels (its own run: the patched code would disturb the
// counters), then a run of its own for each chosen kernel that run launched
// but collected nothing for (only the first chosen kernel launched in a
// context is collected). Records kept earlier are read as they are.
void add_lines_pass(const Options &o, const std::string &resolved, const std::string &folder,
                    const std::vector<KernelSummary> &chosen, nlohmann::json &doc) {
    const Env skip = {{vars::kLaunchSkip, std::to_string(o.launch_skip)}};
    auto lines_run = [&](const std::string &where, const std::string &names) {
        Env env = skip;
        env.emplace_back(vars::kKernels, names);
        run_pass(o, resolved, where, "lines", env);
    };
    std::string names;
    std::vector<std::string> mangled;
    for (const auto &k : chosen) {
        names += k.mangled + "\n";
        mangled.push_back(k.mangled);
    }
    const auto t0 = std::chrono::steady_clock::now();
    if (o.from_records.empty()) {
        lines_run(folder, names);
        const std::vector<std::string> missing = kernels_without_lines(read_lines(folder), mangled);
        for (std::size_t i = 0; i < missing.size(); ++i) {
            const std::string own = lines_rerun_folder(folder, i);
            mkdir(own.c_str(), 0755);
            lines_run(own, missing[i] + "\n");
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    add_source_lines(doc, read_lines_with_reruns(folder), o.from_records.empty() ? seconds : 0.0);
}

// What finds the user's line and operator (docs/explain.md, "Call sites"):
// the injection library as the program's NVTX tool, and the Python start-up
// hook that sits beside it first on PYTHONPATH.
Env call_site_env(const std::string &injection) {
    Env env;
    if (const char *off = std::getenv(vars::kCallSites); off && std::string(off) == "0") return env;
    env.emplace_back("NVTX_INJECTION64_PATH", injection);
    const std::string hook = injection.substr(0, injection.find_last_of('/') + 1) + "gmlab_explain_python";
    const char *path = std::getenv("PYTHONPATH");
    if (is_file(hook + "/sitecustomize.py")) env.emplace_back("PYTHONPATH", hook + (path && *path ? ":" + std::string(path) : ""));
    return env;
}

PassRun run_pass(const Options &o, const std::string &resolved, const std::string &folder, const std::string &pass,
                 std::vector<std::pair<std::string, std::string>> env) {
    env.emplace_back("CUDA_INJECTION64_PATH", o.injection);
    for (auto &e : call_site_env(o.injection)) env.push_back(std::move(e));
    env.emplace_back(vars::kOut, folder);
    env.emplace_back(vars::kPass, pass);
    PassRun r;
    if (o.from_records.empty()) r.exit = run_program(resolved, o.argv, env);
    r.records = read_pass(folder, pass);
    return r;
}

// --replay application (docs/explain.md, "Application replay"): one run of
// the program per one-pass group of metrics, joined; kernels whose runs differ
// are counted with kernel replay in one more run.
struct ApplicationReplay {
    PassRun counting;
    ApplicationJoin join;
    std::size_t runs = 0;
    bool fallback_ran = false;  // the kernel-replay run for refused kernels (or for all, where the runs failed)
};

Env application_env(const Options &o, const std::vector<KernelSummary> &kernels, std::size_t group) {
    Env env = counters_env(o, kernels);
    env.emplace_back(vars::kReplay, "application");
    env.emplace_back(vars::kGroup, std::to_string(group));
    return env;
}

std::string application_pass(std::size_t group) { return "appreplay" + std::to_string(group); }

// The runs: the first counts group 0 and says how many groups the chip needs.
std::vector<ApplicationRun> application_runs(const Options &o, const std::string &resolved, const std::string &folder,
                                             const std::vector<KernelSummary> &chosen, ProgramExit *last_exit) {
    std::vector<ApplicationRun> runs;
    for (std::size_t group = 0;; ++group) {
        // A counting pass whose records have a name of their own, one per run.
        PassRun run = run_pass(o, resolved, folder, "counters", application_env(o, chosen, group));
        run.records = read_pass(folder, application_pass(group));
        runs.push_back({run.records, run.exit.status});
        *last_exit = run.exit;
        const std::size_t needed = runs.front().records.metric_groups.size();
        if (!run.exit.error.empty() || !run.records.counters_unavailable.empty() || group + 1 >= needed) break;
    }
    return runs;
}

// The kernels kernel replay counts instead: the refused ones, or every chosen
// one where application replay failed for another reason than permissions.
std::vector<KernelSummary> kernel_replay_instead(const ApplicationJoin &join, const std::vector<KernelSummary> &chosen) {
    if (!join.failure.empty())
        return join.failure.find("ERR_NVGPUCTRPERM") == std::string::npos ? chosen : std::vector<KernelSummary>{};
    std::vector<KernelSummary> out;
    for (const auto &k : chosen)
        if (std::any_of(join.refused.begin(), join.refused.end(), [&](const ReplayRefusal &r) { return r.mangled == k.mangled; }))
            out.push_back(k);
    return out;
}

ApplicationReplay count_by_application_replay(const Options &o, const std::string &resolved, const std::string &folder,
                                              const std::vector<KernelSummary> &chosen, const PassRun &trace) {
    ApplicationReplay out;
    std::vector<std::string> names;
    for (const auto &k : chosen) names.push_back(k.mangled);
    const auto runs = application_runs(o, resolved, folder, chosen, &out.counting.exit);
    out.runs = runs.size();
    out.join = join_application_runs(runs, &trace.records, trace.exit.status, names);
    out.counting.records = out.join.counting;
    const auto instead = kernel_replay_instead(out.join, chosen);
    if (!instead.empty()) {
        const PassRun more = run_pass(o, resolved, folder, "counters", counters_env(o, instead));
        out.fallback_ran = more.records.counters_unavailable.empty() && !more.records.pids.empty();
        if (out.fallback_ran) {
            out.counting.records.counters_unavailable.clear();
            merge_counts(out.counting, more);
        }
    }
    auto &notes = out.counting.records.notes;
    if (!out.join.failure.empty())
        notes.push_back("application replay failed: " + out.join.failure +
                        (out.fallback_ran ? "; counted with kernel replay instead" : ""));
    for (const auto &r : out.join.refused)
        notes.push_back(refusal_note(r, out.fallback_ran ? "counted with kernel replay instead (--replay kernel)"
                                                         : "not counted (use --replay kernel)"));
    return out;
}

// What application replay did, in the document: passes.counters.replay and
// .application, each kernel's replay, and why a refused kernel has no counters.
void describe_application_replay(json &doc, const ApplicationReplay &a) {
    json refused = json::array();
    for (const auto &r : a.join.refused)
        refused.push_back({{"kernel", demangled(r.mangled)}, {"mangled", r.mangled}, {"reason", r.reason},
                           {"instead", a.fallback_ran ? "kernel replay" : "not counted"}});
    doc["passes"]["counters"]["replay"] = "application";
    doc["passes"]["counters"]["application"] = {
        {"runs", a.runs}, {"groups", a.join.groups}, {"refused", refused},
        {"failure", a.join.failure.empty() ? json() : json(a.join.failure)},
        {"kernel_replay_run", a.fallback_ran}};
    if (!doc.contains("kernels")) return;
    for (auto &k : doc["kernels"]) {
        const std::string mangled = k.value("mangled", "");
        const auto r = std::find_if(a.join.refused.begin(), a.join.refused.end(),
                                    [&](const ReplayRefusal &x) { return x.mangled == mangled; });
        const bool refused_here = r != a.join.refused.end() || !a.join.failure.empty();
        if (k.value("counted", false)) k["replay"] = refused_here ? "kernel" : "application";
        else if (r != a.join.refused.end()) k["not_counted"] = "application replay refused: " + r->reason;
    }
}

// analyse(), its own time in the document (passes.analysis.seconds): what
// explain spends beyond the program's runs.
Outcome timed_analyse(const Options &o, const PassRun &trace, const PassRun *counting, double counting_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    Outcome out = analyse(o, trace, counting, counting_seconds);
    if (out.document.is_object() && out.document.contains("passes"))
        out.document["passes"]["analysis"] = {
            {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
    return out;
}

}  // namespace

std::string find_injection(const std::string &exe_dir) {
    if (const char *env = std::getenv(vars::kInjection); env && *env) return is_file(env) ? env : "";
    for (const std::string &p : {exe_dir + "/libgmlab_explain_inject.so", exe_dir + "/../lib/libgmlab_explain_inject.so",
                                 exe_dir + "/../lib64/libgmlab_explain_inject.so"})
        if (is_file(p)) return p;
    return "";
}

std::vector<KernelSummary> choose_kernels(const std::vector<KernelSummary> &all, const Options &o) {
    std::vector<KernelSummary> out;
    std::regex re(o.kernel_regex.empty() ? ".*" : o.kernel_regex);
    for (const auto &k : all) {
        if (!o.kernel_regex.empty() && !std::regex_search(k.name, re) && !std::regex_search(k.mangled, re)) continue;
        if (never_counted(k.mangled)) continue;  // the injection library never counts them either
        if (static_cast<int>(out.size()) < o.kernels) out.push_back(k);
    }
    return out;
}

Env session_env(const Options &options, std::string *why) {
    Options o = options;
    if (o.argv.empty()) o.argv = {"(this process)"};  // the session's program is the caller
    if (std::string bad = validate(o); !bad.empty()) {
        *why = bad;
        return {};
    }
    if (o.injection.empty() || !is_file(o.injection)) {
        *why = "the injection library libgmlab_explain_inject.so was not found (looked beside the gmlab executable "
               "and in ../lib); set GMLAB_EXPLAIN_INJECTION to its path";
        return {};
    }
    Env env = single_env(o);
    env.emplace_back(vars::kInjection, o.injection);
    return env;
}

Outcome explain(const Options &options) {
    Options o = options;
    if (std::string why = validate(o); !why.empty()) return stop(kExplainUsage, why);
    if (!o.from_records.empty() && has_pass(o.from_records, application_pass(0))) o.replay = "application";
    // Application replay counts the chosen kernels only: the trace comes first.
    if (o.replay == "application") o.passes = 2;
    std::string resolved;
    if (o.from_records.empty()) {
        const LaunchProblem p = check_program(o.argv[0], &resolved);
        if (p.kind == LaunchProblem::kNotFound) return stop(kProgramNotFound, p.message);
        if (p.kind == LaunchProblem::kNotExecutable) return stop(kProgramNotExecutable, p.message);
        if (p.kind == LaunchProblem::kNoInterpreter) return stop(kScriptWithoutInterpreter, p.message);
        if (o.injection.empty() || !is_file(o.injection))
            return stop(kInjectionUnavailable, "the injection library libgmlab_explain_inject.so was not found (looked beside "
                                               "the gmlab executable and in ../lib); set GMLAB_EXPLAIN_INJECTION to its path");
    }
    bool temporary = false;
    const std::string folder = o.from_records.empty() ? records_folder(o, &temporary) : o.from_records;
    if (folder.empty()) return stop(kExplainFailed, "could not create a folder for the records in $TMPDIR or /tmp");

    const std::string first = !o.from_records.empty() ? (has_pass(folder, "single") ? "single" : "trace")
                                                      : (o.passes == 1 && o.counters ? "single" : "trace");
    const PassRun trace = run_pass(o, resolved, folder, first, first == "single" ? single_env(o) : Env{});
    if (!trace.exit.error.empty()) {
        if (temporary) remove_folder(folder);
        return stop(kProgramNotExecutable, trace.exit.error);
    }
    Outcome result;
    if (trace.records.pids.empty()) {
        result = stop(trace.exit.status ? trace.exit.status : kNotCudaProgram,
                      o.argv.empty() ? "no trace records in " + folder
                                     : o.argv[0] + " never initialised CUDA: it is not a CUDA program (or it exited with " +
                                           std::to_string(trace.exit.status) + " before its first CUDA call)");
    } else if (!trace.records.trace_unavailable.empty()) {
        result = stop(kInjectionUnavailable, "tracing is not possible: " + trace.records.trace_unavailable);
    } else if (trace.records.kernels.empty() && ending_signal(trace)) {
        const int signal = ending_signal(trace);
        result = stop(trace.exit.status ? trace.exit.status : 128 + signal,
                      crash_text(signal, trace.records.crash_stack) + "; no kernel was recorded (it initialised CUDA in " +
                          std::to_string(trace.records.pids.size()) + " process(es))");
    } else if (trace.records.kernels.empty()) {
        result = stop(trace.exit.status ? trace.exit.status : kNoKernelLaunched,
                      "the program never launched a kernel (it initialised CUDA in " +
                          std::to_string(trace.records.pids.size()) + " process(es))");
    } else {
        const auto all = summarize_kernels(trace.records);
        const auto chosen = choose_kernels(all, o);
        if (chosen.empty()) {
            result = stop(kRegexMatchedNothing, "--kernel-regex " + o.kernel_regex + " matches none of the " +
                                                    std::to_string(all.size()) + " kernels");
        } else if (o.counters && o.replay == "application") {
            const auto t0 = std::chrono::steady_clock::now();
            const ApplicationReplay replay = count_by_application_replay(o, resolved, folder, chosen, trace);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            result = timed_analyse(o, trace, &replay.counting, seconds);
            if (!result.document.is_null()) describe_application_replay(result.document, replay);
        } else if (o.counters) {
            const auto t0 = std::chrono::steady_clock::now();
            PassRun counting = counted_in(trace, first == "single");
            const auto missing = uncounted(chosen, counting.records);
            // Records kept with a counting run are read whatever their share: that costs no run.
            const double missing_share = share_of(missing);
            const bool worth = first != "single" || missing_share >= kRerunShare ||
                               (!o.from_records.empty() && has_pass(folder, "counters"));
            if (!worth) {
                for (const auto &k : missing) counting.not_worth_a_run.emplace_back(k.mangled, k.site);
                counting.not_worth_share = missing_share;
            }
            if (!missing.empty() && worth && counting.records.counters_unavailable.empty()) {
                const PassRun more = run_pass(o, resolved, folder, "counters", counters_env(o, missing));
                merge_counts(counting, more);
            }
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            result = timed_analyse(o, trace, &counting, seconds);
        } else {
            result = timed_analyse(o, trace, nullptr, 0);
        }
        if (o.lines && !chosen.empty() && !result.document.is_null()) add_lines_pass(o, resolved, folder, chosen, result.document);
    }
    if (temporary) remove_folder(folder);
    return result;
}

}  // namespace gmexplain
