#!/usr/bin/env bash
# The static checks of `npm test`, side by side (none of them writes anything): formatting, types
# and lint. Each one's output is shown only when it fails.
set -u
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
npx prettier --check . >"$dir/format" 2>&1 &
format=$!
npx tsc --noEmit -p . >"$dir/types" 2>&1 &
types=$!
npx eslint . >"$dir/lint" 2>&1 &
lint=$!
status=0
for name in format types lint; do
  if ! wait "${!name}"; then
    echo "checks: $name failed:"
    cat "$dir/$name"
    status=1
  fi
done
[ $status = 0 ] && echo "checks: formatting, types and lint pass"
exit $status
