/*
 * gmlab.h - the public C interface of libgmlab, a GPU memory laboratory.
 *
 * C99, no CUDA types. Every symbol starts with gm_ or GM_.
 *
 * Conventions (see docs/api.md):
 *  - Functions return a gm_status; outputs come first among the arguments
 *    (gm_status gm_x_create(gm_x **out, ...)).
 *  - gm_*_destroy accepts NULL, and handles may be destroyed in any order
 *    (a buffer may outlive its context).
 *  - gm_status values are explicit, append-only and never renumbered.
 *  - After a failure, gm_context_last_error(ctx) (for calls on a context or its
 *    buffers) and gm_last_error() (the calling thread's last failure, for every
 *    call) give a message that names the argument and its allowed range.
 *  - Strings returned through char ** are owned by the caller and released with
 *    gm_free_string. Strings returned as const char * belong to the library.
 *  - Nothing in the library prints, exits or lets a C++ exception escape.
 */
#ifndef GMLAB_H
#define GMLAB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GMLAB_STATIC)
#  define GM_API
#elif defined(_WIN32)
#  if defined(GMLAB_BUILDING)
#    define GM_API __declspec(dllexport)
#  else
#    define GM_API __declspec(dllimport)
#  endif
#else
#  define GM_API __attribute__((visibility("default")))
#endif

#define GM_VERSION_MAJOR 0
#define GM_VERSION_MINOR 1
#define GM_VERSION_PATCH 0
/* The ABI version: the SONAME is libgmlab.so.GM_ABI_VERSION. */
#define GM_ABI_VERSION 0

/* ------------------------------------------------------------------------ */
/* Status codes                                                               */
/* ------------------------------------------------------------------------ */

typedef enum gm_status {
    GM_OK = 0,
    GM_ERROR_INVALID_ARGUMENT = -1,
    GM_ERROR_NO_DEVICE = -2,
    GM_ERROR_NOT_SUPPORTED = -3,
    GM_ERROR_OUT_OF_MEMORY = -4,
    GM_ERROR_CUDA = -5,
    GM_ERROR_VERIFICATION_FAILED = -6,
    GM_ERROR_UNKNOWN_EXPERIMENT = -7,
    GM_ERROR_INTERNAL = -8
} gm_status;

/* "0.1.0": the release of the library that is loaded. */
GM_API const char *gm_version(void);
/* GM_ABI_VERSION of the library that is loaded. */
GM_API int gm_abi_version(void);
/* A fixed text for a status ("invalid argument", ...); never NULL. */
GM_API const char *gm_status_string(gm_status status);
/* The message of the last failing gm_ call on this thread ("" if none).
 * Valid until the next failing call on this thread. */
GM_API const char *gm_last_error(void);
/* Releases a string the library returned through a char ** argument. NULL is fine. */
GM_API void gm_free_string(char *s);

/* ------------------------------------------------------------------------ */
/* Layer 1: devices and contexts                                              */
/* ------------------------------------------------------------------------ */

typedef struct gm_context gm_context; /* one device, one CUDA stream, settings */
typedef struct gm_buffer gm_buffer;   /* device memory owned through a context */
typedef struct gm_result gm_result;   /* the measurements of one experiment run */

/* Number of CUDA devices; *out = 0 and GM_ERROR_NO_DEVICE when there is none. */
GM_API gm_status gm_device_count(int *out);

GM_API gm_status gm_context_create(gm_context **out, int device);
GM_API void gm_context_destroy(gm_context *ctx);
/* The last error message of calls on this context and its buffers ("" if none). */
GM_API const char *gm_context_last_error(const gm_context *ctx);
/* The device ordinal the context was created on. */
GM_API gm_status gm_context_device(int *out, const gm_context *ctx);
/* Waits for all work queued on the context's stream. */
GM_API gm_status gm_context_synchronize(gm_context *ctx);

