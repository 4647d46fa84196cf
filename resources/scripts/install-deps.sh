#!/usr/bin/env bash
# Installs what Loupe needs on Debian 12 (root, or sudo when available). Safe to run again.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
PACKAGES=(
  cmake ninja-build pkgconf g++ ccache git python3 libopenblas0-pthread
  python3-dev pybind11-dev python3-numpy python3-pytest
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev fonts-dejavu-core
  libgraphviz-dev graphviz libsqlite3-dev
  llvm-15-dev zlib1g-dev clang-15 libclang-15-dev libclang-cpp15-dev
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo
  xvfb xauth imagemagick
  dpkg-dev  # (test_install builds the .deb with CPack and unpacks it)
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing: ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
