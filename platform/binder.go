package platform

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Binder is the one way a setting becomes a flag with a GATEWAY_*
// environment equivalent: the variable, when set, is read through the
// flag's own parser when bound (a flag given on the command line then wins),
// and a variable that does not parse is kept as an error for Validate to
// list with every other problem, never dropped. platform.Config,
// dispatcher.Config and the CLI's Redis flags all bind through it.
type Binder struct {
	fs   *flag.FlagSet
	errs []error
}

// NewBinder binds onto fs.
func NewBinder(fs *flag.FlagSet) *Binder { return &Binder{fs: fs} }

// Errs are the environment values that did not parse.
func (b *Binder) Errs() []error { return b.errs }

// Var binds v to the flag name and the variable env.
func (b *Binder) Var(v flag.Value, name, env, usage string) {
	if s, ok := os.LookupEnv(env); ok {
		if err := v.Set(s); err != nil {
			b.errs = append(b.errs, fmt.Errorf("%s=%q: %w", env, s, err))
		}
	}
	b.fs.Var(v, name, usage+" ("+env+")")
}

// String binds a text setting.
func (b *Binder) String(p *string, name, env, usage string) {
	b.Var(funcValue{set: func(s string) error { *p = s; return nil }, get: func() string { return *p }}, name, env, usage)
}

// Duration binds a duration in time.ParseDuration's text.
func (b *Binder) Duration(p *time.Duration, name, env, usage string) {
	b.Var(funcValue{set: func(s string) error {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err == nil {
			*p = d
		}
		return err
	}, get: func() string { return p.String() }}, name, env, usage)
}

// Int binds a whole number.
func (b *Binder) Int(p *int, name, env, usage string) {
	b.Var(funcValue{set: func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err == nil {
			*p = n
		}
		return err
	}, get: func() string { return strconv.Itoa(*p) }}, name, env, usage)
}

// Bool binds a switch: the flag alone means true; the variable takes
// strconv.ParseBool's words, and anything else is an error, so that a
// mistyped "ture" does not quietly mean false.
func (b *Binder) Bool(p *bool, name, env, usage string) {
	b.Var(funcValue{bool: true, set: func(s string) error {
		v, err := strconv.ParseBool(strings.TrimSpace(s))
		if err == nil {
			*p = v
		}
		return err
	}, get: func() string { return strconv.FormatBool(*p) }}, name, env, usage)
}

// List binds a comma-separated list.
func (b *Binder) List(p *[]string, name, env, usage string) {
	b.Var(funcValue{set: func(s string) error { *p = splitList(s); return nil },
		get: func() string { return strings.Join(*p, ",") }}, name, env, usage+", comma-separated")
}

// Func binds a setting with its own parser.
func (b *Binder) Func(name, env, usage string, set func(string) error, get func() string) {
	b.Var(funcValue{set: set, get: get}, name, env, usage)
}

// funcValue is a flag.Value made of two functions.
type funcValue struct {
	set  func(string) error
	get  func() string
	bool bool
}

func (v funcValue) Set(s string) error { return v.set(s) }

func (v funcValue) String() string {
	if v.get == nil {
		return ""
	}
	return v.get()
}

func (v funcValue) IsBoolFlag() bool { return v.bool }
