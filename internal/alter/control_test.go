package alter

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestReasonKind: a pause is logged again when its cause changes, not when
// only the numbers in its reason move.
func TestReasonKind(t *testing.T) {
	lag2 := "throttled: replica 127.0.0.1:3306 lag 2s > --max-lag 1s"
	lag3 := "throttled: replica 127.0.0.1:3306 lag 3s > --max-lag 1s"
	stopped := "throttled: replica 127.0.0.1:3306 is not replicating: SQL thread no (counts as over --max-lag)"
	load := "throttled: Threads_running=57 > 50"
	if reasonKind(lag2) != reasonKind(lag3) {
		t.Errorf("%q and %q are one kind of reason", lag2, lag3)
	}
	for _, other := range []string{stopped, load, ""} {
		if reasonKind(lag2) == reasonKind(other) {
			t.Errorf("%q and %q are different reasons", lag2, other)
		}
	}
}

// TestControlFileSettings: setting lines change the knobs they name, the
// last line of a knob winning; a malformed or out-of-range value, or a
// line that is neither a command nor a setting, is refused with its
// reason logged and changes nothing.
func TestControlFileSettings(t *testing.T) {
	var logs bytes.Buffer
	c := newControl(Options{ChunkRows: 1000, Workers: 4, MaxLoad: Load{"Threads_running": 50}}, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	value := func(name string) string {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.valueLocked(name)
	}
	word := c.readFile("chunk-rows 200\nchunk-size 300\nWORKERS 2\nmax-load Threads_running=40,Threads_connected=900\nnice-ratio 0.5\npause\n")
	if word != "pause" {
		t.Errorf("command: got %q, want pause", word)
	}
	for name, want := range map[string]string{"chunk-rows": "300", "workers": "2", "max-load": "Threads_connected=900,Threads_running=40", "nice-ratio": "0.5",
		"critical-load": "off", "max-lag": "off", "keep-write-rate": "0"} {
		if got := value(name); got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
	logs.Reset()
	word = c.readFile("chunk-rows 0\nworkers many\nmax-load Threads_running\nmax-lag 1s\nkeep-write-rate 0.5\nnice-ratio -1\nchunk-rows 1001\nfrobnicate 3\nresume")
	if word != "resume" {
		t.Errorf("command: got %q, want resume", word)
	}
	for name, want := range map[string]string{"chunk-rows": "300", "workers": "2", "max-load": "Threads_connected=900,Threads_running=40", "nice-ratio": "0.5"} {
		if got := value(name); got != want {
			t.Errorf("after refused lines, %s: got %q, want %q (unchanged)", name, got, want)
		}
	}
	for _, want := range []string{`line="chunk-rows 1001"`, "from 1 to 1000", `line="workers many"`, `line="max-load Threads_running"`,
		`line="max-lag 1s"`, "watches no replica", `line="keep-write-rate 0.5"`, "does not pace", `line="nice-ratio -1"`,
		`line="frobnicate 3"`, "chunk-rows stays 300"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
	// Read again unchanged: nothing is logged twice.
	logs.Reset()
	c.readFile("chunk-rows 0\nworkers many\nmax-load Threads_running\nmax-lag 1s\nkeep-write-rate 0.5\nnice-ratio -1\nchunk-rows 1001\nfrobnicate 3\nresume")
	if logs.Len() != 0 {
		t.Errorf("the same file logged again:\n%s", logs.String())
	}
	if c.readFile("max-load off") != "" || value("max-load") != "off" {
		t.Errorf("max-load off: got %q", value("max-load"))
	}
}
