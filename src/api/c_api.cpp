// The C boundary: every gm_ function is defined here. Each one checks its
// handles and pointers, runs the C++ implementation inside guarded(), and turns
// any exception into a gm_status plus a message (per context and per thread).
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "api/typed_params.hpp"
#include "core/device/buffer.hpp"
#include "core/device/handles.hpp"
#include "core/device/l2_window.hpp"
#include "core/device/nvml_health.hpp"
#include "core/error.hpp"
#include "core/experiment/kernel_resources.hpp"
#include "core/experiment/registry.hpp"
#include "operations/matmul.hpp"
#include "operations/stencil.hpp"
#include "operations/transpose.hpp"

using gmlab::ContextState;
using nlohmann::json;

namespace {

thread_local std::string t_last_error;

gm_status record(ContextState *state, gm_status status, const std::string &message) {
    t_last_error = message;
    if (state) state->last_error = message;
    return status;
}

template <class F> gm_status guarded(ContextState *state, F &&body) {
    try {
        body();
        return GM_OK;
    } catch (const gmlab::Error &e) {
        if (e.sticky() && state) state->mark_broken(e.what());
        return record(state, e.status(), e.what());
    } catch (const std::bad_alloc &) {
        return record(state, GM_ERROR_OUT_OF_MEMORY, "host memory exhausted");
    } catch (const json::exception &e) {
        return record(state, GM_ERROR_INVALID_ARGUMENT, std::string("malformed JSON: ") + e.what());
    } catch (const std::exception &e) {
        return record(state, GM_ERROR_INTERNAL, std::string("internal error: ") + e.what());
    } catch (...) {
        return record(state, GM_ERROR_INTERNAL, "internal error: unknown exception");
    }
}

gm_status null_argument(ContextState *state, const char *name) {
    return record(state, GM_ERROR_INVALID_ARGUMENT, std::string(name) + " must not be NULL");
}

// Hands a string to the caller, who frees it with gm_free_string.
char *duplicate(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (!out) throw std::bad_alloc();
    std::memcpy(out, s.c_str(), s.size() + 1);
    return out;
}

ContextState *state_of(const gm_context *ctx) { return ctx ? ctx->state.get() : nullptr; }

gm_status run_to_result(gm_result **out, gm_context *ctx, const std::string &name, const json &params) {
    if (out) *out = nullptr;
    if (!out) return null_argument(state_of(ctx), "out");
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] {
        gmlab::Result r = gmlab::run_experiment(*ctx->state, name, params);
        auto res = std::make_unique<gm_result>();
        res->doc = gmlab::to_json(r, gmlab::SampleForm::All);  // written compact unless asked
        *out = res.release();
    });
}

}  // namespace