/* The device's memory spaces as JSON (see docs/result-schema.md, "device"). */
GM_API gm_status gm_device_info_json(char **json_out, gm_context *ctx);
/* The health of device `device` as the driver's NVML reports it, as JSON: ECC
 * mode and counts, retired pages or remapped rows, PCIe link generation and
 * width (current and maximum), NVLink links (version, active, remote PCI bus
 * id), MIG mode, power limit, and one reading of clocks, power and throttle
 * reasons (docs/api.md). Needs no context. Where NVML is missing the JSON is
 * {"source": "none", "reason": ...} and the call still succeeds. */
GM_API gm_status gm_device_health_json(char **json_out, int device);

/* Measurement settings of a context, used by every experiment run on it. */
typedef enum gm_setting {
    GM_SETTING_WARMUP = 0,          /* warm-up launches before timing, 0..1000 (default 2) */
    GM_SETTING_MIN_REPETITIONS = 1, /* timed launches at least, 1..100000 (default 5) */
    GM_SETTING_MAX_REPETITIONS = 2, /* timed launches at most, 1..100000 (default 100) */
    GM_SETTING_MIN_TIME_MS = 3,     /* timed milliseconds at least, 0..600000 (default 10) */
    GM_SETTING_FLUSH_L2 = 4,        /* 1: evict L2 before every timed launch (default 1) */
    GM_SETTING_MEMORY_FRACTION = 5, /* share of free device memory an experiment may take,
                                       0.01..0.95 (default 0.5) */
    GM_SETTING_COUNTERS = 6         /* hardware counters per point, a gm_counters_mode
                                       (default GM_COUNTERS_AUTO) */
} gm_setting;

/* Hardware counters (CUPTI range profiler, loaded at run time): one extra,
 * untimed launch per point counts what explains it (docs/result-schema.md). */
typedef enum gm_counters_mode {
    GM_COUNTERS_OFF = 0,  /* never count */
    GM_COUNTERS_ON = 1,   /* count; gm_run fails with GM_ERROR_NOT_SUPPORTED and the reason when
                             counters are not available */
    GM_COUNTERS_AUTO = 2  /* count where available; otherwise the result says why not */
} gm_counters_mode;

GM_API gm_status gm_context_set(gm_context *ctx, gm_setting setting, double value);
GM_API gm_status gm_context_get(double *out, const gm_context *ctx, gm_setting setting);
/* "warmup", "min_repetitions", ...; NULL for an unknown setting. */
GM_API const char *gm_setting_name(gm_setting setting);
/* Looks a setting up by its name. */
GM_API gm_status gm_setting_from_name(gm_setting *out, const char *name);

/*
 * Whether hardware counters can be read on this context's device: *available
 * is 1 or 0, and *reason_out (free with gm_free_string; may be NULL) says why
 * not and how to enable them ("" when available). Checked once per context
 * with a short counted launch. ctx may be NULL: then only the libraries
 * (libcupti, libnvperf_host) are checked.
 */
GM_API gm_status gm_counters_available(int *available, char **reason_out, gm_context *ctx);

/* ------------------------------------------------------------------------ */
/* Layer 2: buffers and operations                                            */
/* ------------------------------------------------------------------------ */

/* Allocates bytes (>= 1) of device memory on the context's device. */
GM_API gm_status gm_buffer_create(gm_buffer **out, gm_context *ctx, size_t bytes);
GM_API void gm_buffer_destroy(gm_buffer *buf);
/* Size in bytes; 0 for NULL. */
GM_API size_t gm_buffer_size(const gm_buffer *buf);
/* Copies bytes from host memory into the buffer at offset; waits until done. */
GM_API gm_status gm_buffer_upload(gm_buffer *buf, size_t offset, const void *src, size_t bytes);
/* Copies bytes from the buffer at offset to host memory; waits until done. */
GM_API gm_status gm_buffer_download(const gm_buffer *buf, size_t offset, void *dst, size_t bytes);
/* Sets every byte of the buffer to value (0..255). */
GM_API gm_status gm_buffer_fill(gm_buffer *buf, int value);

/*
 * Strided copy of count words of word_size bytes (1, 2, 4, 8 or 16):
 *   dst[dst_offset + i * dst_stride] = src[src_offset + i * src_stride]
 * Offsets and strides count words, strides are >= 1. Both ranges must lie
 * inside their buffers; the two buffers must differ. Runs on the context's
 * stream and waits until done.
 */
