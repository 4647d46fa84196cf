#!/usr/bin/env bash
# tinygrad's own tests (files of test/ in a tinygrad checkout, run unmodified) against this build of
# Loupe: `tinygrad` resolves to Loupe's compatibility package and Debian's python3-torch is the reference
# the tests compare with.
#
#   git clone https://github.com/tinygrad/tinygrad && git -C tinygrad checkout v0.10.2
#   resources/scripts/tinygrad-tests.sh tinygrad [pytest options, e.g. -k pool]
#       test_ops.py: pytest's summary and the failing tests
#   resources/scripts/tinygrad-tests.sh tinygrad --table [--reference] [FILE...]
#       each FILE (relative to test/; default: the ten files of issue 44, test_ops.py and the compiler's
#       own: test_uops, test_uop_graph, test_uops_stats, test_schedule, test_linearizer, ...) in its own
#       pytest run, then a table: file, tests collected, passed under Loupe; with --reference also
#       passed under real tinygrad (the checkout itself, CPU=1) and Loupe's share of those.
#
# The same file under real tinygrad, for comparison: cd tinygrad/test && CPU=1 PYTHONPATH=.. python3 -m pytest test_ops.py
set -euo pipefail
checkout=${1:?usage: tinygrad-tests.sh TINYGRAD_CHECKOUT [--table [--reference] [FILE...] | pytest options]}
shift
checkout=$(cd "$checkout" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${LOUPE_BUILD_DIR:-$root/build/release}
build=$(cd "$build" 2>/dev/null && pwd || echo "$build")  # absolute: the tests run from the checkout
python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
python=${python:-/usr/bin/python3}
if [ ! -f "$checkout/test/test_ops.py" ]; then
  echo "tinygrad-tests: $checkout/test/test_ops.py not found (pass a tinygrad checkout)" >&2
  exit 2
fi
if [ ! -d "$build/python/loupe" ] || [ ! -f "$build/python/compat/tinygrad/__init__.py" ]; then
  echo "tinygrad-tests: $build/python/loupe not found: build Loupe first (resources/scripts/run-tests.sh or cmake --build --preset release)" >&2
  exit 2
fi
if ! "$python" -c "import torch, pytest, hypothesis" 2>/dev/null; then
  echo "tinygrad-tests: installing python3-torch, python3-pytest and python3-hypothesis (the tests' reference and runner)" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends python3-torch python3-pytest python3-hypothesis
fi
cd "$checkout/test"
# importlib mode imports each test file by path, and the working folder test/ holds no tinygrad package:
# `tinygrad` is Loupe's, while the checkout (after it on the path) still provides `test.helpers` and `extra`.
loupe_path="$build/python:$build/python/compat:$checkout"
# tests that start `python3 -c ...` get the interpreter Loupe was built for, not another one earlier on PATH
shim=$(mktemp -d)
ln -s "$python" "$shim/python3"
export PATH="$shim:$PATH"

if [ "${1:-}" != "--table" ]; then
  PYTHONPATH="$loupe_path" PYTHONDONTWRITEBYTECODE=1 \
    "$python" -m pytest test_ops.py --import-mode=importlib -p no:cacheprovider -q -rf "$@" || rc=$?
  rm -rf "$shim"
  exit ${rc:-0}
fi
shift
reference=0
if [ "${1:-}" = "--reference" ]; then reference=1; shift; fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  files=(unit/test_pattern_matcher.py unit/test_uop_symbolic.py unit/test_uop_vmin_vmax.py unit/test_uop_resolve.py
         unit/test_view.py unit/test_shapetracker_math.py test_jit.py test_tensor.py test_nn.py test_dtype.py test_ops.py
         test_uops.py test_uop_graph.py test_uops_stats.py test_schedule.py test_linearizer.py test_arange.py
         test_transcendental.py test_winograd.py)
fi
out=$(mktemp -d)
trap 'rm -rf "$out" "$shim"' EXIT
for f in "${files[@]}"; do
  name=$(echo "$f" | tr '/' '_')
  echo "tinygrad-tests: $f under Loupe" >&2
  PYTHONPATH="$loupe_path" PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest "$f" --import-mode=importlib -p no:cacheprovider \
    -q --junitxml="$out/loupe_$name.xml" >"$out/loupe_$name.log" 2>&1 || true
  if [ $reference = 1 ]; then
    echo "tinygrad-tests: $f under tinygrad" >&2
    CPU=1 PYTHONPATH="$checkout" PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest "$f" -p no:cacheprovider -q \
      --junitxml="$out/tinygrad_$name.xml" >"$out/tinygrad_$name.log" 2>&1 || true
  fi
done
"$python" - "$out" "$reference" "${files[@]}" <<'EOF'
import sys, os, xml.etree.ElementTree as ET
out, reference, files = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
def counts(path):
  """(collected, passed, passed test ids) from a junit file; None where the file did not collect."""
  if not os.path.exists(path): return None
  with open(path[:-4] + ".log", errors="replace") as log:
    if "during collection" in log.read(): return None
  cases = list(ET.parse(path).getroot().iter("testcase"))
  passed = set()
  for c in cases:
    if not any(ch.tag in ("failure", "error", "skipped") for ch in c): passed.add(f"{c.get('classname')}.{c.get('name')}")
  return len(cases), len(passed), passed
head = f"{'file':34} {'collected':>9} {'Loupe':>7}" + (f" {'tinygrad':>8} {'Loupe/tinygrad':>15}" if reference else "")
print(head); print("-" * len(head))
tot = [0, 0, 0, 0]
for f in files:
  name = f.replace("/", "_")
  lo = counts(f"{out}/loupe_{name}.xml")
  row = f"{f:34} " + (f"{lo[0]:>9} {lo[1]:>7}" if lo else f"{'no collect':>9} {0:>7}")
  if lo: tot[0] += lo[0]; tot[1] += lo[1]
  if reference:
    tg = counts(f"{out}/tinygrad_{name}.xml")
    if tg:
      both = len(tg[2] & lo[2]) if lo else 0
      tot[2] += tg[1]; tot[3] += both
      row += f" {tg[1]:>8} {both:>7} ({100 * both / max(tg[1], 1):3.0f}%)"
    else: row += f" {'no collect':>8}"
  print(row)
print("-" * len(head))
total = f"{'total':34} {tot[0]:>9} {tot[1]:>7}"
if reference: total += f" {tot[2]:>8} {tot[3]:>7} ({100 * tot[3] / max(tot[2], 1):3.0f}%)"
print(total)
if not reference: print("(Loupe: tests passed; run with --reference for real tinygrad's figures beside them)")
else: print("(Loupe/tinygrad: tests that pass under both, as a share of those that pass under real tinygrad)")
EOF
