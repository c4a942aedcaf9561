#!/usr/bin/env bash
# Installs what a task needs, from Debian's packages when their commands are
# missing; a package that cannot be installed is an error, as the tests fail
# without it under CI=true. Says nothing when all is there.
#
#   scripts/deps.sh run    what running needs (`make run`): Redis, ClickHouse
#                          and make
#   scripts/deps.sh test   (the default) that, and what the tests need:
#                          promtool (Debian's prometheus package) for the
#                          metric and rule checks, Chromium and a CJK font for
#                          the browser tests (internal/browser), npm for
#                          axe-core, their accessibility checker, and for
#                          the SDK and OpenAPI tools (scripts/npm-tools.sh),
#                          PHP (with curl), Python and Node for the SDKs
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

mode=${1:-test}
case "$mode" in run | test) ;; *) die "usage: scripts/deps.sh [run|test]" ;; esac

missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need make make
need redis-server redis-server
need redis-cli redis-tools
# A current ClickHouse install has one `clickhouse` binary that does both.
if ! command -v clickhouse >/dev/null 2>&1; then
	need clickhouse-server clickhouse-server
	need clickhouse-client clickhouse-client
fi
# The test tools, only when testing.
test_deps() {
	[ "$mode" = test ] || return 0
	need promtool prometheus
	# npm fetches axe-core, the accessibility checker of the browser tests
	# (scripts/axe.sh, run at the end).
	need npm npm
	# Any Chromium or Chrome the tests can find (internal/browser) will do; a
	# CHROMIUM variable naming one counts too.
	if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 &&
		! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
		missing+=(chromium)
	fi
	# The zh pages need a CJK font in the browser the tests and screenshots use
	# (a payer's phone has one; a server does not).
	if ! dpkg-query -W -f='${Status}' fonts-wqy-microhei 2>/dev/null | grep -q 'ok installed'; then
		missing+=(fonts-wqy-microhei)
	fi
	# The SDKs' own test runners (make test-sdk): PHP with curl for sdk/php
	# and the epay door's end-to-end client, Python for sdk/python; node
	# (with npm above) runs sdk/node.
	need php php-cli
	if ! php -m 2>/dev/null | grep -qx curl; then
		missing+=(php-curl)
	fi
	need python3 python3
	need node nodejs
}
test_deps
# axe-core, from npm, for the browser tests; the SDK and OpenAPI tools too.
axe() { [ "$mode" = run ] || { "$(dirname "$0")/axe.sh" && "$(dirname "$0")/npm-tools.sh"; }; }
if [ ${#missing[@]} -eq 0 ]; then
	axe
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || die "need root or sudo to install: ${missing[*]}"
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
log "installing ${missing[*]}"
# Refresh the package lists only when apt does not know a package yet (a
# fresh machine or container starts with none).
for p in "${missing[@]}"; do
	if ! apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [^(]'; then
		"${sudo[@]}" apt-get update -qq
		break
	fi
done
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "could not install ${missing[*]}"
# The packages may start their own services on the default ports (6379, 9000,
# and Prometheus on 9090), which `make run` and docker compose want; we run our
# own servers, so stop the ones we just installed.
for svc in "${missing[@]}"; do
	[[ $svc == *-server || $svc == prometheus ]] || continue
	if [ -d /run/systemd/system ]; then
		"${sudo[@]}" systemctl disable --now "$svc"
	else
		"${sudo[@]}" service "$svc" stop
	fi
done >/dev/null 2>&1 || true
axe
