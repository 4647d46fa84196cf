#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies, release build, the whole test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/../.."
resources/scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release --timeout 1200
