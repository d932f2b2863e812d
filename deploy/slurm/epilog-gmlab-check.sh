#!/bin/bash
# Slurm epilogue (slurm.conf: Epilog=/etc/slurm/epilog.d/gmlab-check.sh):
# after a job that failed, checks the node's GPUs so that a GPU that broke
# during the job does not take the next one down; a node that is not healthy
# is drained with the reasons. After a job that ended well it does nothing,
# to keep the epilogue short.
GMLAB=${GMLAB:-/usr/bin/gmlab}
[ "${SLURM_JOB_EXIT_CODE:-0}" = 0 ] && [ "${SLURM_JOB_DERIVED_EC:-0}" = 0 ] && exit 0
out=$(timeout 90 "$GMLAB" check --budget 60 2>&1)
rc=$?
if [ $rc = 11 ] || [ $rc = 12 ]; then
  reason=$(grep -E '^  GPU |^  link ' <<<"$out" | head -3 | tr '\n' ';' | cut -c1-200)
  scontrol update nodename="$(hostname -s)" state=drain reason="gmlab check after job ${SLURM_JOB_ID:-?}: ${reason:-exit $rc}"
fi
exit 0  # an epilogue's failure would drain the node without a reason
