#!/usr/bin/env bash
# The GPU checks in one run, for a machine with an NVIDIA GPU and no Qt (the project's lent GPU machines),
# most wanted first, since a lease is short: builds loupe-cli and the Python module; runs tests/gpu (TinyJit
# on CUDA, CUPTI profiling); samples CUDA kernels through CUPTI (bench --hotspots, run --gpu-metrics, the
# bench's heaviest kernels measured); records a CUDA trace for the app and its SASS; times the bench
# workloads next to PyTorch and tinygrad (given a checkout); lets BEAM search the half and float matmul and
# the softmax. With the time left: the TinyJit tests on CUDA, the training-loop benches, the corpus on CUDA
# (given the checker) and the whole bench. Everything lands in OUT.
#
#   resources/scripts/gpu-check.sh OUT [--tinygrad CHECKOUT] [--sqlite DIR] [--corpus-check TOOL] [--budget SECONDS]
#                                  [--only SECTION,...]
#
# --sqlite DIR: sqlite3.h and libsqlite3.so.0 from elsewhere (rarely needed: without SQLite's development
# package the build uses the machine's libsqlite3.so.0 with third_party/sqlite3/sqlite3.h). --budget: seconds the whole script may take (default 480);
# the full bench only runs in what is left. --only: the sections to run after the build, of tests, cupti, app,
# vendor, tinygrad, beam, sweep, jit, train, corpus, bench (a second call in one lease runs what the first lacked).
set -u
OUTDIR=$1; shift
TG="" SQ="" CHECKER="" BUDGET=480 ONLY=""
while [ $# -gt 0 ]; do
  case $1 in
    --tinygrad) TG=$(realpath "$2"); shift 2 ;;
    --sqlite) SQ=$(realpath "$2"); shift 2 ;;
    --corpus-check) CHECKER=$(realpath "$2"); shift 2 ;;
    --budget) BUDGET=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
START=$(date +%s)
left() { echo $((BUDGET - ($(date +%s) - START))); }
mkdir -p "$OUTDIR"
cd "$(dirname "$0")/../.."
LOG=$OUTDIR/gpu-check.log
say() { echo "== $* ($(($(date +%s) - START)) s)" | tee -a "$LOG"; }
# a section runs when --only names it (or without --only)
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

say machine
{ nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv; nproc; lscpu | grep -E "Model name|Flags" | cut -c1-300
  python3 -c "import torch, sys; print(sys.version.split()[0], 'torch', torch.__version__)"; } >>"$LOG" 2>&1

say build
PY=$(command -v python3)
CMAKE_ARGS=(-S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOUPE_BUILD_GUI=OFF -DLOUPE_BUILD_TESTS=OFF -DPython3_EXECUTABLE="$PY")
if [ -n "$SQ" ]; then
  CMAKE_ARGS+=(-DSQLite3_INCLUDE_DIR="$SQ" -DSQLite3_LIBRARY="$SQ/libsqlite3.so.0")
  export LD_LIBRARY_PATH="$SQ${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
cmake "${CMAKE_ARGS[@]}" >"$OUTDIR/build.log" 2>&1 && cmake --build build/gpu -j"$(nproc)" >>"$OUTDIR/build.log" 2>&1 || {
  tail -40 "$OUTDIR/build.log" | tee -a "$LOG"; exit 1; }
grep -E "Python|pybind|SQLite|static" "$OUTDIR/build.log" | head -5 >>"$LOG"
{ echo "LDFLAGS=${LDFLAGS:-} CXXFLAGS=${CXXFLAGS:-}"; ldd build/gpu/python/loupe/_loupe*.so | grep -E "stdc|gcc"; } >>"$LOG" 2>&1
CLI=$PWD/build/gpu/bin/loupe-cli
"$CLI" devices >>"$LOG" 2>&1
export PYTHONPATH=$PWD/build/gpu/python:$PWD/build/gpu/python/compat LOUPE_CLI=$CLI LOUPE_SOURCE_DIR=$PWD
# CUPTI for the profiling checks: the toolkit's, else the copy pip's nvidia-cuda-cupti brought (never Nsight
# Compute's host copy, a CUPTI 10.2 without PC sampling's stall-reason calls)
if [ -z "${LOUPE_CUPTI_LIBRARY:-}" ]; then
  found=$(find /usr/local /opt /usr/lib -name 'libcupti.so*' -not -path '*/stubs/*' 2>/dev/null | sort)
  echo "libcupti found: $(echo $found)" >>"$LOG"
  f=$( (echo "$found" | grep '^/usr/local/cuda'; echo "$found" | grep -v nsight) | grep . | head -1)
  [ -n "$f" ] && export LOUPE_CUPTI_LIBRARY=$f
