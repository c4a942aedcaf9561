// Package selfservice holds the use cases behind the merchant console's
// Webhooks, Developers, Balance and Team & security pages, with no HTTP in
// them: the pages (and any later door, an API or the CLI) call these, so
// the rules live once. They are small types, one per thing they change
// (Webhooks, Keys, Balance, Team, AuditLog), each holding only what it
// uses; New builds them all from one Config and Deps.
//
// Every call takes the person asking (an access.Actor: their console
// session's person and address) and acts on that actor's merchant only: no
// call takes an appid, so no page can be talked into another merchant's
// deliveries, ledger, keys or users. Each checks the role's permission
// itself (access.Actor.Can) before it reads or changes anything, and every
// change appends an audit entry (who, role, action, target, source address;
// never a secret) in the same atomic step where the change is one Redis
// script or MULTI, or right after it where it is several steps.
package selfservice
