// Package statement reads and writes the settlement statements of the
// provider families that publish no format of their own: a CSV, one row per
// settled payment, with the provider's reference, our order id, amount,
// currency, fee, net, time and the provider account it settled to. Each
// family names its columns and time layout in a Shape; the adapters parse
// with it and the simulators write with it, so the two never drift apart.
//
// A statement is read as a stream (Scan): a day of a million rows is never
// held as text, and every bound (rows, bytes per line) is checked before
// the row is kept. A statement with any bad row is refused whole, with the
// rows named, because half a day reconciled reads as money missing.
package statement
