package exchange

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	family "github.com/paygate/gateway/usdt/exchange"

	"github.com/paygate/gateway/web/sandbox/usdt/usdtsim"
)

// refuse answers as the exchange does: {"code": <negative>, "msg": ...}.
func refuse(w http.ResponseWriter, status, code int, msg string) {
	usdtsim.WriteJSON(w, status, map[string]any{"code": code, "msg": msg})
}

// authorised checks a signed request as the exchange does, in its order:
// the API key, the timestamp within the receive window, the signature of
// the query exactly as sent (everything before "&signature="). It answers
// a refusal itself and returns the parsed query otherwise.
func (s *Sim) authorised(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	key := r.Header.Get(family.APIKeyHeader)
	if subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) != 1 {
		refuse(w, http.StatusUnauthorized, -2015, "Invalid API-key, IP, or permissions for action.")
		return nil, false
	}
	signed, sig, ok := strings.Cut(r.URL.RawQuery, "&signature=")
	q, err := url.ParseQuery(signed)
	if err != nil {
		refuse(w, http.StatusBadRequest, -1100, "Illegal characters found in a parameter.")
		return nil, false
	}
	ts, err := strconv.ParseInt(q.Get("timestamp"), 10, 64)
	if err != nil {
		refuse(w, http.StatusBadRequest, -1102, "Mandatory parameter 'timestamp' was not sent, was empty/null, or malformed.")
		return nil, false
	}
	window := int64(5000)
	if v := q.Get("recvWindow"); v != "" {
		if window, err = strconv.ParseInt(v, 10, 64); err != nil || window <= 0 || window > 60000 {
			refuse(w, http.StatusBadRequest, -1131, "recvWindow must be less than 60000")
			return nil, false
		}
	}
	now := s.cfg.Now().UnixMilli()
	if ts >= now+1000 || now-ts > window {
		refuse(w, http.StatusBadRequest, -1021, "Timestamp for this request is outside of the recvWindow.")
		return nil, false
	}
	if !ok || strings.Contains(sig, "&") || !family.Verify(s.cfg.Secret, signed, sig) {
		refuse(w, http.StatusBadRequest, -1022, "Signature for this request is not valid.")
		return nil, false
	}
	return q, true
}

func (s *Sim) deposits(w http.ResponseWriter, r *http.Request) {
	q, ok := s.authorised(w, r)
	if !ok {
		return
	}
	txID := strings.ToLower(q.Get("txId"))
	if txID == "" {
		// The simulator answers only what the reviewer asks: one txId.
		usdtsim.WriteJSON(w, http.StatusOK, []family.DepositRow{})
		return
	}
	if s.store.Misbehave(w, r, txID) {
		return
	}
	var row family.DepositRow
	found, err := s.store.Get(r.Context(), "deposit", txID, &row)
	if err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	rows := []family.DepositRow{}
	if found && matches(q, "coin", row.Coin) && matches(q, "network", row.Network) {
		rows = append(rows, row)
	}
	usdtsim.WriteJSON(w, http.StatusOK, rows)
}

// matches is an absent filter, or one the value meets.
func matches(q url.Values, key, value string) bool {
	return q.Get(key) == "" || strings.EqualFold(q.Get(key), value) // secaudit:not-secret: a list filter (coin, network)
}

func (s *Sim) payments(w http.ResponseWriter, r *http.Request) {
	q, ok := s.authorised(w, r)
	if !ok || s.store.Misbehave(w, r, PayFailureID) {
		return
	}
	var rows []family.PayRow
	if _, err := s.store.Get(r.Context(), "pay", "history", &rows); err != nil {
		http.Error(w, "simulator state unavailable", http.StatusServiceUnavailable)
		return
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 || limit > family.PayLimit {
		limit = family.PayLimit
	}
	rows = rows[:min(len(rows), limit)]
	if rows == nil {
		rows = []family.PayRow{}
	}
	usdtsim.WriteJSON(w, http.StatusOK, family.PayHistory{Code: "000000", Message: "success", Success: true, Data: rows})
}
