package platform_test

import (
	"testing"

	"github.com/paygate/gateway/channel"
	"github.com/paygate/gateway/platform"
)

// TestSandboxChannelIDsFollowTheChannelRule: platform checks the sandbox's
// channel ids with its own copy of channel.ValidID's rule (channel builds
// on platform); the two must agree.
func TestSandboxChannelIDsFollowTheChannelRule(t *testing.T) {
	for _, id := range []string{"default", "alt", "a-1_b", "0", "A", "-a", "a.b", "<b>", "", "abcdefghijklmnopqrstuvwxyz0123456", "abcdefghijklmnopqrstuvwxyz012345"} {
		cfg := platform.Defaults()
		cfg.SandboxChannels = []string{"default", id}
		if id == "default" {
			cfg.SandboxChannels = []string{"default"}
		}
		if got := cfg.Validate() == nil; got != channel.ValidID(id) {
			t.Errorf("id %q: platform accepts %v, channel.ValidID %v", id, got, channel.ValidID(id))
		}
	}
}
