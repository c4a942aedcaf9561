package statement

import (
	"errors"
	"fmt"
	"io"
)

// errLongLine is a line over the limit: the reader stops there, since
// whatever follows cannot be trusted to be a row boundary.
var errLongLine = errors.New("line too long")

// boundedLines passes r through, refusing a line longer than max bytes
// before the CSV reader would buffer it whole.
type boundedLines struct {
	r    io.Reader
	max  int
	run  int // bytes since the last newline
	line int // newlines seen
}

func (b *boundedLines) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for i := 0; i < n; i++ {
		if p[i] == '\n' {
			b.run, b.line = 0, b.line+1
			continue
		}
		if b.run++; b.run > b.max {
			return i, fmt.Errorf("row %d: %w (over %d bytes)", b.line+1, errLongLine, b.max)
		}
	}
	return n, err
}
