// Package channel routes a payment to one of several provider accounts of
// its method. A channel is one account: its credentials come from the
// providers file (never Redis); its routing data (enabled, maintenance,
// weight, priority, amount bounds, daily caps, active hours, the merchants
// it serves, cost) and the breaker's state live in Redis, changed by
// operators, and every process routes from its own copy (Directory), so
// choosing a channel costs no Redis round trip. Only a capped channel's
// reservation (Caps) touches Redis at initialisation, and it is atomic, so
// no channel ever passes its cap under concurrency.
//
// One restricted provider account must never stop a merchant's revenue:
// the command side tries the ranked candidates in turn within one time
// budget, and a breaker takes a failing channel out until a probe or an
// operator brings it back.
package channel
