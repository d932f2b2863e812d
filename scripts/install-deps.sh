#!/usr/bin/env bash
# Installs what gmlab needs on Debian 12 (idempotent: apt-get runs only when a
# package is missing). The CUDA toolkit itself is expected under /usr/local/cuda
# (or nvcc on PATH). The first argument chooses how much:
#   run   what scripts/run.sh needs: the library and the CLI (compiler, CMake,
#         Ninja, ccache, the header-only JSON and CLI libraries, zlib/zstd for
#         compressed documents, Chart.js for HTML reports)
#   core  run's, and the core tests' (GoogleTest, the schema checker, Chromium
#         for the HTML report's page test)
#   all   core's, and the bindings', uploader's and server's (the default;
#         GM_CORE_ONLY=1 means core)
set -euo pipefail
level=${1:-all}
[ "${GM_CORE_ONLY:-0}" = 1 ] && [ "$level" = all ] && level=core
case "$level" in run|core|all) ;; *) echo "usage: $0 [run|core|all]" >&2; exit 2 ;; esac
packages=(cmake ninja-build g++ pkg-config ccache nlohmann-json3-dev libcli11-dev libjs-chart.js zlib1g-dev libzstd-dev)
if [ "$level" != run ]; then
  packages+=(libgtest-dev python3 python3-jsonschema chromium)
fi
# Bindings, uploader and server: SWIG, Java + JUnit 5,
# Mono's C# compiler and runtime, Go, Python's headers with NumPy, pytest and pip
# (the binding's install test), zstandard (the binding's zstd documents, also
# read without it through libzstd), venv and pandas (the release wheel's test);
# libcurl and zlib; Boost.Asio/Beast, SQLite,
# simdjson, ICU and libcrypto (upload validation: JSON, the Unicode tables names are checked with, SHA-256), zstd (stored documents), libdeflate (gzip bodies), libpq, and PostgreSQL
# clang (libFuzzer), nginx and openssl (the TLS proxy test) for the server's tests; for its operations
# tests, the Prometheus client's parser, systemd (systemd-analyze verify of the unit), and what
# deploy/README.md installs on a server host (curl, logrotate, cron).
if [ "$level" = all ]; then
  packages+=(swig openjdk-17-jdk-headless junit5 mono-mcs mono-runtime golang-go
             python3-dev python3-numpy python3-pytest python3-pip python3-zstandard python3-venv python3-pandas
             libcurl4-openssl-dev zlib1g-dev libboost1.81-dev libsimdjson-dev libicu-dev libssl-dev libzstd-dev libdeflate-dev libsqlite3-dev libpq-dev postgresql clang
             nginx-light openssl python3-prometheus-client systemd curl logrotate cron)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "error: the CUDA toolkit (nvcc) is not installed; install it from NVIDIA's packages first" >&2
  exit 1
fi
