package platform

import "time"

// DefaultReadTimeout bounds reading one whole request, headers and body:
// a client that sends them a byte at a time (slow loris) is cut off there
// and its connection closed, so it holds a connection for no longer.
const DefaultReadTimeout = 15 * time.Second
