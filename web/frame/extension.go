package frame

import "github.com/gofiber/fiber/v2"

// Extension is a set of pages a console takes in from another package
// (account: the merchant console's Webhooks, Developers, Balance and Team
// pages), so that pages can live in files of their own: Extend adds its
// templates, messages, navigation and helpers to the console's before New
// checks them, and Register mounts its routes on the logged-in group
// before the console adds its own.
type Extension interface {
	Extend(d *Deps) error
	Register(g fiber.Router, u *UI)
}
