package audit

// Values is e as XADD's field-value pairs, after checking it (Check): for
// a change made in a MULTI (not a script) that appends its entry to the
// audit stream of its own hash tag in the same transaction.
func Values(e Entry) ([]any, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	return e.values(), nil
}