GM_API gm_status gm_copy_strided(gm_context *ctx, gm_buffer *dst, size_t dst_offset,
                                 size_t dst_stride, const gm_buffer *src, size_t src_offset,
                                 size_t src_stride, size_t count, size_t word_size);

/*
 * Transpose: out (cols x rows) = transpose of in (rows x cols), both row-major,
 * elements of 1, 2, 4, 8 or 16 bytes, any rows and cols >= 1 (rows up to
 * 2,097,120). GM_TRANSPOSE_WIDE needs 4-byte elements and rows and cols that
 * are multiples of 4; GM_TRANSPOSE_AUTO takes it where it fits and
 * GM_TRANSPOSE_SHARED_PADDED elsewhere. in and out must differ. Runs on the
 * context's stream and waits until done.
 */
typedef enum gm_transpose_variant {
    GM_TRANSPOSE_NAIVE = 0,         /* reads coalesced, writes strided */
    GM_TRANSPOSE_SHARED = 1,        /* 32x32 shared-memory tile (bank conflicts on the way out) */
    GM_TRANSPOSE_SHARED_PADDED = 2, /* the tile padded to 33 columns: conflict-free */
    GM_TRANSPOSE_WIDE = 3,          /* 64x64 swizzled tile, 16-byte accesses */
    GM_TRANSPOSE_AUTO = 4           /* the fastest that fits the shape */
} gm_transpose_variant;

GM_API gm_status gm_transpose(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t rows, size_t cols,
                              size_t element_size, gm_transpose_variant variant);

/*
 * Matrix product on float: C (m x n) = A (m x k) B (k x n), row-major, with
 * the guide's three kernels (32x32 tiles, any m, n, k >= 1; each matrix under
 * 2^31 elements). c must differ from a and b.
 */
typedef enum gm_matmul_variant {
    GM_MATMUL_SIMPLE = 0,      /* A and B from global memory */
    GM_MATMUL_COALESCED_A = 1, /* a tile of A in shared memory */
    GM_MATMUL_SHARED_AB = 2    /* tiles of A and B in shared memory */
} gm_matmul_variant;

GM_API gm_status gm_matmul(gm_context *ctx, const gm_buffer *a, const gm_buffer *b, gm_buffer *c, size_t m, size_t n,
                           size_t k, gm_matmul_variant variant);

/*
 * The nine-point 1D stencil (radius 4) on float:
 *   out[i] = c[0](in[i+1]-in[i-1]) + c[1](in[i+2]-in[i-2]) + c[2](in[i+3]-in[i-3]) + c[3](in[i+4]-in[i-4])
 * for i < n, with in taken as 0 outside [0, n). gm_stencil_constant keeps the
 * four coefficients in __constant__ memory (shared by the process: concurrent
 * calls serialize); gm_stencil_readonly reads them from global memory through
 * the read-only cache (__ldg). in and out must differ and hold n floats.
 */
GM_API gm_status gm_stencil_constant(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t n,
                                     const float coefficients[4]);
GM_API gm_status gm_stencil_readonly(gm_context *ctx, const gm_buffer *in, gm_buffer *out, size_t n,
                                     const float coefficients[4]);

/*
 * The L2 persisting-access controls (compute capability 8.0 and later; below
 * that every call returns GM_ERROR_NOT_SUPPORTED).
 *
 * gm_set_l2_persisting_size sets aside up to `bytes` of L2 for persisting lines
 * (clamped to the device's persistingL2CacheMaxSize) and writes the size in
 * force to *granted. The set-aside belongs to the device, not to the context.
 *
 * gm_set_l2_window applies an access policy window over
 * [offset, offset + num_bytes) of buf to the context's stream: every operation
 * and experiment launched on the context afterwards runs under it. Accesses in
 * the window are given hit_property with probability hit_ratio (0..1) and
 * miss_property otherwise (normal or streaming only). num_bytes is 1 to the
 * device's accessPolicyMaxWindowSize.
 *
 * gm_reset_l2_window removes the window and returns persisting lines to normal.
 * gm_l2_state_json reports what CUDA says is in force now.
 */
