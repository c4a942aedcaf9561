package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/paygate/gateway/schema"
)

// apiAnswer is the gateway's JSON envelope.
type apiAnswer struct {
	Code  int            `json:"code"`
	Error string         `json:"error"`
	Data  map[string]any `json:"data"`
	raw   string         // the body's start, for a failure's detail
}

// createOrder sends one signed create and records it with its answer.
// fresh is false when the answer was an idempotent replay of an order the
// same clientOrderId made before.
func (l *Load) createOrder(ctx context.Context, w int, a Account, p schema.Params) (id string, fresh bool, err error) {
	p["appid"], p["action"], p["clientip"] = a.AppID, "createorder", "127.0.0.1"
	p["notify_url"] = l.c.Recv.URL()
	p["sign"] = schema.Sign(p, a.APIKey)
	body, _ := json.Marshal(p)
	status, ans, err := l.post(ctx, l.base(w)+"/api/createorder", "application/json", body)
	rec := Create{AppID: a.AppID, ClientOrderID: p["clientOrderId"], HTTPStatus: status}
	id, _ = ans.Data["paymentId"].(string)
	replay, _ := ans.Data["idempotent"].(bool)
	if err == nil && status/100 == 2 && id != "" {
		rec.PaymentID = id
	} else if err == nil {
		err = &statusError{step: "create", status: status, body: ans.raw}
	}
	l.mu.Lock()
	l.creates = append(l.creates, rec)
	l.mu.Unlock()
	return rec.PaymentID, !replay, err
}

func (l *Load) post(ctx context.Context, u, ctype string, body []byte) (int, apiAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, apiAnswer{}, err
	}
	req.Header.Set("Content-Type", ctype)
	return l.do(req)
}

func (l *Load) do(req *http.Request) (int, apiAnswer, error) {
	var ans apiAnswer
	res, err := l.client.Do(req)
	if err != nil {
		return 0, ans, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil { // the answer was cut off: no answer
		return 0, ans, fmt.Errorf("read the answer: %w", err)
	}
	_ = json.Unmarshal(raw, &ans)
	ans.raw = snippet(string(raw))
	return res.StatusCode, ans, nil
}