extern "C" {

const char *gm_version(void) { return GM_VERSION_STRING; }
int gm_abi_version(void) { return GM_ABI_VERSION; }

const char *gm_status_string(gm_status status) {
    switch (status) {
    case GM_OK: return "ok";
    case GM_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case GM_ERROR_NO_DEVICE: return "no CUDA device";
    case GM_ERROR_NOT_SUPPORTED: return "not supported on this device";
    case GM_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GM_ERROR_CUDA: return "CUDA error";
    case GM_ERROR_VERIFICATION_FAILED: return "verification failed";
    case GM_ERROR_UNKNOWN_EXPERIMENT: return "unknown experiment";
    case GM_ERROR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *gm_last_error(void) { return t_last_error.c_str(); }

void gm_free_string(char *s) { std::free(s); }

gm_status gm_device_count(int *out) {
    if (!out) return null_argument(nullptr, "out");
    *out = 0;
    return guarded(nullptr, [&] {
        int count = 0;
        GM_CUDA(cudaGetDeviceCount(&count));
        if (count == 0) gmlab::fail(GM_ERROR_NO_DEVICE, "no CUDA device");
        *out = count;
    });
}

gm_status gm_context_create(gm_context **out, int device) {
    if (!out) return null_argument(nullptr, "out");
    *out = nullptr;
    return guarded(nullptr, [&] {
        auto ctx = std::make_unique<gm_context>();
        ctx->state = std::make_shared<ContextState>(device);
        *out = ctx.release();
    });
}

void gm_context_destroy(gm_context *ctx) { delete ctx; }

const char *gm_context_last_error(const gm_context *ctx) {
    return ctx ? ctx->state->last_error.c_str() : "ctx is NULL";
}

gm_status gm_context_device(int *out, const gm_context *ctx) {
    if (!out) return null_argument(state_of(ctx), "out");
    if (!ctx) return null_argument(nullptr, "ctx");
    *out = ctx->state->device();
    return GM_OK;
}

gm_status gm_context_synchronize(gm_context *ctx) {
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] {
        ctx->state->activate();
        GM_CUDA(cudaStreamSynchronize(ctx->state->stream()));
    });
}

gm_status gm_device_info_json(char **json_out, gm_context *ctx) {
    if (!json_out) return null_argument(state_of(ctx), "json_out");
    *json_out = nullptr;
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] {
        ctx->state->activate();
        *json_out = duplicate(gmlab::to_json(ctx->state->fresh_info()).dump(2));
    });
}

gm_status gm_device_health_json(char **json_out, int device) {
    if (!json_out) return null_argument(nullptr, "json_out");
    *json_out = nullptr;
    return guarded(nullptr, [&] {
        int count = 0;
        GM_CUDA(cudaGetDeviceCount(&count));
        if (count == 0) gmlab::fail(GM_ERROR_NO_DEVICE, "no CUDA device");
        if (device < 0 || device >= count)
            gmlab::invalid("device must be 0.." + std::to_string(count - 1) + ", got " + std::to_string(device));
        char bus[32] = {0};
        GM_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
        *json_out = duplicate(gmlab::device_health_json(bus).dump(2));
    });
}

gm_status gm_context_set(gm_context *ctx, gm_setting setting, double value) {
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { ctx->state->settings.set(setting, value); });
}

gm_status gm_context_get(double *out, const gm_context *ctx, gm_setting setting) {
    if (!out) return null_argument(state_of(ctx), "out");
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { *out = ctx->state->settings.get(setting); });
}

const char *gm_setting_name(gm_setting setting) { return gmlab::setting_name(setting); }

gm_status gm_setting_from_name(gm_setting *out, const char *name) {
    if (!out) return null_argument(nullptr, "out");
    if (!name) return null_argument(nullptr, "name");
    if (!gmlab::setting_from_name(name, out))
        return record(nullptr, GM_ERROR_INVALID_ARGUMENT,
                      std::string("unknown setting '") + name +
                          "'; known: warmup, min_repetitions, max_repetitions, min_time_ms, flush_l2, memory_fraction, counters");
    return GM_OK;
}

gm_status gm_counters_available(int *available, char **reason_out, gm_context *ctx) {
    if (reason_out) *reason_out = nullptr;
    if (!available) return null_argument(state_of(ctx), "available");
    *available = 0;
    return guarded(state_of(ctx), [&] {
        std::string reason;
        if (!ctx) {
            const gmlab::CuptiLoad &load = gmlab::load_cupti();
            *available = load.api ? 1 : 0;
            reason = load.api ? "" : load.reason;
        } else {
            ctx->state->activate();
            const gmlab::CounterAvailability &a = ctx->state->counter_availability();
            *available = a.available ? 1 : 0;
            reason = a.reason;
        }
        if (reason_out) *reason_out = duplicate(reason);
    });
}

gm_status gm_buffer_create(gm_buffer **out, gm_context *ctx, size_t bytes) {
    if (!out) return null_argument(state_of(ctx), "out");
    *out = nullptr;
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { *out = gmlab::buffer_create(ctx->state, bytes); });
}

