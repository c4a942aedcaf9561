// Package bdcard is the sandbox's simulated bdcard provider (and the
// bdpsp_a store, the same protocol): sessions, the checkout page, IPNs
// signed with the store password, validation and transaction query. It
// signs and answers with the family's own encoders (provider/bdcard), so a
// sandbox order runs the live verification code.
package bdcard
