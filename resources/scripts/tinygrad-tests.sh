#!/usr/bin/env bash
# tinygrad's own op tests (test/test_ops.py of a tinygrad checkout, run unmodified) against this build of
# Loupe: `tinygrad` resolves to Loupe's compatibility package and Debian's python3-torch is the reference
# the tests compare with. Prints pytest's summary and the failing tests.
#
#   git clone https://github.com/tinygrad/tinygrad && git -C tinygrad checkout v0.10.2
#   resources/scripts/tinygrad-tests.sh tinygrad [pytest options, e.g. -k pool]
#
# The same file under real tinygrad, for comparison: cd tinygrad/test && CLANG=1 PYTHONPATH=.. python3 -m pytest test_ops.py
set -euo pipefail
checkout=${1:?usage: tinygrad-tests.sh TINYGRAD_CHECKOUT [pytest options]}
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${LOUPE_BUILD_DIR:-$root/build/release}
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
python=${python:-/usr/bin/python3}
if [ ! -f "$checkout/test/test_ops.py" ]; then
  echo "tinygrad-tests: $checkout/test/test_ops.py not found (pass a tinygrad checkout)" >&2
  exit 2
fi
if [ ! -d "$build/python/loupe" ]; then
  echo "tinygrad-tests: $build/python/loupe not found: build Loupe first (resources/scripts/run-tests.sh or cmake --build --preset release)" >&2
  exit 2
fi
if ! "$python" -c "import torch, pytest" 2>/dev/null; then
  echo "tinygrad-tests: installing python3-torch and python3-pytest (the tests' reference and runner)" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3-torch python3-pytest
fi
cd "$checkout/test"
# importlib mode imports the test file by path: the checkout's own tinygrad package never lands on sys.path
PYTHONPATH="$build/python:$build/python/compat" PYTHONDONTWRITEBYTECODE=1 \
  exec "$python" -m pytest test_ops.py --import-mode=importlib -p no:cacheprovider -q -rf "$@"
