/* gmlab explain: the memory behaviour of an unmodified CUDA program, diagnosed
 * by gmlab's experiments on the same GPU (docs/explain.md).
 *
 * C99. Nothing here prints, exits or throws: every function returns a status
 * and the explanation handle carries the message. Link libgmlab_explain. */
#ifndef GMLAB_EXPLAIN_H
#define GMLAB_EXPLAIN_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gm_explain gm_explain;

typedef struct gm_explain_options {
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

/* Fills *options with the defaults. */
void gm_explain_options_init(gm_explain_options *options);

/* Runs the program under the injection library (or reads from_records) and
 * explains it. Returns the exit code gmlab explain gives (0, the program's own
 * non-zero status, or one of the codes in the README, "Exit codes"); *out
 * receives a handle (free it with gm_explain_free) also when the code is not 0. */
int gm_explain_run(const gm_explain_options *options, gm_explain **out);

/* What an in-process session needs (the Python binding's explain.session()):
 * KEY=VALUE lines in gm_explain_text: GMLAB_EXPLAIN_INJECTION (the injection
 * library, whose gmlab_explain_attach(folder) and gmlab_explain_detach() the
 * session calls) and the variables it reads for these options. options->argv
 * may be empty. 0, or 2 (bad options) or 26 (no injection library) with the
 * reason in gm_explain_message. */
int gm_explain_session_env(const gm_explain_options *options, gm_explain **out);
/* Reads an explanation written earlier (gm_explain_json). 0, or 27 with the
 * reason in gm_explain_message. A document of schema 1.0 gets its kernels'
 * short_name, as 1.1 writes them. */
int gm_explain_load(const char *path, gm_explain **out);

/* The document (schema gmlab.explain/1), "" when nothing was collected. */
const char *gm_explain_json(const gm_explain *e);
/* The text summary, "" when nothing was collected. */
const char *gm_explain_text(const gm_explain *e);
/* Why explain stopped early, or "". */
const char *gm_explain_message(const gm_explain *e);
/* The exit code gm_explain_run returned. */
int gm_explain_exit_code(const gm_explain *e);

void gm_explain_free(gm_explain *e);

#ifdef __cplusplus
}
#endif

#endif
