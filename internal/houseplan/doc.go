// Package houseplan holds the tree's layout rules as tests, so that the
// house stays the one docs/architecture.md draws: HTTP only in the doors
// (web/...), the commands (cmd/...) and the one server package; the use
// cases never importing a door; no file past 400 lines and no type past 25
// methods, the sizes past which a reader stops holding the whole in mind.
package houseplan
