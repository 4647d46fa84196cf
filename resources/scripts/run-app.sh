#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies, release build, then Loupe on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/../.."
resources/scripts/install-deps.sh
cmake --preset release
cmake --build --preset release
if [ -x build/release/bin/loupe ]; then
  exec build/release/bin/loupe resources/examples/example.loupe "$@"
else
  # The app is built only with Qt 6 and Graphviz; without them, run the example through the CLI.
  exec build/release/bin/loupe-cli simplify "(a*40 + b) // 20" --vars a=0:10,b=0:10
fi
