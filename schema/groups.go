package schema

// The consumer groups on every shard's event stream (EventsKey). Each reads
// every event once per group; the projector trims a stream only below what
// every group acknowledged, so it names them all.
const (
	// GroupProjector moves events into ClickHouse.
	GroupProjector = "projector"
	// GroupDispatcher turns paid events into webhook deliveries.
	GroupDispatcher = "dispatcher"
	// GroupLedger posts paid orders and finished refunds to the journal.
	GroupLedger = "ledger"
	// GroupEvents derives the catalogue's events (package events) for
	// merchants' webhook endpoints; it also reads the payouts' streams and
	// the journals (their settlements).
	GroupEvents = "events"
)

// ConsumerGroups lists every group reading the event streams.
func ConsumerGroups() []string {
	return []string{GroupProjector, GroupDispatcher, GroupLedger, GroupEvents}
}

// GroupStatements copies every shard's journal stream (JournalKey) into
// ClickHouse for the statements. It reads the journal streams, not the
// event streams, so ConsumerGroups does not name it.
const GroupStatements = "statements"
