package preflight_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/preflight"
)

// Nothing listens on port 1: both sides must fail fast, each with its own
// one-line reason, and never show the password.
func TestUnreachableServers(t *testing.T) {
	src, err := config.ParseSource("mysql://bad:hunter2@127.0.0.1:1/x")
	if err != nil {
		t.Fatal(err)
	}
	dst := mustTarget(t, "postgres://bad:hunter2@127.0.0.1:1/x")
	start := time.Now()
	rep := preflight.Check(context.Background(), src, dst, preflight.Needs{Source: true, Binlog: true, Target: true, TargetCreate: true})
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("pre-flight took %s, want < 10s", d)
	}
	errs := rep.Errors()
	if len(errs) != 2 {
		t.Fatalf("want one problem per side, got %v", errs)
	}
	msg := rep.Err().Error()
	if strings.Contains(msg, "hunter2") {
		t.Fatalf("password printed: %s", msg)
	}
	for _, want := range []string{"source: cannot reach 127.0.0.1:1: connection refused", "target: cannot reach 127.0.0.1:1: connection refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}
