package channel

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/gateway/schema"
)

// Configured lists the channels that have credentials in this process, by
// method and mode (provider.Registry): routing data in Redis never makes a
// channel out of nothing.
type Configured interface {
	Channels(m schema.Method, sandbox bool) []string
}

// Query is what routing knows of a payment.
type Query struct {
	Sandbox bool
	Method  schema.Method
	AppID   string
	Group   string        // the merchant's group, "" for none
	Amount  schema.Amount // the charge, in the currency the provider charges
	At      time.Time
}

// Candidate is one eligible channel, with what it was judged on.
type Candidate struct {
	Ref      Ref
	Settings Settings
	Breaker  Breaker
}

// Router ranks the eligible channels of a payment from the process's copy
// of the routing data.
type Router struct {
	dir  *Directory
	conf Configured
	rr   sync.Map // methodKey -> *atomic.Uint64
	full sync.Map // Ref.String()+day -> time.Time: a cap found full, until then
	// anyFull is set by the first MarkFull: until a cap is found full, the
	// create path spends nothing on looking one up.
	anyFull atomic.Bool
	rand    func() float64
}

// NewRouter routes conf's channels by dir's data.
func NewRouter(dir *Directory, conf Configured) *Router {
	return &Router{dir: dir, conf: conf, rand: rand.Float64}
}

// Directory is the copy the router reads.
func (r *Router) Directory() *Directory { return r.dir }

// Candidates are q's eligible channels in the order to try them: enabled,
// not in maintenance, breaker routable, the charge within the per-order
// bounds, within active hours, serving the merchant, cap not known full;
// a merchant's pin narrows them to its own set. Empty: the method is not
// available for this payment.
func (r *Router) Candidates(q Query) []Candidate {
	snap := r.dir.Now()
	ids := r.conf.Channels(q.Method, q.Sandbox)
	if pin := snap.PinOf(q.AppID, q.Sandbox, q.Method); pin != nil {
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !slices.Contains(pin, id) })
	}
	out := make([]Candidate, 0, len(ids))
	for _, id := range ids {
		ref := Ref{Sandbox: q.Sandbox, Method: q.Method, ID: id}
		c := Candidate{Ref: ref, Settings: snap.SettingsOf(ref), Breaker: snap.BreakerOf(ref)}
		if r.eligible(c, q) {
			out = append(out, c)
		}
	}
	return r.rank(out, snap.ModeOf(q.Sandbox, q.Method), methodKey(q.Sandbox, q.Method))
}

// Available reports whether q has any eligible channel.
func (r *Router) Available(q Query) bool { return len(r.Candidates(q)) > 0 }

func (r *Router) eligible(c Candidate, q Query) bool {
	s := c.Settings
	return !s.Disabled && !s.Maintenance && c.Breaker.routable(q.At) && s.fits(q.Amount) &&
		s.activeAt(q.At) && s.serves(q.AppID, q.Group) && !(r.anyFull.Load() && r.knownFull(c.Ref, s.Day(q.At), q.At))
}

// rank orders the eligible channels by the method's mode.
func (r *Router) rank(cs []Candidate, mode Mode, mkey string) []Candidate {
	if len(cs) < 2 {
		return cs
	}
	// Candidates come in configuration order (the providers file's list;
	// the sandbox's default channel first), which breaks every tie: an
	// operator who sets nothing gets the first account first.
	switch mode {
	case ModeWeighted:
		// Weighted random order without replacement (Efraimidis and
		// Spirakis): each channel's key is u^(1/weight), highest first, so
		// the first pick follows the weights and the rest are the
		// fall-through in the same spirit.
		keys := make(map[string]float64, len(cs))
		for _, c := range cs {
			keys[c.Ref.ID] = math.Pow(r.rand(), 1/float64(c.Settings.weight()))
		}
		slices.SortStableFunc(cs, func(a, b Candidate) int { return cmp.Compare(keys[b.Ref.ID], keys[a.Ref.ID]) })
	case ModeRoundRobin:
		v, _ := r.rr.LoadOrStore(mkey, new(atomic.Uint64))
		n := int(v.(*atomic.Uint64).Add(1)-1) % len(cs)
		cs = slices.Concat(cs[n:], cs[:n])
	default:
		slices.SortStableFunc(cs, func(a, b Candidate) int { return cmp.Compare(a.Settings.Priority, b.Settings.Priority) })
	}
	return cs
}

// fullFor is how long a cap found full keeps its channel off this
// process's candidates without asking Redis again: a release may free it.
const fullFor = 10 * time.Second

// MarkFull remembers that c's cap refused a reservation on day.
func (r *Router) MarkFull(ref Ref, day string, now time.Time) {
	r.full.Store(ref.String()+"@"+day, now.Add(fullFor))
	r.anyFull.Store(true)
}

func (r *Router) knownFull(ref Ref, day string, now time.Time) bool {
	v, ok := r.full.Load(ref.String() + "@" + day)
	return ok && now.Before(v.(time.Time))
}
