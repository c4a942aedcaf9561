package frame

import (
	"context"
	"errors"
	"html/template"
	"io/fs"
	"strings"

	"github.com/paygate/gateway/access"
	"github.com/paygate/gateway/platform"
)

// Config is what makes one console out of the frame.
type Config struct {
	Base       string       // the path everything is under: "/console", "/admin"
	Realm      access.Realm // whose sessions the console accepts
	CookieName string       // the session cookie; each console its own
	Brand      string       // message id of the console's name in the header
	// Secure sets the cookies' Secure flag (the deployment is served over
	// https); a request that arrived over TLS gets it anyway.
	Secure       bool
	MaxFormBytes int // a larger form is refused (default 64 KiB)
	// Uploads are the paths (Base included) whose POST carries a file,
	// each with its own bound in place of MaxFormBytes; the listener's
	// body limit must let them through (fasthttp keeps a large multipart
	// file on disk, not in memory).
	Uploads map[string]int
}

// Defaults is what a console has unless told; the path, realm, cookie and
// brand are each console's own.
func Defaults() Config { return Config{MaxFormBytes: 64 << 10} }

// withDefaults fills the zero fields from Defaults.
func (c Config) withDefaults() Config {
	if c.MaxFormBytes == 0 {
		c.MaxFormBytes = Defaults().MaxFormBytes
	}
	return c
}

// Validate reports every bad value at once; it changes nothing.
func (c Config) Validate() error {
	var errs []error
	if !strings.HasPrefix(c.Base, "/") || strings.HasSuffix(c.Base, "/") || len(c.Base) < 2 {
		errs = append(errs, errors.New("frame: base must be a path like /console"))
	}
	if c.Realm != access.RealmMerchant && c.Realm != access.RealmOperator {
		errs = append(errs, errors.New("frame: unknown realm"))
	}
	if c.CookieName == "" || strings.ContainsAny(c.CookieName, " ;,=") {
		errs = append(errs, errors.New("frame: a cookie name is required"))
	}
	if c.Brand == "" {
		errs = append(errs, errors.New("frame: a brand message id is required"))
	}
	return errors.Join(errs...)
}

// Auth is what the frame needs of access.Accounts (which satisfies it).
type Auth interface {
	Login(ctx context.Context, r access.LoginRequest) (*access.Session, error)
	Session(ctx context.Context, id string) (*access.Session, error)
	Logout(ctx context.Context, s *access.Session, source string, everywhere bool) error
	// SecondFactorLocks counts a merchant's (or the operators') accounts
	// whose second factor is locked, for the notice to who may unlock them.
	SecondFactorLocks(ctx context.Context, realm access.Realm, appid string) (int64, error)
	BeginSetup(ctx context.Context, token string) (*access.Account, *access.Enrolment, bool, error)
	CompleteSetup(ctx context.Context, s access.Setup) (*access.Account, []string, error)
	// SetTimeZone keeps the zone the person reads times in.
	SetTimeZone(ctx context.Context, s *access.Session, zone string) error
}

// NavItem is one link of the header's navigation, shown only to whom
// holds Perm ("" for everyone logged in).
type NavItem struct {
	Path  string // under Base: "/orders"
	Label string // message id
	Perm  access.Permission
}

// Deps are the console's own parts.
type Deps struct {
	Auth     Auth
	ClientIP *platform.ClientIP
	Nav      []NavItem
	// Templates holds the console's pages, *.html at its root, each
	// defining "content" (and "head" for extra tags, optional). Files
	// whose name starts with "_" are partials every page sees.
	Templates fs.FS
	// Locales holds en.json, zh.json, es.json: flat objects of message
	// id to text, merged with the frame's own messages.
	Locales fs.FS
	// Assets are served under Base/assets/ with content-hashed names
	// (View.Asset gives the path); optional.
	Assets fs.FS
	Funcs  template.FuncMap
	// MethodNames are the payers' names of the methods, by language then
	// method code (checkout.PayerNames): pages show a method by its name
	// (Catalog.Method), the code in a tooltip. Nil: the codes.
	MethodNames map[string]map[string]string
	// Extensions are pages of other packages this console shows too.
	Extensions []Extension
	// LocksPath is the page (under Base) where those who may unlock a
	// locked second factor do it (package account's Team page sets "/team"); "":
	// the notice names the CLI command (the operator console has no
	// accounts page).
	LocksPath string
	// Sandbox says whether the session's merchant is a sandbox one: every
	// page then carries the sandbox bar, so test data is never mistaken
	// for money. nil: never (the operator console sets View.Sandbox on
	// its view of a sandbox merchant instead).
	Sandbox func(ctx context.Context, s *access.Session) (bool, error)
}