void gm_buffer_destroy(gm_buffer *buf) { gmlab::buffer_destroy(buf); }

size_t gm_buffer_size(const gm_buffer *buf) { return buf ? buf->bytes : 0; }

gm_status gm_buffer_upload(gm_buffer *buf, size_t offset, const void *src, size_t bytes) {
    if (!buf) return null_argument(nullptr, "buf");
    return guarded(buf->state.get(), [&] { gmlab::buffer_upload(*buf, offset, src, bytes); });
}

gm_status gm_buffer_download(const gm_buffer *buf, size_t offset, void *dst, size_t bytes) {
    if (!buf) return null_argument(nullptr, "buf");
    return guarded(buf->state.get(), [&] { gmlab::buffer_download(*buf, offset, dst, bytes); });
}

gm_status gm_buffer_fill(gm_buffer *buf, int value) {
    if (!buf) return null_argument(nullptr, "buf");
    return guarded(buf->state.get(), [&] { gmlab::buffer_fill(*buf, value); });
}

gm_status gm_copy_strided(gm_context *ctx, gm_buffer *dst, size_t dst_offset, size_t dst_stride, const gm_buffer *src,
                          size_t src_offset, size_t src_stride, size_t count, size_t word_size) {
    if (!ctx) return null_argument(nullptr, "ctx");
    if (!dst) return null_argument(ctx->state.get(), "dst");
    if (!src) return null_argument(ctx->state.get(), "src");
    return guarded(ctx->state.get(), [&] {
        gmlab::copy_strided(*ctx->state, *dst, dst_offset, dst_stride, *src, src_offset, src_stride, count, word_size);
    });
}

gm_status gm_transpose(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t rows, size_t cols,
                       size_t element_size, gm_transpose_variant variant) {
    if (!ctx) return null_argument(nullptr, "ctx");
    if (!in) return null_argument(ctx->state.get(), "in");
    if (!out) return null_argument(ctx->state.get(), "out");
    return guarded(ctx->state.get(), [&] { gmlab::transpose(*ctx->state, *in, *out, rows, cols, element_size, variant); });
}

gm_status gm_matmul(gm_context *ctx, const gm_buffer *a, const gm_buffer *b, gm_buffer *c, size_t m, size_t n, size_t k,
                    gm_matmul_variant variant) {
    if (!ctx) return null_argument(nullptr, "ctx");
    if (!a) return null_argument(ctx->state.get(), "a");
    if (!b) return null_argument(ctx->state.get(), "b");
    if (!c) return null_argument(ctx->state.get(), "c");
    return guarded(ctx->state.get(), [&] { gmlab::matmul(*ctx->state, *a, *b, *c, m, n, k, variant); });
}

namespace {
gm_status run_stencil_op(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t n, const float *coefficients,
                         bool constant) {
    if (!ctx) return null_argument(nullptr, "ctx");
    if (!in) return null_argument(ctx->state.get(), "in");
    if (!out) return null_argument(ctx->state.get(), "out");
    if (!coefficients) return null_argument(ctx->state.get(), "coefficients");
    return guarded(ctx->state.get(), [&] { gmlab::stencil(*ctx->state, *in, *out, n, coefficients, constant); });
}
}  // namespace

gm_status gm_stencil_constant(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t n, const float coefficients[4]) {
    return run_stencil_op(ctx, in, out, n, coefficients, true);
}

gm_status gm_stencil_readonly(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t n, const float coefficients[4]) {
    return run_stencil_op(ctx, in, out, n, coefficients, false);
}

gm_status gm_set_l2_persisting_size(size_t *granted, gm_context *ctx, size_t bytes) {
    if (!granted) return null_argument(state_of(ctx), "granted");
    *granted = 0;
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { *granted = gmlab::set_persisting_size(*ctx->state, bytes); });
}

