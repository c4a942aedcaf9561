// Package frame is the frame both consoles stand on: the merchant console
// (/console) and the operator console (/admin). It knows nothing of either:
// a console gives it its realm, cookie name and base path, its navigation
// (each item behind a permission), its page templates, messages and
// assets, and gets the layout, the security headers with per-request CSP
// nonces, sessions and CSRF checks over access.Accounts, the login, logout
// and setup pages, permission guards that answer with a page, SVG charts
// and a pager.
//
// Everything a page needs of the person comes from the session the
// middleware put in the request (SessionOf); a page never reads cookies
// itself, so a console cannot forget a check the frame makes.
package frame
