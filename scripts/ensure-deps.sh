#!/usr/bin/env bash
# Installs what gpuarch needs from Debian 12's apt when run as root; otherwise prints the exact command and stops.
# Usage: scripts/ensure-deps.sh [extra-package ...]
set -euo pipefail
packages=(g++ cmake make libboost-dev librange-v3-dev doctest-dev libbenchmark-dev python3 nlohmann-json3-dev
          pkg-config libzstd-dev liblz4-dev libcli11-dev "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "gpuarch: installing missing packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "gpuarch: missing packages. Install them with:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
