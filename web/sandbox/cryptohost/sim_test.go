package cryptohost

import "testing"

// TestSandboxWebhookFollowsTheChannel: the default channel's simulator
// subscribes the family's plain sandbox path, another channel's that
// channel's path (verified with its secrets alone); a mount elsewhere
// subscribes nothing.
func TestSandboxWebhookFollowsTheChannel(t *testing.T) {
	tests := []struct{ name, base, want string }{
		{"default channel", "https://pay.test/sandbox/provider/cryptohost", "https://pay.test/sandbox/gatewaynotification/cryptohost/webhook"},
		{"another channel", "https://pay.test/sandbox/provider/ch/alt/cryptohost", "https://pay.test/sandbox/gatewaynotification/cryptohost/ch/alt/webhook"},
		{"elsewhere", "https://pay.test/sim/cryptohost", ""},
		{"nested under a channel", "https://pay.test/sandbox/provider/ch/a/b/cryptohost", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SandboxSimConfig(tt.base).WebhookURL; got != tt.want {
				t.Fatalf("webhook %q, want %q", got, tt.want)
			}
		})
	}
}
