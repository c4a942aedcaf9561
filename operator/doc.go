// Package operator holds the operator's use cases: the changes an
// operator makes to merchants, FX rates and USDT networks, the USDT reviews'
// decisions, the exceptions queue and provider health. Both the operator
// console (package admin) and the gateway CLI call these, so each change is
// checked by the same rules (access's role table for a console session, none
// for the CLI, which whoever holds Redis runs) and leaves the same audit
// entry whichever way it was made. No HTTP here.
package operator
