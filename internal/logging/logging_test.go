package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	var buf bytes.Buffer
	log, err := New(&buf, "auto", "info") // a buffer is not a terminal: JSON
	if err != nil {
		t.Fatal(err)
	}
	log.Debug("hidden")
	log.Info("hello", "table", "shop.orders")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatalf("auto on a non-terminal must be JSON: %q", buf.String())
	}
	if rec["msg"] != "hello" || rec["table"] != "shop.orders" {
		t.Fatalf("record: %v", rec)
	}
	buf.Reset()
	log, _ = New(&buf, "text", "debug")
	log.Debug("visible")
	if !strings.Contains(buf.String(), "msg=visible") {
		t.Fatalf("text/debug: %q", buf.String())
	}
	if _, err := New(&buf, "xml", "info"); err == nil {
		t.Error("unknown format must fail")
	}
	if _, err := New(&buf, "json", "loud"); err == nil {
		t.Error("unknown level must fail")
	}
}

func TestDemotedLogsAtTheLowerLevel(t *testing.T) {
	var buf bytes.Buffer
	base := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})
	slog.New(Demoted(base, slog.LevelDebug)).Warn("partly parsed")
	if buf.Len() != 0 {
		t.Fatalf("a demoted WARN was logged at level info: %q", buf.String())
	}
	debug := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	slog.New(Demoted(debug, slog.LevelDebug)).Warn("partly parsed")
	if !strings.Contains(buf.String(), "level=DEBUG") || !strings.Contains(buf.String(), "partly parsed") {
		t.Fatalf("demoted record: %q", buf.String())
	}
}
