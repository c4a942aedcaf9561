package chaos

import (
	"testing"

	"github.com/paygate/gateway/dispatcher"
)

// TestQuickReceiverHangOutlastsAttempts: the quick run's receiver-hang
// holds the endpoint longer than one webhook attempt may take (the
// gateways run with the dispatcher's default time-out), so attempts made
// at the start of the hang time out and are retried during it; a shorter
// hold would only delay answers and prove nothing about time-outs.
func TestQuickReceiverHangOutlastsAttempts(t *testing.T) {
	var hang *Scenario
	for _, s := range Scenarios() {
		if s.Name == "receiver-hang" {
			hang = &s
		}
	}
	if hang == nil || !hang.Quick {
		t.Fatalf("receiver-hang is not in the quick run: %+v", hang)
	}
	if timeout := dispatcher.Defaults().Timeout; hang.QHold <= timeout {
		t.Fatalf("receiver-hang holds %s in quick mode, not more than the %s attempt time-out", hang.QHold, timeout)
	}
}
