#!/bin/sh
# gmlab explain's Python start-up hook (src/inject/python/sitecustomize.py)
# in a real interpreter, against a stand-in torch: PyTorch's operator
# annotation turned on once torch is imported and off at exit, the device never
# synchronised by it, the program's own sitecustomize still run, and nothing
# done for a program that never imports torch.
#   hook_test.sh PYTHON HOOK_DIR TEST_DIR
set -eu
python=$1 hook=$2 here=$3
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export GMX_HOOK_LOG="$log"
PYTHONPATH="$hook:$here/user_site:$here/fake" "$python" -c 'import torch; print("imported")' >/dev/null
want="user sitecustomize
emit_nvtx record_shapes=False
enter
exit"
[ "$(cat "$log")" = "$want" ] || { echo "with torch, the hook did:"; cat "$log"; exit 1; }
: >"$log"
PYTHONPATH="$hook:$here/user_site:$here/fake" "$python" -c 'print("no torch")' >/dev/null
[ "$(cat "$log")" = "user sitecustomize" ] || { echo "without torch, the hook did:"; cat "$log"; exit 1; }
: >"$log"
GMLAB_EXPLAIN_TORCH_OPS=0 PYTHONPATH="$hook:$here/fake" "$python" -c 'import torch' >/dev/null
[ ! -s "$log" ] || { echo "with GMLAB_EXPLAIN_TORCH_OPS=0, the hook did:"; cat "$log"; exit 1; }
echo "python hook: as expected"
