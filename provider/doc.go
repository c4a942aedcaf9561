// Package provider is the seam between orders and payment providers, and
// the home of every provider family's protocol (one sub-package each, as
// PROVIDERS.md describes them): what the create path asks of a provider,
// what a verified notification tells us, and the sandbox simulators that
// speak the same protocols.
//
// Pure protocol knowledge: nothing here touches Redis or imports a role.
// What a family needs to keep (a simulator's sessions) it asks of a State
// that the process wires; what the command side decides (FX, transitions)
// it is told in a Payment and answered with an Init or a Notification.
package provider
