package rails

// The sandbox chains' payout endpoints, which the simulators serve and Sim
// calls: declared here, by the rail, so the rail imports no simulator.
const (
	TransferPath = "/sandbox-payout/transfer"
	LookupPath   = "/sandbox-payout/lookup"
)

// Ask is a payout sender's transfer: amount (a decimal string of USDT) to
// To, under Reference.
type Ask struct {
	Reference string `json:"reference"`
	To        string `json:"to"`
	Amount    string `json:"amount"`
}

// Answer is what the endpoints answer: the first transfer made under the
// reference and how many were made in all (more than one is a payout sent
// twice, which the sandbox records instead of hiding, so a test sees it).
type Answer struct {
	Found     bool   `json:"found"`
	Hash      string `json:"hash,omitempty"`
	Transfers int    `json:"transfers"`
	Error     string `json:"error,omitempty"`
}
