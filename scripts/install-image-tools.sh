#!/usr/bin/env bash
# What `npm run test:image` needs: podman (builds the image) and debootstrap (its local base,
# since no registry is reachable here). From Debian; idempotent.
set -euo pipefail

missing=()
command -v podman >/dev/null || missing+=(podman)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi
