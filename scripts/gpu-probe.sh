#!/usr/bin/env bash
# Says in seconds whether this machine has a GPU that gmlab can build for and
# run on, before anything is installed or compiled. Prints what it found on
# one line: the GPU (name, compute capability, driver) and exit 0, or the
# reason there is none and exit 3 (gmlab's "no CUDA device" status).
# Needs only the CUDA toolkit (nvcc) and, where a driver is installed, nvidia-smi.
set -uo pipefail
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
say_none() { echo "$*"; exit 3; }

if [ ! -x "$nvcc" ] && ! command -v "$nvcc" >/dev/null; then
  echo "the CUDA toolkit (nvcc) is not installed; install it from NVIDIA's packages first"
  exit 1
fi
if [ ! -e /proc/driver/nvidia/version ] && ! command -v nvidia-smi >/dev/null; then
  say_none "no NVIDIA driver is loaded (no /proc/driver/nvidia and no nvidia-smi)"
fi
command -v nvidia-smi >/dev/null || say_none "an NVIDIA driver is loaded but nvidia-smi is missing, so the GPU cannot be examined"
if ! gpus=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1); then
  say_none "nvidia-smi finds no usable GPU: $(head -1 <<<"$gpus")"
fi
[ -n "$gpus" ] || say_none "the NVIDIA driver is loaded but lists no GPU"

# The toolkit's CUDA release against the newest CUDA the driver supports: within
# one major release the runtime runs on any driver of that release (minor
# version compatibility), so the major releases decide.
toolkit=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\)\.\([0-9]*\).*/\1.\2/p')
driver_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\.[0-9]*\).*/\1/p' | head -1)
driver=$(head -1 <<<"$gpus" | awk -F', ' '{print $3}')
if [ -n "$driver_cuda" ] && [ -n "$toolkit" ] && [ "${driver_cuda%%.*}" -lt "${toolkit%%.*}" ]; then
  say_none "driver $driver (CUDA $driver_cuda) is older than this toolkit (CUDA $toolkit) needs: install a driver for CUDA ${toolkit%%.*}"
fi

# The oldest architecture this toolkit compiles for, against GPU 0's.
oldest=$("$nvcc" --list-gpu-code 2>/dev/null | grep -o 'sm_[0-9]*' | sed 's/sm_//' | sort -n | head -1)
name=$(head -1 <<<"$gpus" | awk -F', ' '{print $1}')
cc=$(head -1 <<<"$gpus" | awk -F', ' '{print $2}')
sm=${cc/./}
if [ -n "$oldest" ] && [[ "$sm" =~ ^[0-9]+$ ]] && [ "$sm" -lt "$oldest" ]; then
  say_none "GPU 0 ($name) is sm_$sm, older than the oldest architecture this toolkit builds (sm_$oldest)"
fi
echo "$name, compute capability $cc, driver $driver (CUDA ${driver_cuda:-?}), toolkit CUDA $toolkit"