typedef enum gm_access_property {
    GM_ACCESS_NORMAL = 0,
    GM_ACCESS_STREAMING = 1,
    GM_ACCESS_PERSISTING = 2
} gm_access_property;

GM_API gm_status gm_set_l2_persisting_size(size_t *granted, gm_context *ctx, size_t bytes);
GM_API gm_status gm_set_l2_window(gm_context *ctx, const gm_buffer *buf, size_t offset, size_t num_bytes,
                                  double hit_ratio, gm_access_property hit_property,
                                  gm_access_property miss_property);
GM_API gm_status gm_reset_l2_window(gm_context *ctx);
GM_API gm_status gm_l2_state_json(char **json_out, gm_context *ctx);

/* ------------------------------------------------------------------------ */
/* Layer 3: experiments and results                                           */
/* ------------------------------------------------------------------------ */

/* The registry: experiments by index, 0..gm_experiment_count()-1. */
GM_API size_t gm_experiment_count(void);
/* NULL when index is out of range. */
GM_API const char *gm_experiment_name(size_t index);
/* Name, guide section, summary, whether it is in the default suite, the
 * typed parameters with defaults and bounds, and the names of its kernels
 * ("kernels"), as JSON. */
GM_API gm_status gm_experiment_describe_json(char **json_out, const char *experiment);
/* Checks params_json (an object; NULL or "" mean {}) against the experiment's
 * parameters and returns every parameter with its value as JSON. Needs no device.
 * Lists may be given as arrays or as strings such as "1..32" or "4,8,16". */
GM_API gm_status gm_experiment_resolve_params(char **json_out, const char *experiment,
                                              const char *params_json);

/* The resources the compiler gave each kernel of an experiment, read from the
 * loaded module with cudaFuncGetAttributes on the context's device, as JSON:
 * {"experiment", "device", "compute_capability", "kernels": [{"name",
 * "experiment", "registers", "shared_static_bytes", "local_bytes",
 * "constant_bytes", "max_threads_per_block", "ptx_version", "binary_version"}]}.
 * experiment is a registry name, "support" (the kernels every experiment
 * shares: pattern fills, the L2 flush, the reference copy) or NULL for every
 * kernel of the library. The kernels' names alone, without a device, are in
 * gm_experiment_describe_json ("kernels"). */
GM_API gm_status gm_kernel_resources_json(char **json_out, gm_context *ctx, const char *experiment);

/* Runs one experiment through the measurement harness. */
GM_API gm_status gm_run(gm_result **out, gm_context *ctx, const char *experiment,
                        const char *params_json);

/* Which kernels a copy experiment times (bit set; 0 means the default, both). */
typedef enum gm_copy_variant {
    GM_COPY_GUIDE = 1, /* the guide's kernel: one word per thread */
    GM_COPY_ILP4 = 2   /* four independent words per thread, same access pattern */
} gm_copy_variant;

typedef struct gm_stream_params {
    size_t array_bytes; /* bytes per array; 0: default (several times L2) */
    int block_size;     /* threads per block, 32..1024, multiple of 32; 0: default */
    int include_memcpy; /* also time cudaMemcpy device-to-device (default 1) */
} gm_stream_params;

typedef struct gm_offset_copy_params {
    size_t elements; /* words copied per launch; 0: default (several times L2) */
    int min_offset;  /* 0..32 (default 0) */
    int max_offset;  /* min_offset..32 (default 32) */
    int word_size;   /* 4, 8 or 16 bytes (default 4) */
    int variants;    /* gm_copy_variant bits; 0: both */
} gm_offset_copy_params;

typedef struct gm_stride_copy_params {
    size_t elements; /* words copied per launch; 0: default (several times L2) */
    int min_stride;  /* 1..32 (default 1) */
    int max_stride;  /* min_stride..32 (default 32) */
    int word_size;   /* 4, 8 or 16 bytes; 0: all three (default) */
    int variants;    /* gm_copy_variant bits; 0: both */
} gm_stride_copy_params;

/* Fill a parameter struct with the defaults. */
GM_API void gm_stream_params_init(gm_stream_params *p);
GM_API void gm_offset_copy_params_init(gm_offset_copy_params *p);
GM_API void gm_stride_copy_params_init(gm_stride_copy_params *p);

