package docrules

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// Finding is one tracker reference: where it is and the text that matched.
type Finding struct {
	File string
	Line int
	Text string
}

func (f Finding) String() string { return fmt.Sprintf("%s:%d: %q", f.File, f.Line, f.Text) }

// trackerRefs are the ways a tracker number gets written: "issue N",
// "issues N and M", "issue #N", "issueN", "(#N)", "see #N", "fixes #N"
// (the planted cases of scan_test.go spell each out with real digits). A bare "#42" is left alone: it is an order number in test
// data, a CSS colour or "PKCS #8" far more often than a ticket.
var trackerRefs = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bissues?[\s_-]*#?\d+`),
	regexp.MustCompile(`\(#\d+\)`),
	regexp.MustCompile(`(?i)\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|per|refs?)\s+#\d+`),
}

// repoRef is a reference into some repository's tracker: owner/name#N or
// a URL's owner/name/issues/N (or /pull/N). It counts only when owner/name
// is not one of the public upstream trackers below.
var repoRef = regexp.MustCompile(`([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)(?:#|/issues/|/pull/)\d+`)

// Upstream lists the public trackers a comment may link to, as owner/name.
// Anyone can read them, so a link there explains itself.
var Upstream = []string{
	"golang/go",
	"gofiber/fiber",
	"valyala/fasthttp",
	"redis/go-redis",
	"redis/redis",
	"ClickHouse/ClickHouse",
	"ClickHouse/clickhouse-go",
	"prometheus/client_golang",
	"chromedp/chromedp",
	"dequelabs/axe-core",
}

// Wanted reports whether the file at slash-separated path p (relative to
// the repository root) is one the rule reads: Go, Markdown, Lua, shell,
// YAML, the Makefile, Dockerfile, and everything under scripts/ and .ci/.
func Wanted(p string) bool {
	if strings.HasPrefix(p, "scripts/") || strings.HasPrefix(p, ".ci/") {
		return true
	}
	switch path.Base(p) {
	case "Makefile", "Dockerfile", "docker-compose.yml":
		return true
	}
	switch path.Ext(p) {
	case ".go", ".md", ".lua", ".sh", ".yml", ".yaml":
		return true
	}
	return false
}

// commentLead is what a wrapped comment line starts with; it is dropped
// when a line is joined to the one before, so "(issue" at the end of one
// line and "// N)" at the start of the next still read as one reference.
var commentLead = regexp.MustCompile(`^\s*(?://+|#+|--+|\*|>)?\s*`)

// Scan reads one file and returns each line holding a tracker reference,
// including one split across two lines. name is only used in the findings.
func Scan(name string, r io.Reader) ([]Finding, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var out []Finding
	for i, line := range lines {
		if m := match(line); m != "" {
			out = append(out, Finding{File: name, Line: i + 1, Text: m})
			continue
		}
		if i+1 == len(lines) {
			continue
		}
		next := commentLead.ReplaceAllString(lines[i+1], "")
		if match(next) != "" {
			continue // reported on its own line
		}
		if m := match(line + " " + next); m != "" {
			out = append(out, Finding{File: name, Line: i + 1, Text: m})
		}
	}
	return out, nil
}

// match returns the first tracker reference in s, or "".
func match(s string) string {
	for _, re := range trackerRefs {
		if m := re.FindString(s); m != "" {
			return m
		}
	}
	for _, sm := range repoRef.FindAllStringSubmatch(s, -1) {
		if !upstream(sm[1]) {
			return sm[0]
		}
	}
	return ""
}

func upstream(ownerName string) bool {
	for _, u := range Upstream {
		if strings.EqualFold(ownerName, u) {
			return true
		}
	}
	return false
}
