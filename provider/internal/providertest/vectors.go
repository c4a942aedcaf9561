package providertest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// vectorsPath is the shared vectors file as a family's test (run in
// provider/<family>) finds it.
var vectorsPath = filepath.Join("..", "testdata", "provider-vectors.json")

// Vectors decodes the whole shared vectors file into v; numbers that v
// leaves open (any) stay json.Number, so no literal is rounded.
func Vectors(t testing.TB, v any) {
	t.Helper()
	b, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := decode(b, v); err != nil {
		t.Fatalf("%s: %v", vectorsPath, err)
	}
}

// Family decodes the vectors of one family (the file's families[name])
// into v, failing the test when the file has none.
func Family(t testing.TB, name string, v any) {
	t.Helper()
	var all struct {
		Families map[string]json.RawMessage `json:"families"`
	}
	Vectors(t, &all)
	raw, ok := all.Families[name]
	if !ok {
		t.Fatalf("no %s vectors", name)
	}
	if err := decode(raw, v); err != nil {
		t.Fatalf("%s vectors: %v", name, err)
	}
}

func decode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}
