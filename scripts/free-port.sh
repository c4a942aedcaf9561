#!/usr/bin/env bash
# Prints a free loopback TCP port; ports given as arguments are never chosen.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
free_port "$@"