/* Typed entry points: the same as gm_run with the struct turned into parameters. */
GM_API gm_status gm_run_stream(gm_result **out, gm_context *ctx, const gm_stream_params *p);
GM_API gm_status gm_run_offset_copy(gm_result **out, gm_context *ctx,
                                    const gm_offset_copy_params *p);
GM_API gm_status gm_run_stride_copy(gm_result **out, gm_context *ctx,
                                    const gm_stride_copy_params *p);

GM_API void gm_result_destroy(gm_result *r);
/* Reads a gmlab.result/1 or /1.1 document (for example a committed result
 * file), compact or with every sample. */
GM_API gm_status gm_result_from_json(gm_result **out, const char *json);
/* Number of results in a gmlab.run/1 or /1.1 document (what `gmlab run --json` writes). */
GM_API gm_status gm_run_document_result_count(size_t *out, const char *run_json);
/* Result `index` of a gmlab.run/1 or /1.1 document, with the run's device block put back. */
GM_API gm_status gm_result_from_run_json(gm_result **out, const char *run_json, size_t index);

/* What a written document keeps of each point's timed launches: the summary
 * (median, min, max, mean, stddev, n and the deciles; the default) or, in
 * addition, every raw sample. */
typedef enum gm_samples {
    GM_SAMPLES_SUMMARY = 0,
    GM_SAMPLES_ALL = 1
} gm_samples;

/* Serialises to the gmlab.result/1.1 schema (docs/result-schema.md) in the
 * compact form: the same as gm_result_to_json_samples(.., GM_SAMPLES_SUMMARY). */
GM_API gm_status gm_result_to_json(char **json_out, const gm_result *r);
/* Serialises with the sample form asked for. GM_SAMPLES_ALL keeps the raw
 * samples where the result has them (a result read from a compact document has
 * none). */
GM_API gm_status gm_result_to_json_samples(char **json_out, const gm_result *r, gm_samples samples);
/* The experiment's name; NULL for NULL. */
GM_API const char *gm_result_experiment(const gm_result *r);
GM_API size_t gm_result_series_count(const gm_result *r);
/* NULL when series is out of range. */
GM_API const char *gm_result_series_name(const gm_result *r, size_t series);
/* A text describing a series: "variant", "x.name", "x.unit", "y.field" (the
 * point field that is the series' headline), "y.name", "y.unit", or what the
 * series measures (gmlab.result/1.3): "quantity.name" ("dram_bandwidth",
 * "l2_bandwidth", "l1_shared_bandwidth", "link_bandwidth", "latency",
 * "time_per_call", "count", "ratio" or "rate"), "quantity.label" and
 * "quantity.unit". NULL when series or key is unknown, or for the quantity of
 * a document written before 1.3. */
GM_API const char *gm_result_series_info(const gm_result *r, size_t series, const char *key);
GM_API size_t gm_result_point_count(const gm_result *r, size_t series);
/*
 * One number of one point. field is one of
 *   "x", "bytes", "median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms",
 *   "repetitions", "bandwidth_gbs", "fraction_of_theoretical", "fraction_of_memcpy"
 *   (the last four only where the series' quantity is a bandwidth, the
 *   fractions only for DRAM and, of peak, a link: docs/result-schema.md),
 *   "p10_ms", "p20_ms", ... "p90_ms" (the deciles of the launch times),
 * "predicted.<name>" for a prediction the experiment makes (for example
 * "predicted.sectors_per_request"), or "counters.<name>" for a hardware counter
 * or a figure derived from counters (for example
 * "counters.sectors_per_request_ld", "counters.dram__bytes_read.sum"). GM_ERROR_INVALID_ARGUMENT names the fields
 * the point has when field is not one of them.
 */
GM_API gm_status gm_result_point_value(double *out, const gm_result *r, size_t series,
                                       size_t point, const char *field);
/* A key figure of the run by name (for example "copy_over_memcpy" of stream). */
GM_API gm_status gm_result_summary_value(double *out, const gm_result *r, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* GMLAB_H */
