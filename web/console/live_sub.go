package console

import "sync"

// Sub is one open feed of a merchant's orders. It holds at most one
// message: the hub never waits for a feed, and a feed that has not
// written the previous message when the next comes gets the next one
// with the reload hint instead of both (its table missed changes).
type Sub struct {
	appid   string
	session string          // the console session it was opened in
	ready   chan struct{}   // a message waits: one token at most
	done    <-chan struct{} // closed when the hub stops
	ended   chan struct{}   // closed when its session ended
	endOnce sync.Once

	mu   sync.Mutex
	next []byte // shared with every feed of the merchant: never written to
}

func newSub(appid, session string, done <-chan struct{}) *Sub {
	return &Sub{appid: appid, session: session, ready: make(chan struct{}, 1), done: done, ended: make(chan struct{})}
}

// end tells the feed its session ended.
func (s *Sub) end() { s.endOnce.Do(func() { close(s.ended) }) }

// offer hands the feed a message; false when the feed had not taken the
// previous one, which the reload hint now replaces.
func (s *Sub) offer(m *message) bool {
	s.mu.Lock()
	kept := s.next == nil
	if kept {
		s.next = m.bytes
	} else {
		s.next = m.withReload()
	}
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default: // the token is there already
	}
	return kept
}

// take is the waiting message, nil if none.
func (s *Sub) take() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.next
	s.next = nil
	return b
}