fi
echo "CUPTI: ${LOUPE_CUPTI_LIBRARY:-not found}" >>"$LOG"
# tinygrad finds NVRTC and libcuda through ldconfig; the CUDA image keeps NVRTC outside its paths
if [ -n "$TG" ] && [ "$(id -u)" = 0 ]; then
  mkdir -p /tmp/tglib
  for n in nvrtc cuda; do
    f=$(find /usr/local /usr/lib /opt -name "lib$n.so*" 2>/dev/null | grep -v stubs | head -1)
    [ -n "$f" ] && ln -sf "$f" /tmp/tglib/lib$n.so
  done
  echo /tmp/tglib >/etc/ld.so.conf.d/loupe-tinygrad.conf && ldconfig 2>/dev/null
fi

if want tests; then
say "pytest: tests/gpu (TinyJit on CUDA, CUPTI profiling)"
for t in tests/gpu/test_cuda_jit.py tests/gpu/test_cuda_profiling.py; do
  timeout $(( $(left) / 5 )) python3 -X faulthandler -m pytest -v -p no:cacheprovider "$t" >>"$OUTDIR/pytest.log" 2>&1
  echo "$t: exit $?" >>"$LOG"
  grep -E "PASSED|FAILED|SKIPPED|ERROR|Fatal|passed|failed" "$OUTDIR/pytest.log" | tail -12 >>"$LOG"
done
fi

if want cupti; then
say "inside CUDA kernels (CUPTI): PC samples with stall reasons, hardware metrics; sampling's cost"
timeout 150 "$CLI" bench --device CUDA --only matmul_1024,transformer_block --hotspots --optimized-only --no-machine --runs 3 \
  --json >"$OUTDIR/bench-hotspots-cuda.json" 2>>"$LOG"
python3 -c "import json,sys
for w in json.load(open(sys.argv[1]))['workloads']:
  h = w.get('hotspots') or {}
  print(w['name'], 'overhead', round(100*h.get('overhead', 0), 1), '%')
  for k in h.get('kernels', [])[:2]:
    top = sorted(k['lines'], key=lambda l: -l['samples'])[:3]
    print('  ', k['kernel'], k['samples'], 'samples, matches', k['matches'], k.get('mismatch', ''), 'stalls', k.get('stalls'))
    for l in top: print('     line', l['line'], round(100*l['share'], 1), '%', l['text'].strip()[:70])" "$OUTDIR/bench-hotspots-cuda.json" >>"$LOG" 2>&1
DEBUG=2 timeout 60 "$CLI" run resources/examples/matmul_relu_sum.py --device CUDA --hotspots 2>&1 | grep -E "CUPTI|unsampled" >>"$LOG"
DEVICE=CUDA timeout 90 "$CLI" run resources/examples/train_cnn.py --gpu-metrics --trace "$OUTDIR/cuda-metrics.loupe" -- --steps 2 >>"$LOG" 2>&1
timeout 30 "$CLI" trace "$OUTDIR/cuda-metrics.loupe" --hotspots 2>&1 | head -8 >>"$LOG"
DEVICE=CUDA timeout 90 "$CLI" run resources/examples/train_cnn.py --hotspots --trace "$OUTDIR/cuda-hotspots.loupe" -- --steps 2 >>"$LOG" 2>&1
timeout 60 "$CLI" trace "$OUTDIR/cuda-hotspots.loupe" --hotspots 2>&1 | head -12 >>"$LOG"
fi

if want cupti; then
say "the bench's heaviest kernels measured by CUPTI (occupancy, DRAM, tensor pipe): matmul_4096 half and float, softmax"
cat >"$OUTDIR/heavy.py" <<'PY'
from tinygrad import Tensor, dtypes
for dt in (dtypes.half, dtypes.float):
  a, b = Tensor.rand(4096, 4096).cast(dt).realize(), Tensor.rand(4096, 4096).cast(dt).realize()
  (a @ b).realize()
Tensor.rand(4096, 1024).realize().softmax(1).realize()
PY
DEVICE=CUDA timeout 90 "$CLI" run "$OUTDIR/heavy.py" --gpu-metrics --trace "$OUTDIR/cuda-heavy-metrics.loupe" >>"$LOG" 2>&1
timeout 30 "$CLI" trace "$OUTDIR/cuda-heavy-metrics.loupe" --hotspots 2>&1 | head -40 >>"$LOG"
fi

if want app; then
say "CUDA traces for the app"
DEVICE=CUDA timeout 60 "$CLI" run resources/examples/train_cnn.py --trace "$OUTDIR/cuda-train-cnn.loupe" -- --steps 6 >>"$LOG" 2>&1

