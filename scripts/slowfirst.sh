#!/usr/bin/env bash
# slowfirst.sh PACKAGES...: prints the import paths of the packages (go list
# patterns, e.g. ./...), the slowest tests first, for `make test`. go test
# starts packages in the order it is given, two at a time on a 2-core
# machine; in import-path order the browser packages (web/...) came last,
# so the run ended with one of them alone for a minute. Started first, the
# long ones run beside the many short ones instead. Only the order changes:
# a package not listed here runs after them as before; one listed but not
# asked for is not added.
set -euo pipefail
scripts=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$scripts/lib.sh"
[ $# -gt 0 ] || die "usage: slowfirst.sh PACKAGES..."
GO=${GO:-go}

# The slowest packages of `make test`, slowest first (seconds each on the
# 2-core machine, 2026-11-28): the end-to-end tests of the real binary
# (~120), the operator console's browser tests (~105), the merchant
# console's (~65 and ~60), the listing and report queries on ClickHouse
# (~45), the webhook dispatcher (~20).
slow=(cmd/gateway web/admin web/console web/console/account query dispatcher)

module=$("$GO" list -m)
pkgs=$("$GO" list "$@")
for s in "${slow[@]}"; do
	grep -Fx "$module/$s" <<<"$pkgs" || true
done
grep -Fvx -f <(printf '%s\n' "${slow[@]/#/$module/}") <<<"$pkgs" || true
