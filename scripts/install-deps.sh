#!/usr/bin/env bash
# Installs the Debian packages ptxsim needs, only those that are missing.
# Idempotent; needs root (or sudo) when something is missing.
set -euo pipefail
packages=(g++ cmake ninja-build ccache libboost-dev libboost-program-options-dev libtbb-dev libfmt-dev
          nlohmann-json3-dev libgtest-dev clang libclang-rt-14-dev libmpfr-dev libgmp-dev
          libzstd-dev liblz4-dev libreadline-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
