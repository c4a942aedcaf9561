// Package usdt is what the gateway knows about settling usdt_direct orders
// on its own: the networks and their review modes as data, and the shapes
// of what a chain or an exchange says about a transfer. The protocols live
// in its subpackages (tron, bsc, exchange), each with a client and a
// sandbox simulator; the reviewer role decides with them.
//
// Nothing here changes an order: that is the command side's, through the
// reviewer's interface.
package usdt
