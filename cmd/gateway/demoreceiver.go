package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const demoReceiverUsage = `usage: gateway demo receiver [--addr 127.0.0.1:8099] [--merchant-file FILE]
                            [--api-key KEY] [--webhook-secret whsec_...] [--redis-url URL]

  receiver   a merchant's webhook endpoint for trying the gateway (make run
             starts one): prints each webhook it gets and whether its MD5
             sign (the API key) and its webhook-signature (the webhook
             secret) verify, and answers success when the sign verifies;
             an endpoint event (a JSON body) is verified with the secrets
             of the merchant's webhook endpoints, read from Redis, and
             answered 204. GET / shows the last webhooks. Loopback
             addresses only.
`

// defaultReceiverAddr is where make run's receiver listens; make run's
// printed create names it as notify_url.
const defaultReceiverAddr = "127.0.0.1:8099"

// receiverKept is how many printed webhooks GET / shows.
const receiverKept = 20

// receiverMaxBody bounds a webhook body: a real one is well under 2 KiB.
const receiverMaxBody = 64 << 10

func demoReceiverCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := subFlags("demo", "receiver", "[--addr ADDR] [--merchant-file FILE] [--api-key KEY] [--webhook-secret SECRET] [--redis-url URL]", args, stdout, stderr)
	addr := fs.String("addr", defaultReceiverAddr, "where to listen: a loopback address")
	file := fs.String("merchant-file", ".data/run/demo-merchant.json",
		"the merchant whose keys check the webhooks: a `merchant create --json` printout, read at each webhook (make run keeps it current)")
	apiKey := fs.String("api-key", "", "the API key the sign is checked with (instead of the file's)")
	secret := fs.String("webhook-secret", "", "the whsec_ secret webhook-signature is checked with (instead of the file's)")
	redisFlag := bindRedis(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("demo receiver: takes no arguments\n%s", demoReceiverUsage)
	}
	if err := loopbackAddr(*addr); err != nil {
		return fmt.Errorf("demo receiver: %w", err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("demo receiver: listen on %s: %w", *addr, err)
	}
	r := &receiver{keys: receiverKeys{file: *file, apiKey: *apiKey, secret: *secret}, out: stdout, now: time.Now}
	if rdb, err := redisFlag.open(ctx); err == nil {
		defer rdb.Close()
		if st, err := cliEndpoints(rdb); err == nil {
			r.endpoints = storeSecrets(st, *file)
		}
	}
	fmt.Fprintf(stdout, "demo receiver: webhooks to http://%s/ are printed here and answered success when their sign verifies\n", ln.Addr())
	return r.serve(ctx, ln)
}

// loopbackAddr refuses an address other machines could reach: the
// receiver prints what it is sent and answers anyone.
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--addr %q: listens on loopback only (127.0.0.1 or ::1)", addr)
	}
	return nil
}

// receiver prints each webhook and keeps the last few for GET /.
type receiver struct {
	keys receiverKeys
	// endpoints are the demo merchant's endpoint secrets; nil: events
	// are not verified (no Redis).
	endpoints endpointSecrets
	out       io.Writer
	now       func() time.Time

	mu   sync.Mutex
	last []string
}

func (r *receiver) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("demo receiver: %w", err)
	}
	return nil
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if isEpayNotification(req) {
		r.serveEpay(w, req)
		return
	}
	if req.Method != http.MethodPost {
		r.showLast(w)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, receiverMaxBody))
	if err != nil {
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	text, ok := r.check(req, body)
	event := strings.HasPrefix(req.Header.Get("Content-Type"), "application/json")
	r.remember(text)
	if !ok {
		// SPEC.md's first rule for a receiver: reject what does not verify.
		http.Error(w, "sign does not verify", http.StatusBadRequest)
		return
	}
	if event {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	_, _ = io.WriteString(w, "success")
}

// remember prints one webhook's printout and keeps it for GET /.
func (r *receiver) remember(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprint(r.out, text)
	r.last = append(r.last, text)
	if len(r.last) > receiverKept {
		r.last = r.last[len(r.last)-receiverKept:]
	}
}

// check is the printout of one webhook, and whether to accept it.
func (r *receiver) check(req *http.Request, body []byte) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n---- webhook %s UTC  POST %s\n", r.now().UTC().Format("15:04:05"), req.URL.Path)
	for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		if v := req.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "  %-18s %s\n", h+":", printable([]byte(v)))
		}
	}
	if strings.HasPrefix(req.Header.Get("Content-Type"), "application/json") {
		ok := r.checkEvent(req, body, &b)
		return b.String(), ok
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		fmt.Fprintf(&b, "  not a form body (%v): %.200q\n  answered 400\n", err, body)
		return b.String(), false
	}
	// The body as sent: what the HMAC covers, and what the console's
	// signature debugger takes.
	fmt.Fprintf(&b, "  %-18s %s\n", "body:", printable(body))
	names := make([]string, 0, len(form))
	for k := range form {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  %-18s %s\n", printable([]byte(k)), printable([]byte(form.Get(k))))
	}
	apiKey, secret, err := r.keys.load()
	if err != nil {
		fmt.Fprintf(&b, "  (%v)\n", err)
	}
	sign := checkSign(form, apiKey)
	fmt.Fprintf(&b, "  MD5 sign (API key):                   %s\n", sign)
	fmt.Fprintf(&b, "  webhook-signature (webhook secret):   %s\n", checkHMAC(req.Header, body, secret, r.now()))
	if sign.OK {
		b.WriteString("  answered: success\n")
	} else {
		b.WriteString("  answered: 400 (a receiver rejects a webhook whose sign does not verify; the gateway retries)\n")
	}
	return b.String(), sign.OK
}

// showLast answers GET with the last webhooks, for a make run whose
// terminal is elsewhere.
func (r *receiver) showLast(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.last) == 0 {
		_, _ = io.WriteString(w, "no webhooks yet\n")
		return
	}
	for _, text := range r.last {
		_, _ = io.WriteString(w, text)
	}
}

// printable is a body, name or value as one line: quoted when it holds
// control characters, so that what a sender chose cannot break the printout
// or forge a verdict line in it.
func printable(body []byte) string {
	for _, c := range body {
		if c < 0x20 || c == 0x7f {
			return strconv.Quote(string(body))
		}
	}
	return string(body)
}
