package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/paygate/gateway/schema"
)

// tryPost is post for goroutines the test starts: it returns what went wrong
// instead of calling the test's Fatal, which only the test's own goroutine
// may call (FailNow ends the goroutine it runs on, not the test).
func (h *harness) tryPost(p schema.Params) (*response, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	req := httptest.NewRequest(http.MethodPost, "/api/createorder", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	res, err := h.serve(req)
	if err != nil {
		return nil, fmt.Errorf("POST /api/createorder: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	r := &response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			return nil, fmt.Errorf("decode %s: %w", raw, err)
		}
	}
	return r, nil
}
