package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
)

// component is a part of the gateway's work per create, named by the
// function names (substrings) that belong to it.
type component struct {
	Name  string
	Marks []string
}

// components are checked frame by frame from a sample's leaf toward its
// root, and within a frame in this order: the first that names the frame
// takes the sample. So an allocation made while parsing JSON is
// "allocation and GC" (what it costs is the allocator's and collector's
// work), a system call made by the Redis client is the Redis client's, and
// our own code's share is what no library or runtime part below it took.
var components = []component{
	{"allocation and GC", []string{"runtime.mallocgc", "runtime.gcBgMarkWorker", "runtime.gcDrain", "runtime.bgsweep",
		"runtime.sweepone", "runtime.gcAssist", "runtime.(*mheap)", "runtime.(*mcache)", "runtime.(*mcentral)",
		"runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.scanobject", "gc/scan.",
		"runtime.tryDeferToSpanScan", "runtime.markroot", "runtime.gcStart", "runtime.memclrNoHeapPointers",
		"runtime.(*gcWork)", "runtime.greyobject", "runtime.findObject", "runtime.scanObjectsSmall", "runtime.rawstring",
		"runtime.concatstring", "runtime.slicebytetostring", "runtime.makemap"}},
	{"goroutine scheduling and hand-offs", []string{"runtime.schedule", "runtime.findRunnable", "runtime.park_m",
		"runtime.goready", "runtime.ready", "runtime.notewakeup", "runtime.notesleep", "runtime.futex", "runtime.mcall",
		"runtime.gopark", "runtime.wakep", "runtime.startm", "runtime.stopm", "runtime.netpoll", "runtime.selectgo",
		"runtime.chansend", "runtime.chanrecv", "runtime.closechan", "runtime.goexit0", "runtime.newproc",
		"runtime.usleep", "runtime.osyield", "runtime.sysmon", "runtime.mstart", "runtime.exitsyscall",
		"runtime.entersyscall", "runtime.semrelease", "runtime.semacquire", "sync.(*Mutex)", "runtime.lock2",
		"runtime.unlock2"}},
	{"metrics (Prometheus)", []string{"client_golang/prometheus", "web/server.(*httpMetrics)"}},
	{"logging (slog)", []string{"log/slog"}},
	{"rate limit", []string{"platform.(*Limiter)", "platform.(*lease", "platform.(*leases", "web/server.rateLimit",
		"platform.(*RateLimiter)"}},
	{"signature (MD5 sign and verify)", []string{"crypto/md5", "schema.Sign", "schema.VerifySign", "schema.SignBase",
		"merchant.AuthenticateForm", "merchant.(*Store).Authenticate", "crypto/subtle"}},
	{"JSON parse and answer", []string{"command.scanObject", "command.ParseJSONParams", "command.(*scanner)",
		"command.parseCreate", "web/api.createAnswer", "web/api.sendCreateAnswer", "web/api.appendJSON",
		"encoding/json"}},
	{"Redis client (go-redis, Batcher, pipelines)", []string{"github.com/redis/go-redis", "platform.(*Batcher)",
		"platform.execBatch", "platform.Batched", "platform.EvalPipelined"}},
	{"HTTP server (fasthttp, fiber)", []string{"github.com/valyala/fasthttp", "github.com/gofiber/fiber"}},
	{"the create's own steps (checks, ids, fields, routing)", []string{"paygate/gateway/"}},
}

// kernelOnly is a sample with no frame of the gateway's own: interrupts
// and network work the kernel did on the gateway's time.
const (
	kernelOnly = "kernel with no Go caller (interrupts, softirq network work)"
	otherWork  = "other (runtime and libraries not named above)"
)

// classify gives a sample (its frames, leaf first) to a component.
func classify(frames []string) string {
	user := false
	for _, f := range frames {
		if !strings.HasPrefix(f, "[k]") {
			user = true
		}
		for _, c := range components {
			for _, m := range c.Marks {
				if strings.Contains(f, m) {
					return c.Name
				}
			}
		}
	}
	if !user {
		return kernelOnly
	}
	return otherWork
}

// componentShare is one component's share of the gateway's samples.
type componentShare struct {
	Name        string  `json:"component"`
	Share       float64 `json:"share"`
	UsPerCreate float64 `json:"us_per_create"`
}

// readSamples parses `perf script -F ip,sym,dso` output: a sample is its
// frames, one a line ("\tADDR SYMBOL (DSO)"), leaf first, then a blank
// line. Kernel frames are marked "[k] ".
func readSamples(r io.Reader, each func(frames []string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var frames []string
	flush := func() {
		if len(frames) > 0 {
			each(frames)
		}
		frames = frames[:0]
	}
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" {
			flush()
			continue
		}
		_, rest, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		sym, dso, _ := strings.Cut(rest, " (")
		if strings.Contains(dso, "kernel") {
			sym = "[k] " + sym
		}
		frames = append(frames, sym)
	}
	flush()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read perf script: %w", err)
	}
	return nil
}

