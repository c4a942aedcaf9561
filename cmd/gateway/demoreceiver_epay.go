package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/paygate/gateway/epay"
)

// isEpayNotification tells the epay door's paid notification (a GET with
// the order in its query) from a GET for the last webhooks.
func isEpayNotification(req *http.Request) bool {
	q := req.URL.Query()
	return req.Method == http.MethodGet && q.Get("trade_status") != "" && q.Get("sign") != ""
}

// checkEpay is the printout of one epay-form notification and whether to
// accept it: the protocol's MD5 (empty values left out) with the API key,
// as a plugin checks it.
func (r *receiver) checkEpay(req *http.Request) (string, bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n---- epay notification %s UTC  GET %s\n", r.now().UTC().Format("15:04:05"), req.URL.Path)
	q := req.URL.Query()
	p := epay.Params{}
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
		p[k] = q.Get(k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&b, "  %-18s %s\n", printable([]byte(k)), printable([]byte(q.Get(k))))
	}
	apiKey, _, err := r.keys.load()
	if err != nil {
		fmt.Fprintf(&b, "  (%v)\n", err)
	}
	ok := apiKey != "" && len(q["sign"]) == 1 && epay.Verify(p, apiKey)
	if ok {
		b.WriteString("  epay MD5 sign (API key):             verified\n  answered: success\n")
	} else {
		b.WriteString("  epay MD5 sign (API key):             NOT verified\n  answered: fail (the gateway retries)\n")
	}
	return b.String(), ok
}

// serveEpay prints and answers one epay-form notification.
func (r *receiver) serveEpay(w http.ResponseWriter, req *http.Request) {
	text, ok := r.checkEpay(req)
	r.remember(text)
	if !ok {
		// The protocol's receivers answer anything but success to refuse.
		_, _ = w.Write([]byte("fail"))
		return
	}
	_, _ = w.Write([]byte("success"))
}
