package fanout

import (
	"slices"
	"time"
)

// holds keeps an object's events in their order across batches: once an
// entry's scheduling failed, it and every later entry of the same object
// stay pending, and only the oldest of them is tried again (when the
// reclaimer reads it back, oldest first); the rest follow it. So an order's
// refund is never scheduled before its payment that failed to schedule.
//
// Another process may take the held entries over (its reclaimer claims any
// consumer's idle entries) and schedule them itself; a hold whose oldest
// entry has not come back for stale is dropped, and the entries still
// pending are read again in their order by whoever claims them.
type holds struct {
	stale time.Duration
	now   func() time.Time
	by    map[string]*hold // object -> its held entries
}

type hold struct {
	ids  []string  // stream ids left pending, oldest first
	seen time.Time // when the oldest was last tried
}

func newHolds(stale time.Duration) *holds {
	return &holds{stale: stale, now: time.Now, by: map[string]*hold{}}
}

// mayTry says whether entry id of object may be scheduled now: the object
// holds nothing, or id is its oldest held entry. An entry that may not is
// held (after the others).
func (h *holds) mayTry(object, id string) bool {
	o := h.by[object]
	if o != nil && h.now().Sub(o.seen) > h.stale {
		delete(h.by, object)
		o = nil
	}
	switch {
	case o == nil:
		return true
	case o.ids[0] == id:
		o.seen = h.now()
		return true
	}
	if !slices.Contains(o.ids, id) {
		o.ids = append(o.ids, id)
	}
	return false
}

// failed holds entry id of object: its scheduling failed.
func (h *holds) failed(object, id string) {
	o := h.by[object]
	if o == nil {
		h.by[object] = &hold{ids: []string{id}, seen: h.now()}
		return
	}
	if !slices.Contains(o.ids, id) {
		o.ids = append(o.ids, id)
	}
}

// done releases entry id of object: it is scheduled.
func (h *holds) done(object, id string) {
	o := h.by[object]
	if o == nil {
		return
	}
	if o.ids = slices.DeleteFunc(o.ids, func(x string) bool { return x == id }); len(o.ids) == 0 {
		delete(h.by, object)
	}
}

// sweep drops the stale holds, so objects no entry comes back for are not
// kept for the process's life.
func (h *holds) sweep() {
	for k, o := range h.by {
		if h.now().Sub(o.seen) > h.stale {
			delete(h.by, k)
		}
	}
}
