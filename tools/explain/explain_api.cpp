// The C functions of include/gmlab_explain.h over the explain session. No
// exception leaves them: each becomes exit code 27 (GM_ERROR_INTERNAL) and a
// message. The previous release's names (gm_explain_run, _session_env, _load,
// _free) call the same code and return the exit code.
#include <unistd.h>

#include <fstream>
#include <new>
#include <string>

#include "explain/explain_document.hpp"
#include "explain/explain_session.hpp"
#include "gmlab_explain.h"

struct gm_explain {
    int exit_code = 0;
    std::string json, text, message;
};

namespace {

std::string text_or_empty(const char *s) { return s ? s : ""; }

// The folder of the running executable: the injection library is installed beside gmlab.
std::string executable_folder() {
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ".";
    std::string path(buf, static_cast<std::size_t>(n));
    return path.substr(0, path.find_last_of('/'));
}

gmexplain::Options to_options(const gm_explain_options &c) {
    gmexplain::Options o;
    for (int i = 0; i < c.argc && c.argv; ++i) o.argv.push_back(text_or_empty(c.argv[i]));
    o.kernels = c.kernels;
    o.kernel_regex = text_or_empty(c.kernel_regex);
    o.launch_skip = c.launch_skip;
    o.launch_count = c.launch_count;
    o.replay = c.replay ? c.replay : "kernel";
    o.passes = c.passes;
    o.counters = c.counters != 0;
    o.lab_run = text_or_empty(c.lab_run);
    o.rules_dir = text_or_empty(c.rules_dir);
    o.injection = c.injection ? c.injection : gmexplain::find_injection(executable_folder());
    o.records_dir = text_or_empty(c.records_dir);
    o.from_records = text_or_empty(c.from_records);
    o.lines = c.lines != 0;
    o.measure = c.measure;
    return o;
}

void fill(gm_explain &e, const nlohmann::json &doc) {
    if (doc.is_null()) return;
    e.json = doc.dump(2);
    e.text = gmexplain::explanation_text(doc);
}

void options_init(gm_explain_options *o) {
    if (!o) return;
    *o = gm_explain_options{};
    o->struct_size = sizeof(gm_explain_options);
    o->kernels = 5;
    o->launch_count = 1;
    o->replay = "kernel";
    o->passes = 1;
    o->counters = 1;
    o->measure = gmexplain::kMeasureWhereNoRun;
}

int run_program(const gm_explain_options *options, gm_explain **out) {
    if (!out) return gmexplain::kExplainUsage;
    *out = new (std::nothrow) gm_explain;
    if (!*out) return gmexplain::kExplainFailed;
    gm_explain &e = **out;
    if (!options) {
        e.exit_code = gmexplain::kExplainUsage;
        e.message = "options is NULL";
        return e.exit_code;
    }
    try {
        const auto outcome = gmexplain::explain(to_options(*options));
        e.exit_code = outcome.exit_code;
        e.message = outcome.message;
        fill(e, outcome.document);
    } catch (const std::exception &ex) {
        e.exit_code = gmexplain::kExplainFailed;
        e.message = ex.what();
    } catch (...) {
        e.exit_code = gmexplain::kExplainFailed;
        e.message = "unknown failure";
    }
    return e.exit_code;
}

int session_env(const gm_explain_options *options, gm_explain **out) {
    if (!out) return gmexplain::kExplainUsage;
    *out = new (std::nothrow) gm_explain;
    if (!*out) return gmexplain::kExplainFailed;
    gm_explain &e = **out;
    if (!options) {
        e.message = "options is NULL";
        return e.exit_code = gmexplain::kExplainUsage;
    }
    try {
        std::string why;
        const gmexplain::Options o = to_options(*options);
        const auto env = gmexplain::session_env(o, &why);
        if (env.empty()) {
            e.message = why;
            return e.exit_code = why.rfind("the injection library", 0) == 0 ? gmexplain::kInjectionUnavailable
                                                                              : gmexplain::kExplainUsage;
        }
        for (const auto &[k, v] : env) e.text += k + "=" + v + "\n";
    } catch (const std::exception &ex) {
        e.exit_code = gmexplain::kExplainFailed;
        e.message = ex.what();
    }
    return e.exit_code;
}

int load_document(const char *path, gm_explain **out) {
    if (!out) return gmexplain::kExplainUsage;
    *out = new (std::nothrow) gm_explain;
    if (!*out) return gmexplain::kExplainFailed;
    gm_explain &e = **out;
    try {
        std::ifstream in(text_or_empty(path));
        if (!in) throw std::runtime_error(text_or_empty(path) + ": cannot be read");
        auto doc = nlohmann::json::parse(in);
        if (const std::string bad = gmexplain::check_explain_document(doc); !bad.empty())
            throw std::runtime_error(text_or_empty(path) + " is not an explanation: " + bad);
        gmexplain::add_short_names(doc);
        fill(e, doc);
    } catch (const std::exception &ex) {
        e.exit_code = gmexplain::kExplainFailed;
        e.message = ex.what();
    }
    return e.exit_code;
}

// The status of a call from the exit code it gave (the header says which).
gm_status status_of(int exit_code) {
    switch (exit_code) {
    case gmexplain::kExplainUsage:
    case gmexplain::kProgramNotFound:
    case gmexplain::kProgramNotExecutable:
    case gmexplain::kScriptWithoutInterpreter:
    case gmexplain::kRegexMatchedNothing: return GM_ERROR_INVALID_ARGUMENT;
    case gmexplain::kInjectionUnavailable: return GM_ERROR_NOT_SUPPORTED;
    case gmexplain::kExplainFailed: return GM_ERROR_INTERNAL;
    default: return GM_OK;  // explained: 0, the program's own status, not CUDA, no kernel
    }
}

// A handle that says why options of another release (or never initialised)
// are refused.
gm_status refuse_options(gm_explain **out, const gm_explain_options &options) {
    *out = new (std::nothrow) gm_explain;
    if (!*out) return GM_ERROR_OUT_OF_MEMORY;
    (*out)->exit_code = gmexplain::kExplainUsage;
    (*out)->message = "options->struct_size is " + std::to_string(options.struct_size) +
                      ", not sizeof(gm_explain_options) = " + std::to_string(sizeof(gm_explain_options)) +
                      ": fill the options with gm_explain_options_init";
    return GM_ERROR_INVALID_ARGUMENT;
}

}  // namespace

