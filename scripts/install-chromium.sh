#!/usr/bin/env bash
# Installs Debian's chromium when missing; the browser test of /docs drives it through playwright-core.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  exit 0
fi

sudo=''
if [ "$(id -u)" -ne 0 ]; then sudo='sudo'; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
command -v chromium >/dev/null
