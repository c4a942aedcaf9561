package providertest

import (
	"testing"
	"time"
)

func TestInbox(t *testing.T) {
	in := NewInbox[int]()
	if _, ok := in.Within(10 * time.Millisecond); ok {
		t.Fatal("empty inbox gave something")
	}
	in.Put(1)
	in.Put(2)
	if in.Next(t) != 1 || in.Next(t) != 2 {
		t.Fatal("inbox out of order")
	}
}

func TestLog(t *testing.T) {
	var l Log[int]
	if l.Last() != 0 || len(l.All()) != 0 {
		t.Fatal("empty log has entries")
	}
	go func() {
		for i := 1; i <= 100; i++ { // more than any buffer: Add never blocks
			l.Add(i)
		}
	}()
	if got := l.WaitFor(t, "hundredth", func(v int) bool { return v == 100 }); got != 100 {
		t.Fatalf("WaitFor = %d", got)
	}
	if l.Last() != 100 || len(l.All()) != 100 {
		t.Fatalf("Last %d, %d entries", l.Last(), len(l.All()))
	}
}

func TestVectors(t *testing.T) {
	var f struct {
		Cases []struct{ Name string } `json:"cases"`
	}
	vectorsPath = "../../testdata/provider-vectors.json"
	Family(t, "cryptohost", &f)
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
}
