package sandbox

import "github.com/paygate/gateway/schema"

// DefaultChannel is the sandbox channel every method has, at the path the
// simulators always had.
const DefaultChannel = "default"

// SimPath is where the simulator of a method's sandbox channel is mounted,
// under the public URL: /sandbox/provider/<method> for the default
// channel, /sandbox/provider/ch/<id>/<method> for the others. Each channel
// has its own simulator, so a tester can turn one account restricted (its
// faults are keyed by this path) and watch the others take over.
func SimPath(m schema.Method, channelID string) string {
	if channelID == "" || channelID == DefaultChannel {
		return "/sandbox/provider/" + string(m)
	}
	return "/sandbox/provider/ch/" + channelID + "/" + string(m)
}
