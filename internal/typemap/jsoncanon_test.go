package typemap

import (
	"testing"
)

func TestCanonicalJSONEqual(t *testing.T) {
	// Each pair is the same document as MariaDB may store it (source) and
	// as jsonb prints it (target).
	same := [][2]string{
		{`{"b": 1, "a": [1, 2]}`, `{"a": [1, 2], "b": 1}`},
		{`{"a":1.50}`, `{"a": 1.5}`},
		{`{"a":1e2}`, `{"a": 100}`},
		{`{"a":-0}`, `{"a": 0}`},
		{`"x\u00e9"`, `"xé"`},
		{`{"k":1,"k":2}`, `{"k": 2}`},
		{`"\u0000x"`, `"x"`}, // NUL stripped by the default policy
		{``, `null`},         // empty document read as null
		{`[true,false,null,"<&>"]`, `[true, false, null, "<&>"]`},
		{`{"aa":1,"b":2,"a":3}`, `{"a": 3, "b": 2, "aa": 1}`}, // jsonb orders keys by length first
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
	}
	for _, p := range same {
		a, err := CanonicalJSON([]byte(p[0]), true, NulStrip)
		if err != nil {
			t.Fatalf("%s: %v", p[0], err)
		}
		b, err := CanonicalJSON([]byte(p[1]), false, NulStrip)
		if err != nil {
			t.Fatalf("%s: %v", p[1], err)
		}
		if a != b {
			t.Errorf("%s vs %s: %q != %q", p[0], p[1], a, b)
		}
	}
	differ := [][2]string{
		{`{"a":1}`, `{"a": 2}`},
		{`{"a":0.1}`, `{"a": 0.10000000000000001}`},
		{`{"a":"1"}`, `{"a": 1}`},
		{`[1,2]`, `[2, 1]`},
		{`{"a":null}`, `{}`},
		{`"x "`, `"x"`},
		{`123456789012345678901234567890`, `123456789012345678901234567891`},
		{`{"a":{"b":[1,{"c":true}]}}`, `{"a": {"b": [1, {"c": false}]}}`},
	}
	for _, p := range differ {
		a, _ := CanonicalJSON([]byte(p[0]), true, NulStrip)
		b, _ := CanonicalJSON([]byte(p[1]), false, NulStrip)
		if a == b {
			t.Errorf("%s vs %s: both %q", p[0], p[1], a)
		}
	}
	if _, err := CanonicalJSON([]byte(`{"a":`), true, NulStrip); err == nil {
		t.Error("truncated JSON accepted")
	}
	if _, err := CanonicalJSON([]byte(`1 2`), true, NulStrip); err == nil {
		t.Error("two documents accepted")
	}
	r, _ := CanonicalJSON([]byte(`"a\u0000"`), true, NulReplace)
	if r != "\"a\uFFFD\"" {
		t.Errorf("NUL replace: %q", r)
	}
}

func TestCanonicalDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0.0": "0", "1": "0.1e1", "100": "0.1e3", "1.5": "0.15e1", "0.001": "0.1e-2",
		"-12.340": "-0.1234e2", "1E+2": "0.1e3", "1.2e-3": "0.12e-2", "00012": "0.12e2",
	} {
		got, err := canonicalDecimal(in)
		if err != nil || got != want {
			t.Errorf("canonicalDecimal(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
