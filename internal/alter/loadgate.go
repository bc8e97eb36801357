package alter

import (
	"fmt"
	"sort"
	"time"
)

// Hysteresis of --max-load: a load that hovers at the threshold paused and
// resumed the copy 131 times in 40 s (a new user's trial), each pause and
// resume logged. Paused above the limit, the run resumes only once every
// variable has stayed below resumeShare of its limit for resumeAfter.
const (
	resumeShare = 0.8
	resumeAfter = time.Second
)

// loadGate is --max-load's state: pure logic over the values read, so that
// a scripted series tests it (loadgate_test.go).
type loadGate struct {
	limits Load
	paused bool
	why    string    // the variable over the limit that paused it
	calm   time.Time // since when every variable is below its resume mark (zero: not)
}

// step takes the status values read at now and says why the run is paused
// ("" when it may go on) and whether the state changed with this reading.
func (g *loadGate) step(vals map[string]int64, now time.Time) (why string, changed bool) {
	if over := g.firstOver(vals, 1); over != "" {
		g.calm = time.Time{}
		changed = !g.paused
		g.paused, g.why = true, over
		return g.pausedWhy(), changed
	}
	if !g.paused {
		return "", false
	}
	if g.firstOver(vals, resumeShare) != "" {
		g.calm = time.Time{}
		return g.pausedWhy(), false
	}
	if g.calm.IsZero() {
		g.calm = now
	}
	if now.Sub(g.calm) < resumeAfter {
		return g.pausedWhy(), false
	}
	g.paused, g.why, g.calm = false, "", time.Time{}
	return "", true
}

func (g *loadGate) pausedWhy() string {
	return fmt.Sprintf("throttled: %s (resumes below %.0f%% of the limit for %s)", g.why, 100*resumeShare, resumeAfter)
}

// firstOver names the first variable (in name order) above share of its
// limit ("" when none).
func (g *loadGate) firstOver(vals map[string]int64, share float64) string {
	for _, name := range g.limits.names() {
		limit := g.limits[name]
		if v, ok := vals[name]; ok && float64(v) > share*float64(limit) {
			return fmt.Sprintf("%s=%d > %d", name, v, limit)
		}
	}
	return ""
}

// names are the variables in name order (a stable first reason).
func (l Load) names() []string {
	out := make([]string, 0, len(l))
	for name := range l {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
