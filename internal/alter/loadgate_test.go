package alter

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLoadGateHysteresis: a load hovering at --max-load pauses once and
// resumes once, only after it stayed below 80 % of the limit for a second;
// a new user's trial saw 131 pause/resume pairs in 40 s without this.
func TestLoadGateHysteresis(t *testing.T) {
	g := loadGate{limits: Load{"Threads_running": 50}}
	t0 := time.Unix(1_000_000, 0)
	// One reading every 100 ms: hovering around 50, then calm, a blip
	// above the resume mark, calm again.
	series := []int64{
		10, 49, 51, 49, 52, 48, 50, 51, 45, 41, // over and around the limit: paused from the 3rd
		39, 39, 39, 39, 41, // below 40 for 400 ms, then above the mark: still paused
		30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, // below for 1 s: resumed at the 11th
		45, 49, 50, // under the limit: running
		60, // over: paused again
	}
	wantPaused := []bool{
		false, false, true, true, true, true, true, true, true, true,
		true, true, true, true, true,
		true, true, true, true, true, true, true, true, true, true, false,
		false, false, false,
		true,
	}
	var changes []int
	for i, v := range series {
		why, changed := g.step(map[string]int64{"Threads_running": v}, t0.Add(time.Duration(i)*100*time.Millisecond))
		if paused := why != ""; paused != wantPaused[i] {
			t.Fatalf("reading %d (%d): paused %v, want %v (why %q)", i, v, paused, wantPaused[i], why)
		}
		if changed {
			changes = append(changes, i)
		}
	}
	if want := []int{2, 25, 29}; !slices.Equal(changes, want) {
		t.Errorf("state changes at readings %v, want %v (each change once)", changes, want)
	}
	why, _ := g.step(map[string]int64{"Threads_running": 60}, t0.Add(10*time.Second))
	if !strings.Contains(why, "Threads_running=60 > 50") || !strings.Contains(why, "80%") {
		t.Errorf("reason %q: want the variable, its value, the limit and the resume mark", why)
	}
}

// TestLoadGateEveryVariable: the run resumes only when every variable is
// below its mark, and the first reason is stable (name order).
func TestLoadGateEveryVariable(t *testing.T) {
	g := loadGate{limits: Load{"Threads_running": 50, "Threads_connected": 500}}
	t0 := time.Unix(1_000_000, 0)
	why, _ := g.step(map[string]int64{"Threads_running": 60, "Threads_connected": 600}, t0)
	if !strings.HasPrefix(why, "throttled: Threads_connected=600 > 500") {
		t.Fatalf("why %q: want Threads_connected first (name order)", why)
	}
	for i := 1; i <= 20; i++ {
		why, _ = g.step(map[string]int64{"Threads_running": 10, "Threads_connected": 450}, t0.Add(time.Duration(i)*100*time.Millisecond))
		if why == "" {
			t.Fatalf("resumed at reading %d with Threads_connected 450 above its mark 400", i)
		}
	}
	for i := 21; i <= 31; i++ {
		why, _ = g.step(map[string]int64{"Threads_running": 10, "Threads_connected": 100}, t0.Add(time.Duration(i)*100*time.Millisecond))
	}
	if why != "" {
		t.Errorf("still paused (%q) after both stayed below their marks for 1 s", why)
	}
}
