#!/usr/bin/env bash
# The Chromium that the /api/docs browser test drives (services/api/src/routes/docs/docs.browser.test.ts):
# Debian's package, installed with apt-get only when no browser is found. Idempotent. CHROMIUM_PATH names
# another browser, which must then exist. Fails loudly when no browser can be installed: in CI the test
# must run, not skip.
set -euo pipefail

# The same places the test looks, in the same order.
CANDIDATES=(/usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome)

found() {
  if [ -n "${CHROMIUM_PATH:-}" ]; then
    [ -x "$CHROMIUM_PATH" ] && echo "$CHROMIUM_PATH"
    return
  fi
  for path in "${CANDIDATES[@]}"; do
    if [ -x "$path" ]; then
      echo "$path"
      return
    fi
  done
}

report() {
  # Debian's launcher script prints a shell warning on stderr before the version.
  echo "browser: $1 ($("$1" --version 2>/dev/null || echo 'version unknown'))"
}

if path=$(found) && [ -n "$path" ]; then
  report "$path"
  exit 0
fi
if [ -n "${CHROMIUM_PATH:-}" ]; then
  echo "install-browser: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
  exit 1
fi

bash "$(dirname "$0")/apt-install.sh" chromium
if ! path=$(found) || [ -z "$path" ]; then
  echo "install-browser: FAILED: chromium installed but no browser at ${CANDIDATES[*]}" >&2
  exit 1
fi
report "$path"
