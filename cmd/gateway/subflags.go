package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"

	"github.com/paygate/gateway/audit"
)

// subFlags is one subcommand's flag set: its help shows that subcommand's
// synopsis and only the flags it takes (an operator asking for
// `merchant disable --help` wants disable's, not every subcommand's). Help
// asked for goes to stdout and exits 0; a wrong flag prints to stderr.
func subFlags(cmd, sub, synopsis string, args []string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd+" "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, a := range args {
		if isHelp(a) {
			fs.SetOutput(stdout)
		}
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gateway %s %s %s\n\nflags:\n", cmd, sub, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// given says whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// osUserName is who runs the command, as the operating system knows them.
func osUserName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// errNoActor: a change recorded without a name cannot be traced to anyone.
var errNoActor = errors.New("who makes this change is unknown: give --by NAME")

// cliActor is the name a CLI change is recorded under: --by when given
// (and not blank), else the OS user; never empty, and free text under the
// consoles' rule (audit.Text), so the entry that names it is one the log
// takes.
func cliActor(by string, byGiven bool, osUser func() string) (string, error) {
	if !byGiven {
		by = osUser()
	}
	name, err := audit.Text("--by", by, maxActor)
	if err != nil {
		return "", err
	}
	if name == "" {
		return "", errNoActor
	}
	return "cli:" + name, nil
}

// maxActor bounds a --by name: "cli:NAME" is an entry's actor field, at
// most 256 bytes.
const maxActor = 60

// onlyOwnFlags makes fs's help list only the flags sub takes, for flag sets
// shared by several subcommands whose flags say in their usage which ones
// take them ("set: ...", "approve, reject: ..."); a flag without such a
// prefix is everyone's.
func onlyOwnFlags(fs *flag.FlagSet, sub string) {
	fs.Usage = func() {
		own := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
		own.SetOutput(fs.Output())
		fs.VisitAll(func(f *flag.Flag) {
			if takesFlag(f.Usage, sub) {
				own.Var(f.Value, f.Name, f.Usage)
			}
		})
		fmt.Fprintf(fs.Output(), "usage: gateway %s [flags]\n\nflags:\n", fs.Name())
		own.PrintDefaults()
	}
}

// takesFlag reads a usage's "sub1, sub2: " prefix.
func takesFlag(usage, sub string) bool {
	subs, _, ok := strings.Cut(usage, ": ")
	if !ok || strings.ContainsAny(subs, "()/=") {
		return true
	}
	for _, s := range strings.Split(subs, ",") {
		if strings.TrimSpace(s) == sub {
			return true
		}
	}
	return false
}
