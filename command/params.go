package command

import (
	"github.com/valyala/fasthttp"

	"github.com/paygate/gateway/platform"
	"github.com/paygate/gateway/schema"
)

// MaxBody is DESIGN.md's bound on a create request (and on the API confirms' form).
const MaxBody = 64 << 10

// ParseJSONParams reads a create body: one JSON object of flat values. A
// number keeps its literal (the signature signs it as sent), null means
// absent, and nested values are refused because SPEC.md signs a flat set.
// Duplicate names are refused too: which one was signed would be a guess.
func ParseJSONParams(body []byte) (schema.Params, error) {
	if len(body) > MaxBody {
		return nil, platform.Errorf(platform.KindTooLarge, "request body is larger than 64 KiB")
	}
	return scanObject(body)
}

func badJSON(err error) error {
	return &platform.Error{Kind: platform.KindBadRequest, Msg: "request body is not valid JSON", Err: err}
}

// ParseQueryParams reads the same parameters from a GET query string.
func ParseQueryParams(args *fasthttp.Args) (schema.Params, error) {
	p := make(schema.Params, 16)
	var err error
	args.VisitAll(func(k, v []byte) {
		name := string(k)
		if _, dup := p[name]; dup && err == nil {
			err = platform.Errorf(platform.KindBadRequest, "parameter %s is given twice", name)
		}
		p[name] = string(v)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
