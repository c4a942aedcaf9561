package merchant

import (
	"strconv"
	"time"

	"github.com/paygate/gateway/platform"
)

// DefaultWindow is how far a signed change's timestamp may be from our
// clock when a door does not say.
const DefaultWindow = 5 * time.Minute

// CheckFresh refuses a signed change whose timestamp (Unix seconds) is
// farther than window from now, either way (a client's clock may run a
// little ahead). With the requestId a door remembers for longer than the
// window, it is what keeps a captured signed change from being sent again:
// inside the window the requestId is known, after it the timestamp is old.
func CheckFresh(ts string, now time.Time, window time.Duration) error {
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return platform.Errorf(platform.KindInvalidParameter, "timestamp must be the Unix time in seconds")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > window || d < -window {
		return platform.Errorf(platform.KindInvalidParameter, "timestamp is more than %v from our clock: sign the request when you send it", window)
	}
	return nil
}

// CheckRequestID refuses a requestId that is not 1 to 128 printable ASCII
// characters: it becomes part of a key and is shown back.
func CheckRequestID(id string) error {
	if id == "" || len(id) > 128 {
		return badRequestID()
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return badRequestID()
		}
	}
	return nil
}

func badRequestID() error {
	return platform.Errorf(platform.KindInvalidParameter, "requestId must be 1 to 128 printable ASCII characters, unique per request")
}
