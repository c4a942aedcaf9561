package checkout

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed assets/*
var assetFiles embed.FS

// assets are the pages' style sheet and script, served by us under names
// that carry their content hash, so a browser may keep them for a year and
// a new release is fetched at once.
type assets struct {
	paths  assetPaths
	byName map[string]asset
}

type assetPaths struct{ CSS, JS string }

type asset struct {
	body  []byte
	ctype string
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]asset{}}
	for _, f := range []struct {
		file, ctype string
		to          *string
	}{{"app.css", "text/css; charset=utf-8", &a.paths.CSS}, {"app.js", "text/javascript; charset=utf-8", &a.paths.JS}} {
		body, err := assetFiles.ReadFile("assets/" + f.file)
		if err != nil {
			return nil, fmt.Errorf("read asset %s: %w", f.file, err)
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(f.file)
		name := strings.TrimSuffix(f.file, ext) + "." + hex.EncodeToString(sum[:6]) + ext
		a.byName[name] = asset{body: body, ctype: f.ctype}
		*f.to = "/checkout/assets/" + name
	}
	return a, nil
}

func (a *assets) serve(c *fiber.Ctx) error {
	f, ok := a.byName[c.Params("name")]
	if !ok {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderContentType, f.ctype)
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	c.Set("X-Content-Type-Options", "nosniff")
	return c.Send(f.body)
}
