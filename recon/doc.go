// Package recon proves, day by day, that each provider account really
// received what the ledger says it did: a provider's settlement statement
// (each family's own shape, parsed by its adapter into Lines) is matched
// against our paid payments of that channel and day, and every difference
// becomes a finding with its evidence for the operators' exceptions queue.
package recon
