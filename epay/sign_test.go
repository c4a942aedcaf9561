package epay

import "testing"

// The expected signs were computed outside our code (PHP's md5 over the
// strings shown), so a change of rule fails here.
func TestSign(t *testing.T) {
	tests := []struct {
		name string
		p    Params
		key  string
		base string
		sign string // md5(base + key) from PHP
	}{
		{"empty values, sign and sign_type left out",
			Params{"pid": "1001", "type": "t1", "money": "1.00", "param": "", "sign": "x", "sign_type": "MD5"}, "k",
			"money=1.00&pid=1001&type=t1", "eb2ab7d98584b58eead33ff7711fdae4"},
		{"values as sent, & and = inside a value",
			Params{"name": "a&b=c", "pid": "1"}, "key",
			"name=a&b=c&pid=1", "658e02c362f852e74d1274ba1bdab83e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SignBase(tt.p); got != tt.base {
				t.Fatalf("base %q, want %q", got, tt.base)
			}
			if got := Sign(tt.p, tt.key); got != tt.sign {
				t.Fatalf("sign %s, want %s", got, tt.sign)
			}
			tt.p["sign"] = tt.sign
			if !Verify(tt.p, tt.key) {
				t.Fatal("own sign refused")
			}
			tt.p["pid"] += "0"
			if Verify(tt.p, tt.key) {
				t.Fatal("a changed pid verified")
			}
		})
	}
}

func TestParseTypes(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"two words", "t1=wallet_a, t2=wallet_b", true},
		{"empty", "", true},
		{"unknown method", "t1=nope", false},
		{"a word twice", "t1=wallet_a,t1=wallet_b", false},
		{"no equals", "t1", false},
		{"upper case word", "T1=wallet_a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ty, err := ParseTypes(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && tt.in != "" {
				if m, _ := ty.Method("t2"); m != "wallet_b" {
					t.Fatalf("t2 is %q", m)
				}
				if w, _ := ty.Word("wallet_a"); w != "t1" {
					t.Fatalf("wallet_a is %q", w)
				}
			}
		})
	}
}
