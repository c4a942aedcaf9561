package account

import (
	"embed"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/platform"
)

// The SDKs' READMEs as the console shows them. They are copies of
// sdk/<lang>/README.md (the Go SDK is a module of its own, whose files no
// package of this module may embed); a test keeps each copy equal to its
// original, so the page cannot tell a merchant something the SDK no longer
// does.
//
//go:embed sdkdocs/*.md
var sdkDocFiles embed.FS

// sdkDoc is one SDK on the Developers page.
type sdkDoc struct {
	Lang, Name string
}

// sdkDocs are the official SDKs, in the order the Developers page lists
// them (how each installs is its README's first section).
var sdkDocs = []sdkDoc{{"php", "PHP"}, {"python", "Python"}, {"node", "Node (TypeScript)"}, {"go", "Go"}}

// sdkDocData is one SDK's README page.
type sdkDocData struct {
	SDK    sdkDoc
	README string
}

// shownSDKs are the SDKs whose README the console holds.
func shownSDKs() []sdkDoc {
	var out []sdkDoc
	for _, s := range sdkDocs {
		if _, err := sdkDocFiles.Open("sdkdocs/" + s.Lang + ".md"); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// sdk shows one SDK's README: install, a create, webhook verification.
func (h handlers) sdk(c *fiber.Ctx) error {
	lang := strings.Clone(c.Params("lang"))
	for _, s := range shownSDKs() {
		if s.Lang != lang {
			continue
		}
		raw, err := sdkDocFiles.ReadFile("sdkdocs/" + s.Lang + ".md")
		if err != nil {
			return h.ui.Fail(c, err)
		}
		v := h.ui.View(c, "desk_sdk_title")
		v.Data, v.Path = sdkDocData{SDK: s, README: string(raw)}, h.ui.Config().Base+"/developers"
		return h.ui.Render(c, "desk_sdk", v)
	}
	return h.ui.Fail(c, platform.Errorf(platform.KindNotFound, "no such SDK"))
}