say "what the machine ran: PTX and SASS of a CUDA kernel, with source lines"
K=$("$CLI" trace "$OUTDIR/cuda-train-cnn.loupe" -t 12 2>/dev/null | awk '$1=="CUDA"{print $2; exit}')
timeout 60 "$CLI" trace "$OUTDIR/cuda-train-cnn.loupe" --disasm "$K" --json >"$OUTDIR/disasm-cuda.json" 2>>"$LOG"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print(l['kind'], l['title'], l['instructions'], 'instructions,', sum(1 for r in l['lines'] if 'source_line' in r), 'linked') for l in d['listings']]; print('missing:', d['missing'])" \
  "$OUTDIR/disasm-cuda.json" >>"$LOG" 2>&1
fi

if want vendor; then
say "Loupe next to PyTorch (cuBLAS/cuDNN), one run"
timeout $(( $(left) / 3 )) python3 resources/scripts/bench-vendor.py --cli "$CLI" --device CUDA --runs 5 >"$OUTDIR/bench-vendor-cuda.json" 2>>"$LOG"
DEVICE=CUDA DEBUG=2 timeout 60 "$CLI" run resources/examples/train_cnn.py -- --steps 5 --jit 2>&1 | grep -E "JIT|batched" | head -5 >>"$LOG"
fi

if want tinygrad; then
if [ -n "$TG" ]; then
  say "tinygrad on CUDA, the same workloads (kernel times)"
  timeout 150 python3 resources/scripts/bench-tinygrad.py --tinygrad "$TG" --device CUDA --kernel-time --runs 5 \
    --only matmul_4096,matmul_4096_float16,add_16m,sum_16m,softmax_4096x1024,conv2d_resnet,transformer_block,cnn_train_step \
    >"$OUTDIR/bench-tinygrad-cuda.json" 2>>"$LOG"
fi
fi

if want beam; then
say "BEAM=2 next to the hand-coded kernels (half matmul: TC, STAGE, ldmatrix; float: STAGE is BEAM's to try; softmax: one work-group per row)"
for w in matmul_4096_float16 matmul_4096 softmax_4096x1024; do
  BEAM=2 DEBUG=2 timeout $(( $(left) / 6 )) "$CLI" bench --device CUDA --only $w --optimized-only --no-machine 2>&1 |
    grep -E "BEAM|^matmul|rror" >>"$LOG"
done
fi

if want sweep; then
say "the half matmul's tensor-core tiles swept beyond BEAM's one-step actions (sweep-opts.py)"
t=$(( $(left) - 30 )); [ $t -gt 150 ] && t=150
timeout $t python3 resources/scripts/sweep-opts.py --device CUDA --n 4096 --dtype half --runs 10 \
  --json "$OUTDIR/sweep-tc-half.json" >>"$LOG" 2>"$OUTDIR/sweep-tc-half.log"
fi

if want jit && [ "$(left)" -gt 120 ]; then
say "pytest: the TinyJit tests on the default device (CUDA)"
timeout $(( $(left) / 5 )) python3 -X faulthandler -m pytest -v -p no:cacheprovider tests/python/test_jit.py >>"$OUTDIR/pytest.log" 2>&1
echo "tests/python/test_jit.py: exit $?" >>"$LOG"
grep -E "passed|failed" "$OUTDIR/pytest.log" | tail -2 >>"$LOG"
fi

if want train && [ "$(left)" -gt 150 ]; then
say "bench train_step_jit on CUDA, 100 steps"
timeout 120 "$CLI" bench --device CUDA --only train_step_jit --steps 100 --no-machine --json >"$OUTDIR/bench-train-step-jit.json" 2>>"$LOG"
timeout 120 "$CLI" bench --device CUDA --only train_step_jit --steps 100 --no-machine 2>/dev/null | tail -12 >>"$LOG"
fi

if want train && [ "$(left)" -gt 150 ]; then
say "the Python training loop: Loupe, tinygrad, PyTorch on CUDA, 100 steps"
timeout 200 python3 resources/scripts/bench-train-loop.py --device CUDA --steps 100 --torch --cli "$CLI" ${TG:+--tinygrad "$TG"} \
  >"$OUTDIR/train-loop-cuda.json" 2>>"$LOG"
fi

if want corpus && [ "$(left)" -gt 150 ]; then
if [ -n "$CHECKER" ]; then
  say "corpus on CUDA, optimized and NOOPT"
  for mode in "" --noopt; do
    timeout 120 python3 "$CHECKER" --cli "$CLI" --corpus tests/corpus/data --device CUDA $mode 2>&1 | tail -6 >>"$LOG"
  done
fi
fi

# one workload at a time, so what finishes before the budget is kept
MACHINE=""
want bench &&
for w in matmul_1024 add_16m sum_16m softmax_4096x1024 conv2d_resnet transformer_block cnn_train_step matmul_4096 matmul_4096_float16; do
  [ "$(left)" -gt 40 ] || break
  say "bench $w on CUDA"
  timeout $(( $(left) - 20 )) "$CLI" bench --device CUDA --only $w $MACHINE --json >>"$OUTDIR/bench-cuda.jsonl" 2>/dev/null
  MACHINE=--no-machine
done
say done
