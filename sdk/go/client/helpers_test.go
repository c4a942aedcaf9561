package client

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedFile is a file the gateway's repository holds for the SDKs (the
// sign vectors, the OpenAPI document): where the env variable says (make
// test-sdk sets it), else at rel from the repository's root when this
// module sits in it, else the test is skipped (the SDK copied elsewhere).
func sharedFile(t *testing.T, env, rel string) string {
	t.Helper()
	if p := os.Getenv(env); p != "" {
		return p
	}
	p := filepath.Join("..", "..", "..", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s unset and no %s: not inside the gateway's repository", env, rel)
	}
	return p
}

// testClient is a Client of made-up credentials for the gateway at base.
func testClient(t *testing.T, base string, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: base, AppID: "1001", APIKey: "k3y", QueryKey: "q-key", ClientIP: "203.0.113.7", Backoff: 1}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
