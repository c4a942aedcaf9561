package schema

import (
	"crypto/rand"
	"encoding/hex"
	"hash/fnv"
	"strconv"
	"time"
)

// NumShards is how many Redis shards (hash tags, each with its own event
// stream) orders are spread over. It is encoded in every order id, so changing
// it only affects new orders' placement, never finding old ones.
const NumShards = 16

// Shard is one hash tag of the Redis layout.
type Shard uint8

// Tag is the Redis hash tag that keeps a shard's keys in one cluster slot.
func (s Shard) Tag() string { return "{" + s.hex() + "}" }

func (s Shard) hex() string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[s>>4], digits[s&15]})
}

// ShardFor places an order with a clientOrderId on a shard derived from
// (appid, clientOrderId), so that every create with that pair meets the same
// idempotency key inside one script.
func ShardFor(appid, clientOrderID string) Shard {
	h := fnv.New32a()
	h.Write([]byte(appid))
	h.Write([]byte{0})
	h.Write([]byte(clientOrderID))
	return Shard(h.Sum32() % NumShards)
}

// HomeShard is the merchant's own shard: its balances live there, and so do
// the orders that debit them, so that a balance payment is one script.
func HomeShard(appid string) Shard {
	h := fnv.New32a()
	h.Write([]byte(appid))
	return Shard(h.Sum32() % NumShards)
}

// RandomShard spreads orders without a clientOrderId evenly.
func RandomShard() Shard {
	var b [1]byte
	_, _ = rand.Read(b[:])
	return Shard(b[0] % NumShards)
}

const (
	idTimeLayout = "20060102150405.000"
	idLen        = 1 + 17 + 2 + 16
)

// NewOrderID makes "P" + UTC creation time to the millisecond + shard (2 hex)
// + 64 random bits (16 hex). Ids sort by creation time, cannot be guessed,
// and name their shard so that a lookup by id needs no index.
func NewOrderID(now time.Time, s Shard) string {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	ts := now.UTC().Format(idTimeLayout)
	b := make([]byte, 0, idLen)
	b = append(b, 'P')
	b = append(b, ts[:14]...)
	b = append(b, ts[15:]...)
	b = append(b, s.hex()...)
	b = hex.AppendEncode(b, rnd[:])
	return string(b)
}

// ParseOrderID checks an id's shape and returns its shard; anything else is
// not one of our orders, which callers answer as not found.
func ParseOrderID(id string) (Shard, bool) {
	if len(id) != idLen || id[0] != 'P' || !allDigits(id[1:18]) || !isHex(id[18:]) {
		return 0, false
	}
	v, err := strconv.ParseUint(id[18:20], 16, 8)
	if err != nil || v >= NumShards {
		return 0, false
	}
	return Shard(v), true
}

// PackOrderID is id in 18 bytes instead of 36, as ClientOrdersKey holds
// it: the 35 characters after the P are all hex digits (the time's are
// decimal), decoded behind a 0. A value that is no id is kept as it is.
func PackOrderID(id string) string {
	if _, ok := ParseOrderID(id); !ok {
		return id
	}
	var b [idLen / 2]byte
	src := make([]byte, 0, idLen)
	src = append(append(src, '0'), id[1:]...)
	if _, err := hex.Decode(b[:], src); err != nil {
		return id
	}
	return string(b[:])
}

// UnpackOrderID is the id PackOrderID packed; a value of another length
// is returned as it is.
func UnpackOrderID(v string) string {
	if len(v) != idLen/2 {
		return v
	}
	h := hex.EncodeToString([]byte(v))
	return "P" + h[1:]
}

// OrderIDTime recovers the creation time an id carries (to the millisecond).
func OrderIDTime(id string) (time.Time, bool) {
	if _, ok := ParseOrderID(id); !ok {
		return time.Time{}, false
	}
	// By hand, not time.Parse: a create runs this once (Order.Fields leaves
	// out a creation time the id carries), and the digits are checked.
	n := func(i, j int) int {
		v := 0
		for _, c := range id[i:j] {
			v = v*10 + int(c-'0')
		}
		return v
	}
	mo, d, h, mi, sec := n(5, 7), n(7, 9), n(9, 11), n(11, 13), n(13, 15)
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(n(1, 5), time.Month(mo), d, h, mi, sec, n(15, 18)*int(time.Millisecond), time.UTC)
	return t, t.Day() == d
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
