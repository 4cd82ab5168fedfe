#!/usr/bin/env bash
# Builds a minimal stand-in for the official Node base image and loads it into Docker under the
# exact name the Dockerfile's `ARG NODE_IMAGE` defaults to (node:24-bookworm-slim), for machines
# that reach Debian's mirror and the npm registry but no container registry (CI here).
# Debian minbase + ca-certificates (debootstrap), the Node binary and npm of the image's major from
# the npm registry, user "node" uid/gid 1000 as in the official images.
# The root filesystem tarball is cached ($DNE_IMAGE_CACHE, default /var/cache/datanode-exporter,
# else ~/.cache/datanode-exporter) and rebuilt only when missing.
# Env: DOCKER (client, default docker), DOCKER_HOST as usual; DNE_BASE_REBUILD=1 rebuilds the
# tarball and replaces an image of that name already in the engine;
# DNE_NPM_MAJOR (default 11, the npm that Node 24 ships).
# `build-base.sh --rootfs` only makes sure the tarball exists and prints its path (no Docker): the
# clean Debian with Node only that scripts/test-fresh.sh runs the README's quick start in.
set -euo pipefail
cd "$(dirname "$0")/../.."

docker=${DOCKER:-docker}
image=$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)
if ! [[ $image =~ ^node:([0-9]+)-([a-z]+)-slim$ ]]; then
  echo "build-base: cannot read node:<major>-<suite>-slim from the Dockerfile's ARG NODE_IMAGE (got '$image')" >&2
  exit 1
fi
major=${BASH_REMATCH[1]}
suite=${BASH_REMATCH[2]}

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "build-base: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac

cache=${DNE_IMAGE_CACHE:-}
if [ -z "$cache" ]; then
  if mkdir -p /var/cache/datanode-exporter 2>/dev/null && [ -w /var/cache/datanode-exporter ]; then cache=/var/cache/datanode-exporter
  else cache=${XDG_CACHE_HOME:-$HOME/.cache}/datanode-exporter; fi
fi
mkdir -p "$cache"
tarball=$cache/node-$major-$suite-slim-$arch.tar
meta=$tarball.env

# The mirror apt already uses (deb822 or one-line sources), so no other host is needed.
mirror() {
  local u
  u=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    | grep -oE 'https?://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ')
  echo "${u:-http://deb.debian.org/debian}"
}

build_rootfs() {
  local work root npmdir
  work=$(mktemp -d "${TMPDIR:-/tmp}/dne-base-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  root=$work/root
  debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$(mirror)" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; return 1; }

  # node-linux-<arch> is the package the npm "node" package installs its binary from (through an
  # install script); taking it directly needs no install script. npm is the registry's own.
  npmdir=$work/npm
  mkdir -p "$npmdir"
  (cd "$npmdir" && npm init -y >/dev/null && npm install --no-audit --no-fund --ignore-scripts \
    "node-linux-$arch@$major" "npm@${DNE_NPM_MAJOR:-11}" >/dev/null)
  local bin=$npmdir/node_modules/node-linux-$arch/bin/node
  [ -f "$bin" ] && [ ! -L "$bin" ] || { echo "build-base: no node binary at $bin" >&2; return 1; }
  local version
  version=$("$bin" --version)
  [[ $version == v$major.* ]] || { echo "build-base: got node $version, wanted v$major" >&2; return 1; }

  install -m 0755 "$bin" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npmdir/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  chroot "$root" groupadd --gid 1000 node
  chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$root" /usr/local/bin/node --version >/dev/null

  # Slim: what an image does not need at run time.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log "$root"/tmp/*

  tar --numeric-owner --xattrs -C "$root" -cf "$tarball.part" .
  printf 'NODE_VERSION=%s\n' "${version#v}" >"$meta"
  mv "$tarball.part" "$tarball"
}

if [ "${1:-}" = --rootfs ]; then
  if [ ! -s "$tarball" ] || [ ! -s "$meta" ]; then build_rootfs >&2; fi
  echo "$tarball"
  exit 0
fi

# An engine that already has the image (the official one, or a stand-in imported before) keeps it.
if [ "${DNE_BASE_REBUILD:-}" != 1 ] && "$docker" image inspect "$image" >/dev/null 2>&1; then
  echo "build-base: $image already present in this engine; kept (DNE_BASE_REBUILD=1 replaces it)"
  exit 0
fi
if [ "${DNE_BASE_REBUILD:-}" = 1 ] || [ ! -s "$tarball" ] || [ ! -s "$meta" ]; then
  echo "build-base: building $tarball"
  build_rootfs
else
  echo "build-base: using cached $tarball"
fi
# shellcheck disable=SC1090
. "$meta"
"$docker" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  "$tarball" "$image" >/dev/null
echo "build-base: $image (node $NODE_VERSION) loaded"