gm_status gm_set_l2_window(gm_context *ctx, const gm_buffer *buf, size_t offset, size_t num_bytes, double hit_ratio,
                           gm_access_property hit_property, gm_access_property miss_property) {
    if (!ctx) return null_argument(nullptr, "ctx");
    if (!buf) return null_argument(ctx->state.get(), "buf");
    return guarded(ctx->state.get(), [&] {
        if (buf->state != ctx->state) gmlab::invalid("buf must belong to the context the window is set on");
        gmlab::check_window(gmlab::l2_limits(ctx->state->info()), buf->bytes, offset, num_bytes, hit_ratio, hit_property,
                            miss_property);
        gmlab::set_window(*ctx->state, static_cast<const char *>(buf->ptr) + offset, num_bytes, hit_ratio, hit_property,
                          miss_property);
    });
}

gm_status gm_reset_l2_window(gm_context *ctx) {
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { gmlab::reset_window(*ctx->state); });
}

gm_status gm_l2_state_json(char **json_out, gm_context *ctx) {
    if (!json_out) return null_argument(state_of(ctx), "json_out");
    *json_out = nullptr;
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] { *json_out = duplicate(gmlab::l2_state(*ctx->state).dump(2)); });
}

size_t gm_experiment_count(void) {
    try {
        return gmlab::registry().size();
    } catch (...) {
        return 0;
    }
}

const char *gm_experiment_name(size_t index) {
    try {
        const auto &all = gmlab::registry();
        return index < all.size() ? all[index].name.c_str() : nullptr;
    } catch (...) {
        return nullptr;
    }
}

gm_status gm_experiment_describe_json(char **json_out, const char *experiment) {
    if (!json_out) return null_argument(nullptr, "json_out");
    *json_out = nullptr;
    if (!experiment) return null_argument(nullptr, "experiment");
    return guarded(nullptr, [&] { *json_out = duplicate(gmlab::describe(gmlab::find_experiment(experiment)).dump(2)); });
}

gm_status gm_kernel_resources_json(char **json_out, gm_context *ctx, const char *experiment) {
    if (!json_out) return null_argument(state_of(ctx), "json_out");
    *json_out = nullptr;
    if (!ctx) return null_argument(nullptr, "ctx");
    return guarded(ctx->state.get(), [&] {
        *json_out = duplicate(gmlab::kernel_resources(*ctx->state, experiment ? experiment : "").dump(2));
    });
}

gm_status gm_experiment_resolve_params(char **json_out, const char *experiment, const char *params_json) {
    if (!json_out) return null_argument(nullptr, "json_out");
    *json_out = nullptr;
    if (!experiment) return null_argument(nullptr, "experiment");
    return guarded(nullptr, [&] {
        const gmlab::Experiment &e = gmlab::find_experiment(experiment);
        *json_out = duplicate(gmlab::resolve_params(e.params, gmlab::parse_params_text(params_json), e.name).dump());
    });
}

gm_status gm_run(gm_result **out, gm_context *ctx, const char *experiment, const char *params_json) {
    if (out) *out = nullptr;
    if (!experiment) return null_argument(state_of(ctx), "experiment");
    json params;
    if (gm_status s = guarded(state_of(ctx), [&] { params = gmlab::parse_params_text(params_json); }); s != GM_OK)
        return s;
    return run_to_result(out, ctx, experiment, params);
}

void gm_stream_params_init(gm_stream_params *p) {
    if (!p) return;
    p->array_bytes = 0;
    p->block_size = 0;
    p->include_memcpy = 1;
}

void gm_offset_copy_params_init(gm_offset_copy_params *p) {
    if (!p) return;
    p->elements = 0;
    p->min_offset = 0;
    p->max_offset = 32;
    p->word_size = 4;
    p->variants = 0;
}

