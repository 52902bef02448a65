#!/usr/bin/env bash
# Installs Debian packages with apt-get as root (directly, or through password-less sudo), quietly;
# fails loudly, naming the packages, when there is no root or apt-get fails. Used by the scripts that
# install a tool only when it is missing. Usage: scripts/apt-install.sh PACKAGE...
set -euo pipefail

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "apt-install: no root to install $* (apt-get install $*)" >&2
  exit 1
fi
echo "apt-install: installing Debian's $*"
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get update -qq || ! "${as_root[@]}" apt-get install -y -qq "$@" >/dev/null; then
  echo "apt-install: FAILED: apt-get could not install $*" >&2
  exit 1
fi
