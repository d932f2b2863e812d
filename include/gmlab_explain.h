/* gmlab explain: the memory behaviour of an unmodified CUDA program, diagnosed
 * by gmlab's experiments on the same GPU (docs/explain.md).
 *
 * C99, under gmlab.h's rules: every function returns a gm_status with its
 * output first, nothing prints, exits or throws, a handle is released with
 * gm_explain_destroy, and the options struct carries its size. The handle
 * carries the message and the exit code gmlab explain gives. Link
 * libgmlab_explain. */
#ifndef GMLAB_EXPLAIN_H
#define GMLAB_EXPLAIN_H

#include <stddef.h>

#include "gmlab.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define GM_EXPLAIN_DEPRECATED(instead) __attribute__((deprecated("use " instead)))
#else
#  define GM_EXPLAIN_DEPRECATED(instead)
#endif

typedef struct gm_explain gm_explain;

typedef struct gm_explain_options {
    size_t struct_size;           /* sizeof(gm_explain_options), set by gm_explain_options_init: a struct of
                                     another release is refused with GM_ERROR_INVALID_ARGUMENT */
    const char *const *argv;      /* the program and its arguments */
    int argc;
    int kernels;                  /* how many of the longest kernels are counted (>= 1; default 5) */
    const char *kernel_regex;     /* only kernels whose demangled name matches (NULL: all) */
    unsigned long long launch_skip;   /* launches of each kernel left alone before counting (default 0) */
    unsigned long long launch_count;  /* launches of each kernel counted (>= 1; default 1) */
    const char *replay;           /* "kernel" (default) or "application" */
    int passes;                   /* 1 (default): trace and count in one run; 2: trace, then count the longest kernels */
    int counters;                 /* 1: pass 2 counts the chosen kernels (default); 0: the trace only */
    const char *lab_run;          /* the gmlab run document costs are read from (NULL: found by GPU model) */
    const char *rules_dir;        /* rule files to use instead of the built-in ones (NULL) */
    const char *injection;        /* libgmlab_explain_inject.so (NULL: GMLAB_EXPLAIN_INJECTION) */
    const char *records_dir;      /* keep the passes' records in this folder (NULL: a temporary one) */
    const char *from_records;     /* explain records kept earlier; runs nothing (NULL) */
    int measure;                  /* costs measured on the spot by running the experiments the findings name
                                     through libgmlab: 1 (default) where no run document of this GPU model is
                                     found (not with from_records), 2 always, 0 never */
    int lines;                    /* 1: pass 3, one more run of the program: the chosen kernels' SASS metrics
                                     per source line (the program built with nvcc -lineinfo); 0 (default) */
} gm_explain_options;

/* Fills *options with the defaults and its struct_size. */
GM_API void gm_explain_options_init(gm_explain_options *options);

/* Runs the program under the injection library (or reads from_records) and
 * explains it. *out receives a handle whatever the status (release it with
 * gm_explain_destroy): its gm_explain_message says why a call failed, and its
 * gm_explain_exit_code is the code gmlab explain gives (0, the program's own
 * non-zero status, or one of the README's "Exit codes").
 * GM_OK: explain ran the program and made what it could of it (the exit code
 * tells a program that failed, was not a CUDA program or launched no kernel);
 * GM_ERROR_INVALID_ARGUMENT: options or their struct_size, the program not
 * found, not executable, a script without an interpreter line, a kernel
 * pattern that matched nothing; GM_ERROR_NOT_SUPPORTED: the injection library
 * could not be loaded; GM_ERROR_INTERNAL: explain itself failed;
 * GM_ERROR_OUT_OF_MEMORY: no handle could be made (*out is NULL).
 * While the program runs, SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to
 * it and waited for: the caller's dispositions are replaced for that time,
 * restored when it ends, and a signal that came meanwhile is raised again
 * under them (so that a stopped caller does not leave the program running). */
GM_API gm_status gm_explain_program(gm_explain **out, const gm_explain_options *options);

/* What an in-process session needs (the Python binding's explain.session()):
 * KEY=VALUE lines in gm_explain_text: GMLAB_EXPLAIN_INJECTION (the injection
 * library, whose gmlab_explain_attach(folder) and gmlab_explain_detach() the
 * session calls) and the variables it reads for these options. options->argv
 * may be empty. GM_ERROR_INVALID_ARGUMENT (bad options) or
 * GM_ERROR_NOT_SUPPORTED (no injection library), the reason in
 * gm_explain_message. */
GM_API gm_status gm_explain_session(gm_explain **out, const gm_explain_options *options);

/* Reads an explanation written earlier (gm_explain_json); GM_ERROR_INVALID_ARGUMENT
 * where path cannot be read or holds no explanation. A document of schema 1.0
 * gets its kernels' short_name, as 1.1 writes them. */
GM_API gm_status gm_explain_open(gm_explain **out, const char *path);

/* The document (schema gmlab.explain/1), "" when nothing was collected. */
GM_API const char *gm_explain_json(const gm_explain *e);
/* The text summary, "" when nothing was collected. */
GM_API const char *gm_explain_text(const gm_explain *e);
/* Why explain stopped early, or "". */
GM_API const char *gm_explain_message(const gm_explain *e);
/* The exit code gmlab explain gives for this explanation. */
GM_API int gm_explain_exit_code(const gm_explain *e);

GM_API void gm_explain_destroy(gm_explain *e);

/* The names of the previous release, kept for one release: each returns the
 * exit code, its output last. */
GM_EXPLAIN_DEPRECATED("gm_explain_program") GM_API int gm_explain_run(const gm_explain_options *options, gm_explain **out);
GM_EXPLAIN_DEPRECATED("gm_explain_session")
GM_API int gm_explain_session_env(const gm_explain_options *options, gm_explain **out);
GM_EXPLAIN_DEPRECATED("gm_explain_open") GM_API int gm_explain_load(const char *path, gm_explain **out);
GM_EXPLAIN_DEPRECATED("gm_explain_destroy") GM_API void gm_explain_free(gm_explain *e);

#ifdef __cplusplus
}
#endif

#endif
