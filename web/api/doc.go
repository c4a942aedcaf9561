// Package api is the merchant API's HTTP door: each route reads its
// request, calls one use case (command's, query's, the dispatcher's resend)
// and writes its answer; errors go to the app's ErrorHandler, whose one
// table maps their kinds to statuses. It holds no rule of its own beyond
// reading and writing HTTP, so a rule lives in the use case whichever door
// a call comes in by (the CLI, the pages). Provider notifications have their
// own door, web/notify.
package api
