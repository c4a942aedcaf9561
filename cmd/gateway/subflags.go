package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
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
// (and not blank), else the OS user; never empty.
func cliActor(by string, byGiven bool, osUser func() string) (string, error) {
	name := strings.TrimSpace(by)
	if !byGiven {
		name = strings.TrimSpace(osUser())
	}
	if name == "" {
		return "", errNoActor
	}
	return "cli:" + name, nil
}
