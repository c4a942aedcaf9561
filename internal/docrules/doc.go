// Package docrules holds the repository-wide rules for what our comments and
// documents may say, checked by reading the files rather than trusting
// review. The one rule so far: no tracker numbers. A newcomer cannot see our
// issue tracker, so the word "issue" or a hash followed by a ticket's
// number, in a comment, a test or a Markdown page, tells them nothing; the
// text has to say the reason, the requirement or the figure instead. Links
// to public upstream trackers (golang/go#NNN and the like) are allowed,
// because anyone can follow them.
//
// Its test walks the files git tracks (Go, Markdown, Lua, shell, YAML, the
// Makefile, the Dockerfile, scripts/ and .ci/) and fails with file:line for
// each reference, so one that slips back in fails `make test`.
package docrules
