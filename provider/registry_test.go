package provider

import (
	"strings"
	"testing"

	"github.com/paygate/gateway/schema"
)

// TestChannelRegistryRefusesBadIDs: the registry is the last word on a
// method's channels, whatever read the configuration before it, so two
// accounts of one id (notifications verified with the wrong one's
// secrets) or an id that could carry markup never get in.
func TestChannelRegistryRefusesBadIDs(t *testing.T) {
	chs := func(ids ...string) map[schema.Method][]Channel {
		var out []Channel
		for _, id := range ids {
			out = append(out, Channel{ID: id})
		}
		return map[schema.Method][]Channel{schema.MethodCryptohost: out}
	}
	tests := []struct {
		name          string
		sandbox, live map[schema.Method][]Channel
		want          string // "" accepted
	}{
		{"distinct ids", chs("default", "alt"), chs("a", "b"), ""},
		{"one id twice, live", nil, chs("a", "b", "a"), `live cryptohost: two channels with id "a"`},
		{"one id twice, sandbox", chs("default", "default"), nil, `sandbox cryptohost: two channels with id "default"`},
		{"the same id live and sandbox", chs("a"), chs("a"), ""},
		{"markup in an id", nil, chs("<b>"), "live cryptohost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewChannelRegistry(tt.sandbox, tt.live)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
