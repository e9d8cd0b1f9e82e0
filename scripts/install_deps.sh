#!/usr/bin/env bash
# Installs the Debian packages KernBench-SC needs, only those that are missing.
# Idempotent: a second run installs nothing. Run as root (or with sudo available).
set -euo pipefail

PACKAGES=(
  cmake g++ make pkg-config ccache
  libsystemc-dev            # SystemC 2.3 + TLM-2.0
  libyaml-cpp-dev           # topology YAML
  libboost-program-options-dev
  nlohmann-json3-dev        # every JSON we read or write
  libgtest-dev              # GoogleTest
  libbenchmark-dev          # Google Benchmark: the micro-benchmarks (cmake --build build --target bench)
  python3-matplotlib        # scripts/plot_*.py
  parallel                  # GNU parallel: runs the job files kernbench --sweep emits (tested)
  clang                     # libFuzzer (with its compiler-rt) for scripts/fuzz.sh, which CI runs
  verilator                 # RTL co-simulation (models/rtl): optional; without it the build
                            # leaves the RTL path out and the co-simulation tests skip
)

# Every SystemC thread's stack takes two memory maps; a 512-PE system with
# its DMA bursts in flight needs more than Linux's default vm.max_map_count
# (65530). Raise it when allowed; kernbench names the limit if it is hit.
want_maps=262144
have_maps=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo "$want_maps")
if [ "$have_maps" -lt "$want_maps" ]; then
  if [ "$(id -u)" -eq 0 ] && sysctl -qw vm.max_map_count="$want_maps" 2>/dev/null; then
    echo "install_deps: vm.max_map_count $have_maps -> $want_maps (SystemC thread stacks)"
  else
    echo "install_deps: vm.max_map_count is $have_maps; 4-SIP runs need $want_maps" \
      "(sysctl -w vm.max_map_count=$want_maps as root)"
  fi
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
