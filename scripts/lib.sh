# shellcheck shell=bash
# Helpers shared by the scripts in this folder. Sourced, never run.
# Everything here must work on a bare Debian: bash, coreutils and grep (ss if present).

# Every script that builds or tests sources this file, so they all use the
# toolchain that carries the standard library's security fixes (the Makefile,
# .ci/run and go.mod's toolchain line name the same one; the go command fetches
# it from the module proxy). An exported GOTOOLCHAIN wins, as in the Makefile.
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"

log() { echo "${0##*/}: $*" >&2; }
die() { log "$*"; exit 1; }

# port_in_use PORT: true when something already listens on the TCP port.
# ss sees listeners on any address; the /dev/tcp probe covers machines without it.
port_in_use() {
	if command -v ss >/dev/null 2>&1 && [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; then
		return 0
	fi
	# shellcheck disable=SC2016 # $1 is expanded by the inner bash
	timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

# free_port [EXCEPT...]: prints a loopback TCP port nobody listens on.
# Picked at random below Linux's ephemeral range (32768+), so an outgoing
# connection cannot be holding it, and away from the usual fixed ports.
free_port() {
	local port _
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 12000))
		case " $* " in *" $port "*) continue ;; esac
		port_in_use "$port" || { echo "$port"; return 0; }
	done
	die "no free TCP port found"
}

# free_cluster_port [EXCEPT...]: a free port for a Redis Cluster node whose
# cluster bus (port+10000) is free too, both below Linux's ephemeral range
# (32768+), so no outgoing connection can be holding the bus port when the
# node binds it.
free_cluster_port() {
	local port _
	for _ in $(seq 1 200); do
		port=$((12000 + RANDOM % 10000))
		case " $* " in *" $port "* | *" $((port + 10000)) "* | *" $((port - 10000)) "*) continue ;; esac
		port_in_use "$port" || port_in_use $((port + 10000)) || { echo "$port"; return 0; }
	done
	die "no free TCP port pair for a cluster node found"
}

# running_pid PIDFILE WORD: prints the pid from PIDFILE when that process is
# alive and its command line contains WORD. The check on the command line
# keeps a stale pidfile (pid since reused by another program) from making us
# signal a stranger.
running_pid() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q -- "$2" || return 1
	echo "$pid"
}

# alive PID: true while the process runs. A daemon that has exited stays a
# zombie until init reaps it (seconds, where init is not a real init), and
# kill -0 still succeeds on a zombie.
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# stop_pid PID NAME: SIGTERM (a clean shutdown for Redis and ClickHouse), wait
# up to STOP_TIMEOUT seconds, then SIGKILL so a stop never hangs forever.
stop_pid() {
	local pid=$1 name=$2 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < ${STOP_TIMEOUT:-60} * 10; i++)); do
		alive "$pid" || return 0
		sleep 0.1
	done
	log "$name (pid $pid) ignored SIGTERM for ${STOP_TIMEOUT:-60}s; killing it"
	kill -KILL "$pid" 2>/dev/null || true
}

# wait_until SECONDS CMD...: retries CMD every 0.2s until it succeeds; false on time-out.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

# abs_dir DIR: creates DIR and prints its absolute path (the servers' configs
# need absolute paths, and daemons change their working directory).
abs_dir() { mkdir -p "$1" && (cd "$1" && pwd -P); }
