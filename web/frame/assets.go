package frame

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed assets/*
var frameAssets embed.FS

// assets are the frame's and the console's style sheets and scripts, served
// by us under names carrying their content hash, so browsers keep them a
// year and a release is fetched at once. Nothing loads from another host.
type assets struct {
	paths  map[string]string // logical name → URL path
	byName map[string]asset  // hashed name → file
}

type asset struct {
	body  []byte
	ctype string
}

func loadAssets(base string, app fs.FS) (*assets, error) {
	a := &assets{paths: map[string]string{}, byName: map[string]asset{}}
	sub, err := fs.Sub(frameAssets, "assets")
	if err != nil {
		return nil, err
	}
	for _, fsys := range []fs.FS{sub, app} {
		if fsys == nil {
			continue
		}
		if err := a.add(base, fsys); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *assets) add(base string, fsys fs.FS) error {
	files, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return fmt.Errorf("frame: list assets: %w", err)
	}
	for _, f := range files {
		if f.IsDir() {
			continue
		}
		body, err := fs.ReadFile(fsys, f.Name())
		if err != nil {
			return fmt.Errorf("frame: read asset %s: %w", f.Name(), err)
		}
		if _, dup := a.paths[f.Name()]; dup {
			return fmt.Errorf("frame: asset %s is the frame's; name it otherwise", f.Name())
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(f.Name())
		name := strings.TrimSuffix(f.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		ctype := mime.TypeByExtension(ext)
		if ext == ".js" {
			ctype = "text/javascript; charset=utf-8"
		}
		a.byName[name] = asset{body: body, ctype: ctype}
		a.paths[f.Name()] = base + "/assets/" + name
	}
	return nil
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
