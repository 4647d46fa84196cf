#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies, release build, then Loupe on a trace of the bundled example.
set -euo pipefail
cd "$(dirname "$0")/../.."
resources/scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
# The richest bundled example: a small CNN trained for 20 SGD steps (forward, backward, updates).
EXAMPLE=resources/examples/train_cnn.py
TRACE=build/release/example.loupe
# Record the example's trace (every rewrite, kernel and kernel run, each optimized kernel timed
# against its NOOPT version) with the engine just built.
build/release/bin/loupe-cli run "$EXAMPLE" --trace "$TRACE" --compare-noopt
if [ -x build/release/bin/loupe ]; then
  exec build/release/bin/loupe "$TRACE" "$@"
else
  # The app is built only with Qt 6 and Graphviz; without them, inspect the trace from the command line.
  exec build/release/bin/loupe-cli trace "$TRACE"
fi
