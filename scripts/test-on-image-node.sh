#!/usr/bin/env bash
# Runs the unit and integration tests on the Node major the image ships (the Dockerfile's
# NODE_IMAGE), taken from the npm registry's `node` package and cached between runs. Nothing to
# do when this machine's Node is already that major.
set -euo pipefail
cd "$(dirname "$0")/.."
major=$(sed -n 's/^ARG NODE_IMAGE=node:\([0-9]*\)-.*/\1/p' Dockerfile)
[ -n "$major" ] || { echo "no NODE_IMAGE=node:<major>-... in the Dockerfile" >&2; exit 1; }
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  echo "this machine's Node is already $major"
  exit 0
fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/datanode-exporter/node-$major"
bin="$dir/node_modules/node/bin/node"
if ! "$bin" --version >/dev/null 2>&1; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm init -y >/dev/null && npm install --no-audit --no-fund "node@$major")
fi
echo "unit and integration tests on Node $("$bin" --version)"
# Child processes the tests start (the daemon, the simulator) run on the same binary.
PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/vitest/vitest.mjs run
