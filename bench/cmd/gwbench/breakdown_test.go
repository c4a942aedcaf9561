package main

import (
	"strings"
	"testing"
)

func TestParseMonitor(t *testing.T) {
	lines := []string{
		`OK`,
		`1700000000.100000 [0 127.0.0.1:5000] "EVALSHA" "AB12" "7" "o:{01}:P1"`,
		`1700000000.100001 [0 lua] "HSET" "o:{01}:P1" "amt" "100"`,
		`1700000000.100002 [0 lua] "XADD" "ev:{01}" "*" "type" "created"`,
		`1700000000.100003 [0 127.0.0.1:5001] "EVALSHA" "ab12" "7" "o:{01}:P2"`,
		`1700000000.100004 [0 lua] "HSET" "o:{01}:P2" "amt" "100"`,
		`1700000000.100005 [0 127.0.0.1:5002] "HSET" "x" "a" "b"`,
		`1700000000.100006 [0 127.0.0.1:5003] "INFO" "commandstats"`,
	}
	s := parseMonitor(lines)
	tests := []struct {
		name string
		got  int
		want int
	}{
		{"evalsha sent by clients", s.client["evalsha"], 2},
		{"hset run by scripts", s.script["hset"], 2},
		{"hset sent by a client", s.client["hset"], 1},
		{"xadd run by scripts", s.script["xadd"], 1},
		{"info sent by a client", s.client["info"], 1},
		{"the script's sha, case folded", s.shas["ab12"], 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
	from := s.fromScripts()
	if from["hset"] < 0.66 || from["hset"] > 0.67 || from["xadd"] != 1 || from["evalsha"] != 0 {
		t.Fatalf("shares from scripts: %v", from)
	}
}

func TestCommandsPerCreate(t *testing.T) {
	before := map[string]cmdStat{"evalsha": {Calls: 10, Usec: 100}, "hset": {Calls: 5, Usec: 10}}
	after := map[string]cmdStat{"evalsha": {Calls: 110, Usec: 2600}, "hset": {Calls: 205, Usec: 410}, "info": {Calls: 1, Usec: 50}}
	got := commandsPerCreate(commandDelta(before, after), 100, map[string]float64{"hset": 1})
	if len(got) != 3 || got[0].Name != "evalsha" || got[0].UsPerCreate != 25 || got[0].CallsPerCreate != 1 || got[0].UsPerCall != 25 {
		t.Fatalf("evalsha first at 25 µs per create: %+v", got)
	}
	r := redisBreakdown{CPUPerCreate: 40, Commands: got}
	// hset ran inside the scripts: only evalsha (25) and info (0.5) count.
	if top := r.topLevelUs(); top != 25.5 {
		t.Fatalf("top-level µs per create %v, want 25.5", top)
	}
	if commandsPerCreate(nil, 0, nil) != nil {
		t.Fatal("no creates must give no shares")
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		frames string // leaf first, separated by |
		want   string
	}{
		{"a write to Redis's socket", "[k] tcp_sendmsg|syscall.Syscall6|internal/poll.(*FD).Write|bufio.(*Writer).Flush|github.com/redis/go-redis/v9.(*baseClient).pipelineProcessCmds|github.com/valyala/fasthttp.(*Server).serveConn", "Redis client (go-redis, Batcher, pipelines)"},
		{"a read of the request", "[k] tcp_recvmsg|syscall.Syscall6|internal/poll.(*FD).Read|github.com/valyala/fasthttp.(*Server).serveConn", "HTTP server (fasthttp, fiber)"},
		{"an allocation while parsing", "runtime.mallocgc|github.com/paygate/gateway/command.(*scanner).str|github.com/paygate/gateway/command.scanObject", "allocation and GC"},
		{"the JSON scanner itself", "github.com/paygate/gateway/command.(*scanner).str|github.com/paygate/gateway/command.scanObject|github.com/valyala/fasthttp.(*Server).serveConn", "JSON parse and answer"},
		{"MD5 of the sign base", "crypto/md5.block|crypto/md5.(*digest).Write|github.com/paygate/gateway/schema.Sign", "signature (MD5 sign and verify)"},
		{"a thread parked", "[k] finish_task_switch.isra.0|[k] schedule|runtime.futex|runtime.notesleep|runtime.stopm", "goroutine scheduling and hand-offs"},
		{"a histogram observed", "github.com/prometheus/client_golang/prometheus.(*histogram).Observe|github.com/paygate/gateway/web/server.(*httpMetrics).observe", "metrics (Prometheus)"},
		{"our own step", "strconv.FormatInt|github.com/paygate/gateway/schema.(*Order).eachField|github.com/paygate/gateway/command.(*Store).Create", "the create's own steps (checks, ids, fields, routing)"},
		{"an interrupt", "[k] handle_softirqs|[k] irq_exit_rcu", kernelOnly},
		{"an unnamed library", "runtime.memmove|main.unknown", otherWork},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(strings.Split(tc.frames, "|")); got != tc.want {
				t.Fatalf("classified %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadSamplesAndShares(t *testing.T) {
	script := `
	ffffffff8123 finish_task_switch.isra.0 ([kernel.kallsyms])
	4a5b6c runtime.futex (/tmp/gateway)

	4a5b6d github.com/redis/go-redis/v9.(*baseClient).process (/tmp/gateway)

	4a5b6e github.com/redis/go-redis/v9.(*Pipeline).Exec (/tmp/gateway)
	4a5b6f github.com/valyala/fasthttp.(*Server).serveConn (/tmp/gateway)
`
	counts := map[string]int{}
	if err := readSamples(strings.NewReader(script), func(f []string) { counts[classify(f)]++ }); err != nil {
		t.Fatal(err)
	}
	if counts["Redis client (go-redis, Batcher, pipelines)"] != 2 || counts["goroutine scheduling and hand-offs"] != 1 {
		t.Fatalf("counts %v", counts)
	}
	sh := shares(counts, 30)
	if len(sh) != 2 || sh[0].UsPerCreate != 20 || sh[0].Share != 66.67 || sh[1].UsPerCreate != 10 {
		t.Fatalf("shares %+v", sh)
	}
}

func TestClassifyRedis(t *testing.T) {
	tests := []struct {
		name   string
		frames string
		want   string
	}{
		{"fsync of the AOF", "[k] ext4_sync_file|[k] do_fsync|[k] __x64_sys_fdatasync|[k] do_syscall_64|fdatasync", "AOF fsync (fdatasync)"},
		{"a reply's send", "[k] tcp_sendmsg|[k] sock_write_iter|[k] do_iter_readv_writev|[k] do_writev|__GI___writev", "replies to clients (writev, write)"},
		{"the AOF's write", "[k] ext4_buffered_write_iter|[k] vfs_write|[k] ksys_write|__GI___libc_write", "AOF write"},
		{"a request's read", "[k] tcp_recvmsg|[k] sock_read_iter|[k] ksys_read|read", "reading requests (read)"},
		{"a thread switch", "[k] finish_task_switch.isra.0|[k] schedule", "kernel, other (scheduling, interrupts, network stack on Redis's time)"},
		{"a key lookup", "dictFind|[unknown]", "key and command lookups (dict)"},
		{"the AOF buffer", "catAppendOnlyGenericCommand|[unknown]", "AOF and propagation (commands written to the AOF buffer)"},
		{"an allocation", "malloc_usable_size", "memory allocator"},
		{"a listpack insert", "lpInsert", "the commands' data structures (hash, stream, list)"},
		{"the Lua VM", "luaV_execute", "Lua (the scripts' VM and its calls into Redis)"},
		{"a static function", "[unknown]", "unnamed functions of the Redis binary (static; Lua's VM among them)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := classifyRedis(strings.Split(tc.frames, "|")); got != tc.want {
				t.Fatalf("classified %q, want %q", got, tc.want)
			}
		})
	}
}
