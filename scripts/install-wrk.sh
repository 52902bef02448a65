#!/usr/bin/env bash
# wrk, the load tool of the bench's `users` section (bench/users.ts): Debian's package, installed
# only when `wrk` is not on PATH. Idempotent; fails loudly when it cannot be installed.
set -euo pipefail

command -v wrk >/dev/null || bash "$(dirname "$0")/apt-install.sh" wrk
echo "wrk: $(command -v wrk)"
