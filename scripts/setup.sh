#!/usr/bin/env bash
# What the tests need beyond Node, installed when missing: `npm test` runs this first (pretest),
# `.ci/run` too. As root with apt-get it installs Debian's packages; otherwise it stops at once
# with one line naming the command to run, rather than letting every test that needs a tool fail.
#   promtool, amtool (prometheus, prometheus-alertmanager): exposition checks, rules, routing;
#   yamllint: the kit; openssl: test certificates; Go with the libraries of Helm's template
#   engine (sources under /usr/share/gocode) to build tools/chart-render for the chart test;
#   systemd-analyze (systemd) checks the shipped unit file; Debian's Python with the reference client
#   (python3-prometheus-client) parses /metrics and /probe as a strict OpenMetrics parser does.
# Usage: setup.sh [--image]   --image adds docker.io and debootstrap (npm run test:image, test:fresh).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
command -v amtool >/dev/null 2>&1 || need+=(prometheus-alertmanager)
command -v yamllint >/dev/null 2>&1 || need+=(yamllint)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v go >/dev/null 2>&1 || need+=(golang-go)
gocode=/usr/share/gocode/src
[ -d $gocode/github.com/Masterminds/sprig ] || need+=(golang-github-masterminds-sprig-dev)
[ -d $gocode/sigs.k8s.io/yaml ] || need+=(golang-k8s-sigs-yaml-dev)
[ -d $gocode/github.com/gobwas/glob ] || need+=(golang-github-gobwas-glob-dev)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
/usr/bin/python3 -c 'import prometheus_client' >/dev/null 2>&1 || need+=(python3-prometheus-client)
if [ "${1:-}" = --image ]; then
  command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
fi

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: the tests need Debian packages that are missing; run: sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ -d node_modules ] || npm ci --no-audit --no-fund
