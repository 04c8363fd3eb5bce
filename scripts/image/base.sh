#!/usr/bin/env bash
# Builds the Node 24 base image the Dockerfile's NODE_IMAGE argument takes, from sources reachable without a
# container registry: a minimal Debian rootfs (debootstrap from Debian's mirror), the Node binary of the
# project's npm `node` package, and npm from the npm registry. Prints the image name (alone, on stdout).
#
# Cached by inputs: the stripped rootfs tarball under MAILROOM_IMAGE_CACHE (default ~/.cache/mailroom-image),
# keyed by suite, mirror and ROOTFS_RECIPE (bump it when the debootstrap or strip steps change); the image in
# buildah's storage, keyed also by the Node and npm versions and this script. A cold debootstrap takes minutes
# on a busy machine, so CI pays it once per machine. Delete the cache directory (and `buildah rmi` the image)
# to take Debian's latest packages.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE=${DEBIAN_SUITE:-bookworm}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NPM_VERSION=${NPM_VERSION:-11.21.2}
NODE_BIN=node_modules/node/bin/node
CACHE=${MAILROOM_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mailroom-image}

say() { echo "› $*" >&2; }
[ -x "$NODE_BIN" ] || { echo "base.sh: $NODE_BIN is missing: run make install first" >&2; exit 2; }
for cmd in buildah debootstrap; do
  command -v "$cmd" >/dev/null || { echo "base.sh: $cmd is missing: run make system-packages (as root)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "base.sh: debootstrap and buildah's chroot isolation need root" >&2; exit 2; }

ROOTFS_RECIPE="minbase; doc, man, info, locale, apt lists and caches, logs removed; v1"
NODE_VERSION=$("$NODE_BIN" -p process.versions.node)
rootfs_key=$(printf '%s\n' "$SUITE" "$MIRROR" "$ROOTFS_RECIPE" | sha256sum | cut -c1-12)
image_key=$(cat "$0" <(echo "$rootfs_key") | sha256sum | cut -c1-12)
image="localhost/mailroom-base:node${NODE_VERSION}-npm${NPM_VERSION}-${SUITE}-${image_key}"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  say "base image $image (cached)"
  echo "$image"
  exit 0
fi

mkdir -p "$CACHE"
rootfs_tar="$CACHE/debian-${SUITE}-minbase-${rootfs_key}.tar"
if [ ! -s "$rootfs_tar" ]; then
  work=$(mktemp -d "$CACHE/debootstrap.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  say "debootstrap ${SUITE} (minbase) from ${MIRROR} (a few minutes, once) …"
  debootstrap --variant=minbase "$SUITE" "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
    tail -20 "$work/debootstrap.log" >&2
    exit 1
  }
  # What a runtime never reads: documentation, manuals, translations, package lists and caches, logs.
  rm -rf "$work"/rootfs/usr/share/{doc,man,info,locale}/* "$work"/rootfs/var/cache/apt/* \
    "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/debconf/*-old "$work"/rootfs/var/log/*
  tar -C "$work/rootfs" --numeric-owner -cf "$rootfs_tar.partial" .
  mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$work"
  trap - EXIT
fi

npm_tgz="$CACHE/npm-${NPM_VERSION}.tgz"
if [ ! -s "$npm_tgz" ]; then
  say "npm ${NPM_VERSION} from the npm registry …"
  (cd "$CACHE" && npm pack "npm@${NPM_VERSION}" --silent >/dev/null)
fi

say "assembling $image (Debian ${SUITE} + Node ${NODE_VERSION} + npm ${NPM_VERSION}) …"
stage=$(mktemp -d)
ctr=$(buildah from scratch)
trap 'rm -rf "$stage"; buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
mkdir -p "$stage/usr/local/bin" "$stage/usr/local/lib/node_modules/npm"
install -m 0755 "$NODE_BIN" "$stage/usr/local/bin/node"
tar -xzf "$npm_tgz" -C "$stage/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$stage/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$stage/usr/local/bin/npx"
tar -C "$stage" --numeric-owner --owner=0 --group=0 -cf "$stage.tar" usr
buildah add --quiet "$ctr" "$rootfs_tar" / >/dev/null
buildah add --quiet "$ctr" "$stage.tar" / >/dev/null
rm -f "$stage.tar"
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" --cmd node \
  --label org.opencontainers.image.description="Debian ${SUITE} minbase + Node ${NODE_VERSION} (mailroom scripts/image/base.sh)" \
  "$ctr"
buildah commit --quiet --rm "$ctr" "$image" >/dev/null
trap 'rm -rf "$stage"' EXIT
say "base image $image built"
echo "$image"
