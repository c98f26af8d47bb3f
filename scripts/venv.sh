#!/usr/bin/env bash
# Create (once) the project's virtual environment in .venv and install a requirements file into it.
# Works where the system Python refuses `pip install` (Debian and Ubuntu: "externally managed"):
# nothing is installed into the system Python. On Debian/Ubuntu without the venv module,
# python3-venv is installed with apt-get (using sudo when not root).
# Usage: bash scripts/venv.sh requirements.txt
set -euo pipefail
cd "$(dirname "$0")/.."
requirements="${1:-requirements.txt}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if [ ! -x .venv/bin/python ]; then
  if ! python3 -m venv .venv 2>/dev/null; then
    rm -rf .venv
    version=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "python${version}-venv" >/dev/null \
      || DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv .venv
  fi
fi
# DPSYNTH_PIP_PROGRESS=1 (a first start): pip says what it downloads and installs; else it is quiet.
quiet=-q
[ "${DPSYNTH_PIP_PROGRESS:-0}" = 1 ] && quiet=--progress-bar=on
.venv/bin/python -m pip install "$quiet" --disable-pip-version-check -r "$requirements"
