package schema

// Reconciliation's keys: one hash tag, so an import's findings and its
// mark are written together on one node. Findings are few (differences,
// not lines), so one index serves every channel.
const (
	// ReconFindingsKey indexes findings by when they were raised (ms).
	ReconFindingsKey = "gw:{recon}:findings"
	// ReconFindingKey holds each finding's JSON by its id.
	ReconFindingKey = "gw:{recon}:finding"
	// ReconImportsKey is the set of statement files imported (channel, day,
	// sha256).
	ReconImportsKey = "gw:{recon}:imports"
	// ReconLastKey holds, per channel ref, the JSON of its last import
	// (day, when, by whom, what it cleared): the console's receivables.
	ReconLastKey = "gw:{recon}:last"
	// ExceptionRecon is a reconciliation finding in the exceptions queue.
	ExceptionRecon = "reconciliation"
)
