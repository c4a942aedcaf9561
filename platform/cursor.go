package platform

import "strconv"

// CursorPage reads a keyset page's parameters as the merchant API takes
// them: before, the previous page's nextCursor (a positive integer, ""
// for the newest), and limit, 1 to 100 (50 when not given). Every list of
// the API pages this way, so each refuses alike.
func CursorPage(before, limit string) (int64, int, error) {
	var b int64
	if before != "" {
		n, err := strconv.ParseInt(before, 10, 64)
		if err != nil || n <= 0 {
			return 0, 0, Errorf(KindInvalidParameter, "before must be a previous page's nextCursor")
		}
		b = n
	}
	n := 50
	if limit != "" {
		v, err := strconv.Atoi(limit)
		if err != nil || v < 1 || v > 100 {
			return 0, 0, Errorf(KindInvalidParameter, "limit must be from 1 to 100")
		}
		n = v
	}
	return b, n, nil
}
