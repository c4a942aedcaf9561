// Package provider is the seam between orders and payment providers, and
// the home of every provider family's protocol (one sub-package each, as
// PROVIDERS.md describes them): what the create path asks of a provider
// and what a verified notification tells us. The sandbox simulators that
// speak the same protocols live in web/sandbox/<family>, built on what each
// family exports of its wire format, so no family serves HTTP.
//
// Pure protocol knowledge: nothing here touches Redis or imports a role.
// What a family needs to keep (a simulator's sessions) it asks of a State
// that the process wires; what the command side decides (FX, transitions)
// it is told in a Payment and answered with an Init or a Notification.
//
// Every family package has the same shape, so that reading one teaches the
// others. Its Config is what operators write as JSON (snake_case names,
// durations as text such as "10s", the upstream address always base_url),
// with Defaults() to read it over and a Validate() that changes nothing and
// lists every problem; Registration() (at the end of config.go) is its
// provider.Family, the one typed contract the process registers it by. Its
// files: adapter.go (the live protocol), config.go, sign.go and verify.go
// (signatures and notifications). Its simulator, in web/sandbox/<family>,
// keeps the same names: sim.go (the type and its routes), simapi.go (the
// provider's API calls), simpage.go (the payer's page) and simsettle.go (an
// outcome and its notification), each where the family has one. The usdt
// chain and exchange clients follow the same names (web/sandbox/usdt).
package provider
