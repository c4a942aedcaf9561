// Package fees keeps what the platform charges merchants: an operator's
// default schedule per method and currency, and a merchant's own
// override of it, set from the operator console or `gateway fees`, each
// change written with its audit entry in one step. Every process reads
// them from a copy refreshed within a second (Resolver), so the create
// path never waits on Redis for a fee; the schedule in force is recorded on
// the order when it is initialised and never recomputed, so a change
// reprices no payment already under way. Nothing is charged until an
// operator sets a schedule.
package fees
