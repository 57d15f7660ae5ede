#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the console's browser tests (playwright-core drives it and
# never downloads a browser of its own). Idempotent: when it is already installed this only checks and exits.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo --non-interactive "$0" "$@"
  fi
  echo "ensure-chromium: $CHROMIUM is missing and installing it needs root (apt-get install chromium)" >&2
  exit 1
fi

echo "ensure-chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
"$CHROMIUM" --version
