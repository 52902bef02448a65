#!/usr/bin/env bash
# promtool, which checks and unit-tests the alert rules in ops/prometheus (test/ops/ops.test.ts):
# Debian's prometheus package, installed with apt-get only when promtool is missing. Idempotent.
# Fails loudly when it cannot be installed: in CI the check must run, not skip.
set -euo pipefail

if ! command -v promtool >/dev/null; then
  bash "$(dirname "$0")/apt-install.sh" prometheus
fi
echo "promtool: $(command -v promtool) ($(promtool --version 2>&1 | head -1))"
