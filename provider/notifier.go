package provider

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Notifier is how a simulator sends a notification the way its provider
// does: again and again until the answer is the one the protocol expects
// (`success`, `YES`, a 200), on a schedule like the provider's.
type Notifier struct {
	Client *http.Client
	// Delays are the waits before each further attempt; the provider's own
	// schedule is minutes to hours, the sandbox's default is seconds.
	Delays []time.Duration
	Log    *slog.Logger
}

// DefaultSimDelays is the sandbox's retry schedule.
var DefaultSimDelays = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute}

// Send makes the first attempt and returns its result; when it was not
// accepted, the further attempts go on in the background. newReq builds a
// fresh request for each attempt; accepted judges an answer.
func (n *Notifier) Send(ctx context.Context, newReq func(context.Context) (*http.Request, error), accepted func(status int, body []byte) bool) error {
	err := n.attempt(ctx, newReq, accepted)
	if err == nil {
		return nil
	}
	go n.retry(context.WithoutCancel(ctx), newReq, accepted)
	return err
}

func (n *Notifier) retry(ctx context.Context, newReq func(context.Context) (*http.Request, error), accepted func(int, []byte) bool) {
	delays := n.Delays
	if delays == nil {
		delays = DefaultSimDelays
	}
	for i, d := range delays {
		time.Sleep(d)
		err := n.attempt(ctx, newReq, accepted)
		if err == nil {
			return
		}
		if n.Log != nil {
			n.Log.Warn("simulated notification not accepted", "attempt", i+2, "err", err)
		}
	}
}

func (n *Notifier) attempt(ctx context.Context, newReq func(context.Context) (*http.Request, error), accepted func(int, []byte) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := newReq(ctx)
	if err != nil {
		return fmt.Errorf("build notification: %w", err)
	}
	client := n.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("send notification: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if !accepted(res.StatusCode, body) {
		return fmt.Errorf("notification answered HTTP %d %q", res.StatusCode, body)
	}
	return nil
}