// shares counts samples by component; µs per create is the share of the
// gateway's CPU per create, given.
func shares(counts map[string]int, usPerCreate float64) []componentShare {
	var total int
	for _, n := range counts {
		total += n
	}
	if total == 0 {
		return nil
	}
	var out []componentShare
	for name, n := range counts {
		sh := float64(n) / float64(total)
		out = append(out, componentShare{Name: name, Share: round2(sh * 100), UsPerCreate: round2(sh * usPerCreate)})
	}
	slices.SortFunc(out, func(a, b componentShare) int { return largestFirst(a.Share, b.Share, a.Name, b.Name) })
	return out
}

// perfShares runs perf script on the recording at path and divides
// usPerCreate by what classify makes of each sample.
func perfShares(ctx context.Context, path string, classify func([]string) string, usPerCreate float64) ([]componentShare, error) {
	cmd := exec.CommandContext(ctx, "perf", "script", "-i", path, "-F", "ip,sym,dso")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start perf script: %w", err)
	}
	counts := map[string]int{}
	rerr := readSamples(out, func(frames []string) { counts[classify(frames)]++ })
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	if rerr != nil {
		return nil, rerr
	}
	return shares(counts, usPerCreate), nil
}

// redisParts name Redis's work by the leaf function a sample is in (the
// Redis binary keeps no frame pointers, so only its kernel call chains
// are whole): for a sample in the kernel, the system call its chain
// reaches; else the leaf's name, checked in this order.
var redisParts = []component{
	{"AOF fsync (fdatasync)", []string{"[k] __x64_sys_fdatasync", "[k] __x64_sys_fsync", "[k] do_fsync"}},
	{"replies to clients (writev, write)", []string{"[k] do_writev", "[k] sock_write_iter"}},
	{"AOF write", []string{"[k] ksys_write", "[k] vfs_write"}},
	{"reading requests (read)", []string{"[k] ksys_read", "[k] sock_read_iter", "[k] tcp_recvmsg"}},
	{"event loop wait (epoll)", []string{"[k] do_epoll_wait", "[k] __x64_sys_epoll_wait"}},
	{"Lua (the scripts' VM and its calls into Redis)", []string{"lua", "Lua", "scriptCall", "luaRedis", "ldo", "lvm"}},
	{"AOF and propagation (commands written to the AOF buffer)", []string{"AppendOnly", "propagate", "Propagate", "sdscat", "sdsMakeRoomFor", "sdsnewlen"}},
	{"request parsing and replies (Redis's side)", []string{"processMultibulkBuffer", "processInputBuffer", "readQueryFromClient", "addReply", "_addReply", "writeToClient", "_writeToClient", "createStringObject", "createEmbeddedStringObject", "string2ll", "strchr", "memchr"}},
	{"key and command lookups (dict)", []string{"dict", "siphash", "lookupKey", "lookupCommand"}},
	{"memory allocator", []string{"malloc", "free", "realloc", "zmalloc", "zfree", "zrealloc", "je_", "decrRefCount", "incrRefCount"}},
	{"the commands' data structures (hash, stream, list)", []string{"lp", "hashType", "stream", "rax", "list", "quicklist", "Command"}},
	{"stats and clocks", []string{"hdr_", "gettimeofday", "clock_gettime", "ustime", "mstime", "Latency", "latency"}},
}

// classifyRedis gives a Redis sample (frames leaf first) to a part.
func classifyRedis(frames []string) string {
	if len(frames) == 0 {
		return otherWork
	}
	if strings.HasPrefix(frames[0], "[k]") {
		for _, f := range frames {
			for _, c := range redisParts[:5] {
				for _, m := range c.Marks {
					if strings.HasPrefix(f, m) {
						return c.Name
					}
				}
			}
		}
		return "kernel, other (scheduling, interrupts, network stack on Redis's time)"
	}
	leaf := frames[0]
	if strings.HasPrefix(leaf, "[unknown]") {
		return "unnamed functions of the Redis binary (static; Lua's VM among them)"
	}
	for _, c := range redisParts[5:] {
		for _, m := range c.Marks {
			if strings.Contains(leaf, m) {
				return c.Name
			}
		}
	}
	return "other functions of Redis"
}

// largestFirst orders by x descending, then by name.
func largestFirst(x, y float64, nx, ny string) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return strings.Compare(nx, ny)
}
