package channel

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/paygate/gateway/schema"
)

// Mode is how a method's eligible channels are ranked.
type Mode string

// Modes. Priority is the default: the lowest priority number first, the
// rest in turn when it fails, so an operator reads the order off the list.
const (
	ModePriority   Mode = "priority"
	ModeWeighted   Mode = "weighted"
	ModeRoundRobin Mode = "round_robin"
)

// Valid reports a known mode.
func (m Mode) Valid() bool { return m == ModePriority || m == ModeWeighted || m == ModeRoundRobin }

// Bounds on what an operator may set, so one bad value cannot make a
// weight overflow or a list unbounded.
const (
	MaxWeight    = 1000
	MaxMerchants = 1000
	MaxKeywords  = 50
	MinKeyword   = 4
	MaxKeyword   = 100
)

// Settings are one channel's routing data. The zero value of every field
// but Weight means "no rule": a channel without stored settings is
// enabled, weight 1, unbounded, all day, for every merchant, at no cost.
type Settings struct {
	Disabled    bool `json:"disabled,omitempty"`
	Maintenance bool `json:"maintenance,omitempty"`
	Weight      int  `json:"weight,omitempty"`
	Priority    int  `json:"priority,omitempty"`
	// Per-order bounds and daily caps are in the currency the provider
	// charges (a USD order of a BDT method is bounded in BDT), 0 = none.
	MinAmount   schema.Amount `json:"min,omitempty"`
	MaxAmount   schema.Amount `json:"max,omitempty"`
	DailyAmount schema.Amount `json:"dailyAmount,omitempty"`
	DailyCount  int64         `json:"dailyCount,omitempty"`
	// TimeZone is where the day of the caps and the active hours are
	// counted (IANA name; UTC when empty).
	TimeZone string `json:"tz,omitempty"`
	// Active is "HH:MM-HH:MM" in TimeZone (a span may pass midnight);
	// empty is all day.
	Active string `json:"active,omitempty"`
	// Merchants and Group say whom the channel serves: listed appids, or
	// the merchants of a group, or (both empty) everyone.
	Merchants []string           `json:"merchants,omitempty"`
	Group     string             `json:"group,omitempty"`
	Cost      schema.FeeSchedule `json:"-"`
	CostText  string             `json:"cost,omitempty"` // Cost as stored (FeeSchedule.String)
}

// Defaults are the settings of a channel an operator never touched.
func Defaults() Settings { return Settings{Weight: 1} }

// weight is Weight, at least 1.
func (s Settings) weight() int { return max(s.Weight, 1) }

// Validate lists every problem of s.
func (s Settings) Validate() error {
	var errs []error
	if s.Weight < 0 || s.Weight > MaxWeight {
		errs = append(errs, fmt.Errorf("weight %d: want 1 to %d", s.Weight, MaxWeight))
	}
	if s.MinAmount < 0 || s.MaxAmount < 0 || s.DailyAmount < 0 || s.DailyCount < 0 {
		errs = append(errs, errors.New("amount bounds and caps must not be negative"))
	}
	if s.MaxAmount > 0 && s.MinAmount > s.MaxAmount {
		errs = append(errs, fmt.Errorf("min %s is above max %s", s.MinAmount, s.MaxAmount))
	}
	if _, err := s.location(); err != nil {
		errs = append(errs, err)
	}
	if _, _, err := parseSpan(s.Active); err != nil {
		errs = append(errs, err)
	}
	if len(s.Merchants) > MaxMerchants {
		errs = append(errs, fmt.Errorf("%d merchants listed: at most %d", len(s.Merchants), MaxMerchants))
	}
	if s.Group != "" && !ValidID(s.Group) {
		errs = append(errs, fmt.Errorf("group %q: use a-z, 0-9, '_' and '-'", s.Group))
	}
	if s.Group != "" && len(s.Merchants) > 0 {
		errs = append(errs, errors.New("serve a list of merchants or a group, not both"))
	}
	if err := s.Cost.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("cost: %w", err))
	}
	return errors.Join(errs...)
}

func (s Settings) location() (*time.Location, error) {
	if s.TimeZone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(s.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", s.TimeZone, err)
	}
	return loc, nil
}

