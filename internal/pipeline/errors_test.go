package pipeline

import (
	"errors"
	"testing"
)

// The detail line sits after the driver's message, as the PgError's DETAIL
// did when this package unwrapped it itself.
func TestErrorDetail(t *testing.T) {
	e := &Error{SQL: "INSERT 1", Err: errors.New("duplicate key"), Detail: "Key (id)=(1) already exists."}
	want := "apply: source transaction ending at (large transaction, not yet complete): SQL: INSERT 1: duplicate key (Key (id)=(1) already exists.)"
	if got := e.Error(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	e.Detail = ""
	if got := e.Error(); got != want[:len(want)-len(" (Key (id)=(1) already exists.)")] {
		t.Fatalf("without detail: %q", got)
	}
}
