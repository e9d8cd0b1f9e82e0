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
  python3-matplotlib        # scripts/plot_*.py
  parallel                  # GNU parallel: runs the job files kernbench --sweep emits (tested)
  verilator                 # RTL co-simulation (models/rtl): optional; without it the build
                            # leaves the RTL path out and the co-simulation tests skip
)

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