// Day is the cap day of instant t in the channel's zone (20261128).
func (s Settings) Day(t time.Time) string {
	loc, err := s.location()
	if err != nil {
		loc = time.UTC
	}
	return t.In(loc).Format("20060102")
}

// Capped reports whether a daily cap applies: only then is a reservation
// made in Redis.
func (s Settings) Capped() bool { return s.DailyAmount > 0 || s.DailyCount > 0 }

// parseSpan reads "HH:MM-HH:MM" as minutes of the day; "" is all day
// (0, 0).
func parseSpan(v string) (from, to int, err error) {
	if v == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(v, "-")
	if ok {
		if from, err = parseClock(a); err == nil {
			to, err = parseClock(b)
		}
	}
	if !ok || err != nil || from == to {
		return 0, 0, fmt.Errorf("active hours %q: want HH:MM-HH:MM, two different times", v)
	}
	return from, to, nil
}

func parseClock(v string) (int, error) {
	t, err := time.Parse("15:04", v)
	if err != nil {
		return 0, err
	}
	return t.Hour()*60 + t.Minute(), nil
}

// activeAt reports whether t falls in the active hours (all day when
// none are set); a span like 22:00-06:00 passes midnight.
func (s Settings) activeAt(t time.Time) bool {
	from, to, err := parseSpan(s.Active)
	if err != nil || from == to {
		return err == nil
	}
	loc, lerr := s.location()
	if lerr != nil {
		return false
	}
	lt := t.In(loc)
	m := lt.Hour()*60 + lt.Minute()
	if from < to {
		return m >= from && m < to
	}
	return m >= from || m < to
}

// serves reports whether the channel takes merchant appid of group.
func (s Settings) serves(appid, group string) bool {
	switch {
	case s.Group != "":
		return group == s.Group
	case len(s.Merchants) > 0:
		return slices.Contains(s.Merchants, appid)
	}
	return true
}

// fits reports whether one order's charge is within the per-order bounds.
func (s Settings) fits(amount schema.Amount) bool {
	return amount >= s.MinAmount && (s.MaxAmount == 0 || amount <= s.MaxAmount)
}

// encodeSettings is s as stored.
func encodeSettings(s Settings) (string, error) {
	s.CostText = ""
	if !s.Cost.Zero() {
		s.CostText = s.Cost.String()
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("encode channel settings: %w", err)
	}
	return string(b), nil
}

// decodeSettings reads stored settings.
func decodeSettings(v string) (Settings, error) {
	s := Defaults()
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return Settings{}, fmt.Errorf("decode channel settings: %w", err)
	}
	if s.CostText != "" {
		c, err := schema.ParseFeeSchedule(s.CostText)
		if err != nil {
			return Settings{}, fmt.Errorf("channel cost: %w", err)
		}
		s.Cost = c
	}
	return s, nil
}

// CheckKeywords refuses a keyword list that would match everything: each
// keyword is MinKeyword wide or more (a letter or digit counts one, a
// character beyond ASCII two, so a two-character CJK term passes), holds
// a letter or digit, none is blank, the list is bounded.
func CheckKeywords(kw []string) error {
	if len(kw) > MaxKeywords {
		return fmt.Errorf("%d keywords: at most %d", len(kw), MaxKeywords)
	}
	for _, k := range kw {
		t := strings.TrimSpace(k)
		n := keywordWidth(t)
		if n < MinKeyword || n > MaxKeyword || !strings.ContainsFunc(t, isWordRune) {
			return fmt.Errorf("keyword %q: want %d to %d characters, letters or digits among them (a shorter one would match almost any message)", k, MinKeyword, MaxKeyword)
		}
	}
	return nil
}

func keywordWidth(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 127 {
			n++
		}
	}
	return n
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// MatchKeyword is the first keyword found in a provider's message,
// case-insensitive, or "".
func MatchKeyword(kw []string, msg string) string {
	low := strings.ToLower(msg)
	for _, k := range kw {
		if t := strings.ToLower(strings.TrimSpace(k)); t != "" && strings.Contains(low, t) {
			return k
		}
	}
	return ""
}
