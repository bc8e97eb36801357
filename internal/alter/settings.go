package alter

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxWorkers bounds a live "workers N": each worker holds a session on the
// source.
const maxWorkers = 64

// knobs are the settings a control-file line changes while the run goes on
// (settings.go): read by the copy at each chunk, under control.mu.
type knobs struct {
	chunkRows int64 // rows per copy statement (at most the plan's chunk)
	planned   int64 // the plan's chunk size, --chunk-rows at the start
	workers   int
	niceRatio float64
}

// Knob names of the control file's setting lines, each the flag's name.
var knobNames = []string{"chunk-rows", "workers", "max-load", "critical-load", "max-lag", "keep-write-rate", "nice-ratio"}

// knobAliases are other names operators use for the same knob (gh-ost's).
var knobAliases = map[string]string{"chunk-size": "chunk-rows", "threads": "workers"}

// knobName is the knob a control-file line's first word names ("" if none).
func knobName(word string) string {
	word = strings.TrimPrefix(strings.ToLower(word), "--")
	if a, ok := knobAliases[word]; ok {
		return a
	}
	for _, n := range knobNames {
		if n == word {
			return n
		}
	}
	return ""
}

// set applies one setting line's value to the run; an error says why the
// value is refused, and then nothing has changed. It returns the value now
// in force, for the log. Called with c.mu held.
func (c *control) set(name, value string) (string, error) {
	switch name {
	case "chunk-rows":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 1 || n > c.knobs.planned {
			return "", fmt.Errorf("want a number of rows from 1 to %d (the plan's chunk, --chunk-rows at the start, is what a run resumes by; a smaller size copies each chunk in pieces)", c.knobs.planned)
		}
		c.knobs.chunkRows = n
	case "workers":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > maxWorkers {
			return "", fmt.Errorf("want a number of copy sessions from 1 to %d", maxWorkers)
		}
		c.knobs.workers = n
	case "nice-ratio":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 || f > 100 {
			return "", fmt.Errorf("want a ratio from 0 to 100 (0.5: sleep half of each chunk's copy time after it)")
		}
		c.knobs.niceRatio = f
	case "max-load", "critical-load":
		l := Load{}
		if !strings.EqualFold(value, "off") {
			var err error
			if l, err = ParseLoad(value); err != nil || len(l) == 0 {
				return "", fmt.Errorf("want Variable=N[,Variable=N], e.g. Threads_running=50, or off")
			}
		}
		if name == "critical-load" {
			c.critical = l
		} else {
			c.maxLoad = loadGate{limits: l}
		}
	case "max-lag":
		d, err := time.ParseDuration(value)
		switch {
		case c.lag == nil:
			return "", fmt.Errorf("the run watches no replica (start it with --replica and --max-lag)")
		case err != nil || d <= 0:
			return "", fmt.Errorf("want a positive duration, e.g. 1500ms")
		}
		c.lag.setMax(d)
	case "keep-write-rate":
		f, err := strconv.ParseFloat(value, 64)
		switch {
		case c.pacer == nil:
			return "", fmt.Errorf("the run does not pace its copy (it was started with --keep-write-rate 0, or the copy has not started)")
		case err != nil || f < 0 || f >= 1:
			return "", fmt.Errorf("want a share of the table's write rate below 1 (0.9), or 0 for no pacing")
		}
		c.pacer.setKeep(f)
	}
	return c.valueLocked(name), nil
}

// valueLocked is a knob's value in force, as its line would write it.
// Called with c.mu held.
func (c *control) valueLocked(name string) string {
	switch name {
	case "chunk-rows":
		return strconv.FormatInt(c.knobs.chunkRows, 10)
	case "workers":
		return strconv.Itoa(c.knobs.workers)
	case "nice-ratio":
		return strconv.FormatFloat(c.knobs.niceRatio, 'g', -1, 64)
	case "max-load":
		return c.maxLoad.limits.String()
	case "critical-load":
		return c.critical.String()
	case "max-lag":
		if c.lag == nil {
			return "off"
		}
		return c.lag.limit().String()
	case "keep-write-rate":
		if c.pacer == nil {
			return "0"
		}
		return strconv.FormatFloat(c.pacer.keepShare(), 'g', -1, 64)
	}
	return ""
}

// settings are every knob's value in force, in knobNames order.
func (c *control) settings() []Setting {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Setting, 0, len(knobNames))
	for _, n := range knobNames {
		out = append(out, Setting{Name: n, Value: c.valueLocked(n)})
	}
	return out
}

// Setting is one knob and its value in force (alter status).
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// String writes the thresholds as the flag takes them ("off" when none).
func (l Load) String() string {
	if len(l) == 0 {
		return "off"
	}
	parts := make([]string, 0, len(l))
	for _, n := range l.names() {
		parts = append(parts, fmt.Sprintf("%s=%d", n, l[n]))
	}
	return strings.Join(parts, ",")
}

// chunkRows, workers and niceRatio are the copy's knobs in force.
func (c *control) chunkRows() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.knobs.chunkRows
}

func (c *control) workers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.knobs.workers
}

func (c *control) niceRatio() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.knobs.niceRatio
}