void gm_stride_copy_params_init(gm_stride_copy_params *p) {
    if (!p) return;
    p->elements = 0;
    p->min_stride = 1;
    p->max_stride = 32;
    p->word_size = 0;
    p->variants = 0;
}

gm_status gm_run_stream(gm_result **out, gm_context *ctx, const gm_stream_params *p) {
    if (out) *out = nullptr;
    if (!p) return null_argument(state_of(ctx), "p");
    json params;
    gm_status s = guarded(state_of(ctx), [&] { params = gmlab::stream_params_json(*p); });
    return s != GM_OK ? s : run_to_result(out, ctx, "stream", params);
}

gm_status gm_run_offset_copy(gm_result **out, gm_context *ctx, const gm_offset_copy_params *p) {
    if (out) *out = nullptr;
    if (!p) return null_argument(state_of(ctx), "p");
    json params;
    gm_status s = guarded(state_of(ctx), [&] { params = gmlab::offset_copy_params_json(*p); });
    return s != GM_OK ? s : run_to_result(out, ctx, "offset_copy", params);
}

gm_status gm_run_stride_copy(gm_result **out, gm_context *ctx, const gm_stride_copy_params *p) {
    if (out) *out = nullptr;
    if (!p) return null_argument(state_of(ctx), "p");
    json params;
    gm_status s = guarded(state_of(ctx), [&] { params = gmlab::stride_copy_params_json(*p); });
    return s != GM_OK ? s : run_to_result(out, ctx, "stride_copy", params);
}

void gm_result_destroy(gm_result *r) { delete r; }

gm_status gm_result_from_json(gm_result **out, const char *json_text) {
    if (!out) return null_argument(nullptr, "out");
    *out = nullptr;
    if (!json_text) return null_argument(nullptr, "json");
    return guarded(nullptr, [&] {
        json doc = json::parse(json_text, nullptr, false);
        if (doc.is_discarded()) gmlab::invalid("json is not valid JSON");
        gmlab::check_result_document(doc);
        auto r = std::make_unique<gm_result>();
        r->doc = std::move(doc);
        *out = r.release();
    });
}

namespace {

json parse_run_document(const char *run_json) {
    json doc = json::parse(run_json, nullptr, false);
    if (doc.is_discarded()) gmlab::invalid("run_json is not valid JSON");
    if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string() ||
        !gmlab::is_run_schema(doc["schema"].get<std::string>()))
        gmlab::invalid(std::string("not a ") + gmlab::kRunSchema +
                       " document: \"schema\" must be \"gmlab.run/1\", \"gmlab.run/1.1\", \"gmlab.run/1.2\" or \"" +
                       gmlab::kRunSchema + "\"");
    if (!doc.contains("results") || !doc["results"].is_array())
        gmlab::invalid(std::string("not a ") + gmlab::kRunSchema + " document: \"results\" must be an array");
    return doc;
}

}  // namespace

gm_status gm_run_document_result_count(size_t *out, const char *run_json) {
    if (!out) return null_argument(nullptr, "out");
    *out = 0;
    if (!run_json) return null_argument(nullptr, "run_json");
    return guarded(nullptr, [&] { *out = parse_run_document(run_json)["results"].size(); });
}

gm_status gm_result_from_run_json(gm_result **out, const char *run_json, size_t index) {
    if (!out) return null_argument(nullptr, "out");
    *out = nullptr;
    if (!run_json) return null_argument(nullptr, "run_json");
    return guarded(nullptr, [&] {
        json run = parse_run_document(run_json);
        json &results = run["results"];
        if (index >= results.size())
            gmlab::invalid("index must be in 0.." + std::to_string(static_cast<long long>(results.size()) - 1) + ", got " +
                           std::to_string(index));
        json doc = std::move(results[index]);
        if (run.contains("device")) doc["device"] = run["device"];
        gmlab::check_result_document(doc);
        auto r = std::make_unique<gm_result>();
        r->doc = std::move(doc);
        *out = r.release();
    });
}

