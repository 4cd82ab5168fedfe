#!/usr/bin/env bash
# The README's quick start on a fresh machine (npm run test:fresh; root): a clean Debian root file
# system with Node and npm only (the image's base, scripts/image/build-base.sh --rootfs), a fresh
# clone of HEAD, then the README's two commands. The first must serve /metrics; the second, run as
# a user who cannot install, must stop at once with one line naming the command. As root, its
# first step (scripts/setup.sh) must install the Debian packages the tests need, and a smoke test
# uses each of them. Only a fresh machine shows these; the suite itself runs in CI's `npm test`.
# The chroot runs in its own mount and PID namespaces: its mounts and processes end with it, also
# on failure or interruption, and the work directory is removed on exit.
set -euo pipefail

if [ "${1:-}" = --inside ]; then
  # In the chroot, in the clone.
  cd /src
  export HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  # Every server below listens on a port the system picks (port 0) and prints its address: the machine
  # running this is shared, and a fixed port may be taken.
  # wait_for PID LOG FIND [TARGET]: waits until LOG shows a line matching FIND (a regular expression
  # whose first group is a URL) and prints that URL; with TARGET, until that URL's /metrics body also
  # shows vega_up 1 for TARGET. Fails at once, with the log's tail, when process PID has ended.
  wait_for() {
    PID=$1 LOG=$2 FIND=$3 TARGET=${4:-} node -e '
      const { readFileSync } = require("node:fs");
      const { PID, LOG, FIND, TARGET } = process.env;
      const quoted = TARGET.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const want = new RegExp(`^vega_up\\{target="${quoted}"\\} 1$`, "m");
      const tail = () => readFileSync(LOG, "utf8").split("\n").slice(-40).join("\n");
      // A process that ended is gone from /proc, or a zombie ("Z") until its parent reaps it.
      const alive = () => {
        try {
          return readFileSync(`/proc/${PID}/stat`, "utf8").replace(/^.*\) /s, "")[0] !== "Z";
        } catch {
          return false;
        }
      };
      const fail = (why) => {
        console.error(`fresh: ${why}; the log ends:\n${tail()}`);
        process.exit(1);
      };
      const until = Date.now() + 600_000;
      (async () => {
        for (;;) {
          const url = new RegExp(FIND).exec(readFileSync(LOG, "utf8"))?.[1];
          if (url && !TARGET) return console.log(url);
          if (url && want.test(await fetch(url).then((r) => r.text(), () => ""))) return console.log(url);
          if (!alive()) fail(`the process it started ended before ${TARGET ? `vega_up 1 for ${TARGET}` : FIND}`);
          if (Date.now() > until) fail(`no ${TARGET ? `vega_up 1 for ${TARGET}` : FIND} in 600 s`);
          await new Promise((r) => setTimeout(r, 500));
        }
      })();'
  }
  # Runs a command in the background, in its own process group, until the exporter it starts shows
  # vega_up 1 for the target on /metrics; then stops it. UP_AFTER: the seconds that took.
  until_up() {
    local target=$1 log=$2 pid t0 code=0
    shift 2
    t0=$(date +%s)
    set -m
    bash -c "$*" >"$log" 2>&1 &
    pid=$!
    set +m
    wait_for "$pid" "$log" '(http://127\.0\.0\.1:\d+/metrics)' "$target" >/dev/null || code=$?
    UP_AFTER=$(($(date +%s) - t0))
    kill -TERM -- -"$pid" 2>/dev/null || true
    wait "$pid" || true
    return $code
  }

  # The README's quick start, then its "Running against a node" against the simulator, each on a
  # port of its own instead of the README's 19308 and 3008.
  until_up sim /tmp/demo.log 'npm ci && npm run demo -- --port 0'
  echo "fresh: npm ci && npm run demo: vega_up 1 on /metrics ${UP_AFTER} s after npm ci started"
  set -m
  npm run simulator -- --port 0 >/tmp/sim.log 2>&1 &
  sim=$!
  set +m
  node_url=$(wait_for "$sim" /tmp/sim.log 'simulated data node on (http://127\.0\.0\.1:\d+)')
  until_up "${node_url#http://}" /tmp/start.log "npm start -- --datanode.url $node_url --web.listen-address 127.0.0.1:0"
  kill -TERM -- -"$sim"
  wait "$sim" || true
  echo "fresh: npm start against the simulator: vega_up 1 after ${UP_AFTER} s"

  # A user who cannot install: one line naming the command, before any test runs.
  chown -R node:node /src
  set +e
  out=$(su node -c 'cd /src && npm test 2>&1')
  code=$?
  set -e
  lines=$(grep -c '^setup: ' <<<"$out" || true)
  if [ "$code" = 0 ] || [ "$lines" != 1 ] || ! grep -q '^setup: .*run: sudo apt-get install -y .*prometheus' <<<"$out" \
    || grep -qE 'Test Files|FAIL' <<<"$out"; then
    echo "fresh: npm test without the right to install should stop with one setup line; it printed:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "fresh: npm test as a user who cannot install: $(grep '^setup: ' <<<"$out")"

  # As root: npm test's first step installs what the tests need; the smoke files use every tool it
  # installs (promtool, amtool, yamllint, systemd-analyze; Go and Helm's template libraries; openssl).
  t2=$(date +%s)
  npm run pretest
  npx vitest run test/kit/kit.test.ts test/kit/chart.test.ts test/exporter/web/healthcheck.test.ts
  echo "fresh: setup installed the test packages and the smoke tests passed in $(($(date +%s) - t2)) s"
  exit 0
fi

cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "test-fresh: needs root (debootstrap, chroot)" >&2; exit 1; }
rev=$(git rev-parse HEAD)
tarball=$(bash scripts/image/build-base.sh --rootfs | tail -n 1)

work=$(mktemp -d "${TMPDIR:-/tmp}/dne-fresh-XXXXXX")
# The mounts live only in the namespace below, so this never removes through one.
trap 'rm -rf --one-file-system "$work"' EXIT
root=$work/root
mkdir "$root"
tar --numeric-owner -xf "$tarball" -C "$root"
git clone -q --no-checkout "$PWD" "$root/src"
git -C "$root/src" -c advice.detachedHead=false checkout -q "$rev"

# This machine's network settings, as a fresh machine on the same network would have them: DNS,
# the CA bundle (for a TLS-intercepting proxy) and apt's settings. Services that packages install
# are not started, as usual in a chroot.
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
cp -n /etc/apt/apt.conf.d/* "$root/etc/apt/apt.conf.d/" 2>/dev/null || true
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"

start=$(date +%s)
unshare --mount --pid --fork --propagation private bash -c '
  set -e
  root=$1
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t sysfs sysfs "$root/sys"
  exec chroot "$root" /usr/bin/env -i NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    npm_config_cafile=/etc/ssl/certs/ca-certificates.crt /bin/bash /src/scripts/test-fresh.sh --inside
' _ "$root"
echo "fresh: passed in $(($(date +%s) - start)) s (chroot from the cached base; $rev)"