extern "C" {

void gm_explain_options_init(gm_explain_options *o) { options_init(o); }

gm_status gm_explain_program(gm_explain **out, const gm_explain_options *options) {
    if (!out) return GM_ERROR_INVALID_ARGUMENT;
    if (options && options->struct_size != sizeof(gm_explain_options)) return refuse_options(out, *options);
    const int code = run_program(options, out);
    return *out ? status_of(code) : GM_ERROR_OUT_OF_MEMORY;
}

gm_status gm_explain_session(gm_explain **out, const gm_explain_options *options) {
    if (!out) return GM_ERROR_INVALID_ARGUMENT;
    if (options && options->struct_size != sizeof(gm_explain_options)) return refuse_options(out, *options);
    const int code = session_env(options, out);
    return *out ? status_of(code) : GM_ERROR_OUT_OF_MEMORY;
}

gm_status gm_explain_open(gm_explain **out, const char *path) {
    if (!out) return GM_ERROR_INVALID_ARGUMENT;
    const int code = load_document(path, out);
    if (!*out) return GM_ERROR_OUT_OF_MEMORY;
    return code == 0 ? GM_OK : GM_ERROR_INVALID_ARGUMENT;
}

int gm_explain_run(const gm_explain_options *options, gm_explain **out) { return run_program(options, out); }
int gm_explain_session_env(const gm_explain_options *options, gm_explain **out) { return session_env(options, out); }
int gm_explain_load(const char *path, gm_explain **out) { return load_document(path, out); }

const char *gm_explain_json(const gm_explain *e) { return e ? e->json.c_str() : ""; }
const char *gm_explain_text(const gm_explain *e) { return e ? e->text.c_str() : ""; }
const char *gm_explain_message(const gm_explain *e) { return e ? e->message.c_str() : ""; }
int gm_explain_exit_code(const gm_explain *e) { return e ? e->exit_code : gmexplain::kExplainUsage; }
void gm_explain_destroy(gm_explain *e) { delete e; }
void gm_explain_free(gm_explain *e) { gm_explain_destroy(e); }

}  // extern "C"