gm_status gm_result_to_json(char **json_out, const gm_result *r) {
    return gm_result_to_json_samples(json_out, r, GM_SAMPLES_SUMMARY);
}

gm_status gm_result_to_json_samples(char **json_out, const gm_result *r, gm_samples samples) {
    if (!json_out) return null_argument(nullptr, "json_out");
    *json_out = nullptr;
    if (!r) return null_argument(nullptr, "r");
    if (samples != GM_SAMPLES_SUMMARY && samples != GM_SAMPLES_ALL)
        return guarded(nullptr, [&] {
            gmlab::invalid("samples must be GM_SAMPLES_SUMMARY (0) or GM_SAMPLES_ALL (1), got " +
                           std::to_string(static_cast<int>(samples)));
        });
    return guarded(nullptr, [&] {
        json doc = r->doc;
        gmlab::set_sample_form_of_document(doc, samples == GM_SAMPLES_ALL ? gmlab::SampleForm::All : gmlab::SampleForm::Summary);
        // A /1 document read in gains the deciles of /1.1; one whose series
        // declare no quantity stays 1.2, since 1.3 promises them.
        doc["schema"] = gmlab::schema_to_write(doc);
        *json_out = duplicate(doc.dump(2));
    });
}

const char *gm_result_experiment(const gm_result *r) {
    if (!r) return nullptr;
    return r->doc["experiment"]["name"].get_ref<const std::string &>().c_str();
}

size_t gm_result_series_count(const gm_result *r) { return r ? r->doc["series"].size() : 0; }

const char *gm_result_series_name(const gm_result *r, size_t series) {
    if (!r || series >= r->doc["series"].size()) return nullptr;
    return r->doc["series"][series]["name"].get_ref<const std::string &>().c_str();
}

const char *gm_result_series_info(const gm_result *r, size_t series, const char *key) {
    if (!r || !key || series >= r->doc["series"].size()) return nullptr;
    const json &s = r->doc["series"][series];
    const std::string k = key;
    const json *v = nullptr;
    if (k == "variant" && s.contains("variant")) v = &s["variant"];
    const auto dot = k.find('.');
    if (dot != std::string::npos) {
        const std::string axis = k.substr(0, dot), field = k.substr(dot + 1);
        if ((axis == "x" || axis == "y" || axis == "quantity") && s.contains(axis) && s[axis].is_object() &&
            s[axis].contains(field))
            v = &s[axis][field];
    }
    return v && v->is_string() ? v->get_ref<const std::string &>().c_str() : nullptr;
}

size_t gm_result_point_count(const gm_result *r, size_t series) {
    if (!r || series >= r->doc["series"].size()) return 0;
    return r->doc["series"][series]["points"].size();
}

gm_status gm_result_point_value(double *out, const gm_result *r, size_t series, size_t point, const char *field) {
    if (!out) return null_argument(nullptr, "out");
    if (!r) return null_argument(nullptr, "r");
    if (!field) return null_argument(nullptr, "field");
    return guarded(nullptr, [&] { *out = gmlab::point_value(r->doc, series, point, field); });
}

gm_status gm_result_summary_value(double *out, const gm_result *r, const char *name) {
    if (!out) return null_argument(nullptr, "out");
    if (!r) return null_argument(nullptr, "r");
    if (!name) return null_argument(nullptr, "name");
    return guarded(nullptr, [&] {
        const json &summary = r->doc.contains("summary") ? r->doc["summary"] : json::object();
        if (!summary.contains(name) || !summary[name].is_number()) {
            std::string known;
            for (auto it = summary.begin(); it != summary.end(); ++it) known += (known.empty() ? "" : ", ") + it.key();
            gmlab::invalid(std::string("summary value '") + name + "' is not in this result; it has: " +
                           (known.empty() ? "none" : known));
        }
        *out = summary[name].get<double>();
    });
}

}  // extern "C"
