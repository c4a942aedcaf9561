package rails

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/paygate/gateway/payout"
	"github.com/paygate/gateway/schema"
)

// Sim is a rail over a sandbox chain simulator (tron or bsc) at BaseURL.
type Sim struct {
	BaseURL string
	HTTP    *http.Client
}

// NewSim is the rail of the simulator at baseURL (hc nil: a client of
// 15 s per call).
func NewSim(baseURL string, hc *http.Client) *Sim {
	if hc == nil {
		hc = &http.Client{Timeout: 15 * time.Second}
	}
	return &Sim{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: hc}
}

// Lookup asks the simulator for the transfer made under ref.
func (s *Sim) Lookup(ctx context.Context, ref string) (payout.Transfer, bool, error) {
	a, status, err := s.call(ctx, LookupPath, Ask{Reference: ref})
	if err != nil {
		return payout.Transfer{}, false, err
	}
	if status != http.StatusOK {
		return payout.Transfer{}, false, fmt.Errorf("simulator lookup: HTTP %d %s", status, a.Error)
	}
	return payout.Transfer{TxHash: a.Hash}, a.Found, nil
}

// Send makes the transfer; the simulator refusing it (a bad address) is a
// refusal, anything else unanswered is "we do not know".
func (s *Sim) Send(ctx context.Context, ref, address string, amount schema.Amount) (payout.Transfer, error) {
	a, status, err := s.call(ctx, TransferPath, Ask{Reference: ref, To: address, Amount: amount.String()})
	switch {
	case err != nil:
		return payout.Transfer{}, err
	case status == http.StatusUnprocessableEntity:
		return payout.Transfer{Refused: true, Reason: a.Error}, nil
	case status != http.StatusOK || a.Hash == "":
		return payout.Transfer{}, fmt.Errorf("simulator transfer: HTTP %d %s", status, a.Error)
	}
	return payout.Transfer{TxHash: a.Hash}, nil
}

func (s *Sim) call(ctx context.Context, path string, ask Ask) (Answer, int, error) {
	body, _ := json.Marshal(ask)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return Answer{}, 0, fmt.Errorf("simulator request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := s.HTTP.Do(req)
	if err != nil {
		return Answer{}, 0, fmt.Errorf("simulator %s: %w", path, err)
	}
	defer res.Body.Close()
	var a Answer
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	if err != nil {
		return a, 0, fmt.Errorf("simulator %s: %w", path, err)
	}
	if json.Unmarshal(b, &a) != nil && res.StatusCode == http.StatusOK {
		return a, 0, fmt.Errorf("simulator %s: an answer that is not JSON", path)
	}
	return a, res.StatusCode, nil
}

// Count is the simulator's record of ref: the first transfer's hash and how
// many transfers were made under it (more than one: a payout sent twice).
// The sandbox's own witness, for tests and the chaos suite.
func (s *Sim) Count(ctx context.Context, ref string) (Answer, error) {
	a, status, err := s.call(ctx, LookupPath, Ask{Reference: ref})
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("simulator lookup: HTTP %d %s", status, a.Error)
	}
	return a, err
}
