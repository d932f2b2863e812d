#!/bin/bash
# Slurm prolog (slurm.conf: Prolog=/etc/slurm/prolog.d/gmlab-check.sh, with
# PrologFlags=Alloc so that it runs when the job is allocated): checks every
# GPU of the node in about a minute before the job starts. A node that is not
# healthy is drained with the check's reasons and the job is requeued
# elsewhere (a prolog that exits non-zero does both).
#
# Judged against the site's own distribution of the node's GPU model where
# one is installed (gmlab check --save-figures on healthy nodes, then the
# server's /api/v1/gpus/{model}/quantiles), else against the node's other GPUs.
GMLAB=${GMLAB:-/usr/bin/gmlab}
BASELINE=${GMLAB_BASELINE:-/etc/gmlab/baseline.json}
PROM_DIR=${GMLAB_PROM_DIR:-/var/lib/node_exporter/textfile}
args=(check --budget 60)
[ -r "$BASELINE" ] && args+=(--baseline "$BASELINE")
[ -d "$PROM_DIR" ] && args+=(--prometheus "$PROM_DIR/gmlab-check.prom")
out=$(timeout 90 "$GMLAB" "${args[@]}" 2>&1)
rc=$?
case $rc in
  0) exit 0 ;;                      # healthy
  13) exit 0 ;;                     # a GPU in MIG mode: not checked as a whole GPU; the job may still use its instances
  14)                               # unjudged: measured, but nothing to judge a GPU by (a model without reference): said, not drained
    echo "gmlab check: a GPU is unjudged: $(grep -E '^  GPU ' <<<"$out" | head -1)" >&2
    exit 0 ;;
  11|12)                            # degraded or unusable: drain with the reasons, requeue the job
    reason=$(grep -E '^  GPU |^  link ' <<<"$out" | head -3 | tr '\n' ';' | cut -c1-200)
    scontrol update nodename="$(hostname -s)" state=drain reason="gmlab check exit $rc: ${reason:-see slurmd log}"
    echo "$out" >&2
    exit 1 ;;
  *)                                # the check itself could not run: say so, let the job run
    echo "gmlab check could not run (exit $rc): $out" >&2
    exit 0 ;;
esac
