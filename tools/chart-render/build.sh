#!/usr/bin/env bash
# Builds chart-render offline from Debian's Go packages (golang-go, golang-github-masterminds-sprig-dev,
# golang-k8s-sigs-yaml-dev, golang-github-gobwas-glob-dev): GOPATH mode over /usr/share/gocode, where
# they install their sources, and no module proxy. Go resolves the "/v3" import paths of sprig and
# semver in GOPATH mode only for code that sits under a GOPATH and has a go.mod, so the source is
# copied into a throwaway GOPATH with a go.mod marker.
# Usage: build.sh OUTPUT_BINARY [GO_BUILD_CACHE]   (cache default: $TMPDIR/dne-chart-render/go-build)
set -euo pipefail
out=$(realpath -m "$1")
cache=$(realpath -m "${2:-${TMPDIR:-/tmp}/dne-chart-render/go-build}")
gopath=$(mktemp -d)
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/chart-render" "$(dirname "$out")"
cp "$(dirname "$0")/main.go" "$gopath/src/chart-render/"
printf 'module chart-render\n\ngo 1.19\n' >"$gopath/src/chart-render/go.mod"
cd "$gopath/src/chart-render"
# No cgo: nothing here needs it, and a fresh machine has no C compiler.
CGO_ENABLED=0 GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOCACHE="$cache" GOFLAGS='' go build -o "$out" .
