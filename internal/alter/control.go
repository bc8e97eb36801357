package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// newControl is the run's control: the file, the thresholds and the knobs
// as the options start them.
func newControl(o Options, db *sql.DB, log *slog.Logger) *control {
	return &control{path: o.ControlFile, db: db, maxLoad: loadGate{limits: o.MaxLoad}, critical: o.CriticalLoad, log: log,
		knobs:   knobs{chunkRows: o.ChunkRows, planned: o.ChunkRows, workers: o.Workers, niceRatio: o.NiceRatio},
		applied: map[string]string{}, logged: map[string]bool{}}
}

// errAbort is an operator's or the critical load's abort: everything the
// run created is removed.
var errAbort = errors.New("aborted")

// control is the operator's hand on a run: the control file (its last
// word: pause, resume, abort, cutover) and the load thresholds.
type control struct {
	path     string
	db       *sql.DB
	maxLoad  loadGate // --max-load, with its hysteresis
	critical Load
	lag      *lagWatch // nil without --max-lag
	log      *slog.Logger

	mu      sync.Mutex
	knobs   knobs
	pacer   *writePacer       // the copy's, once it starts (nil: not paced)
	applied map[string]string // each knob's value the file said last
	logged  map[string]bool   // unknown lines of the last read, logged once
	refused string            // the last refused line, for alter status
	word    string
	readAt  time.Time
	paused  bool
	why     string // why it is paused, for the progress line
	pausing time.Duration
}

// pausedWhy is why the run is paused now ("" when it is not).
func (c *control) pausedWhy() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}

// command returns the control file's current command ("" without a file)
// and applies its setting lines (readFile).
func (c *control) command() string {
	if c.path == "" {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.readAt) < 200*time.Millisecond {
		return c.word
	}
	c.readAt = time.Now()
	b, err := os.ReadFile(c.path)
	if err != nil {
		c.word = ""
		return ""
	}
	c.word = c.readFile(string(b))
	return c.word
}

// commandWords are the words a control file's command lines hold.
var commandWords = map[string]bool{"pause": true, "resume": true, "abort": true, "cutover": true}

// readFile reads the control file's text: its last command word is the
// command; a line starting with a knob's name ("chunk-rows 2000",
// "max-load Threads_running=40") sets that knob, the last such line of
// each knob winning, applied when it differs from what the file said
// before. A value the knob refuses, or a line neither a command nor a
// setting, is logged once with the reason and changes nothing. Called
// with c.mu held.
func (c *control) readFile(text string) string {
	word := ""
	logged := c.logged
	c.logged = map[string]bool{}
	lines := map[string]string{}
	var order []string
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if name := knobName(fields[0]); name != "" {
			if _, ok := lines[name]; !ok {
				order = append(order, name)
			}
			lines[name] = strings.Join(fields[1:], " ")
			continue
		}
		known := true
		for _, f := range fields {
			known = known && commandWords[strings.ToLower(f)]
		}
		if !known {
			line = strings.TrimSpace(line)
			c.logged[line] = true
			if !logged[line] {
				c.refuseLine(line, fmt.Errorf("not a command (pause, resume, abort, cutover) nor a setting (%s)", strings.Join(knobNames, ", ")))
			}
			continue
		}
		word = strings.ToLower(fields[len(fields)-1])
	}
	for _, name := range order {
		value := lines[name]
		if v, ok := c.applied[name]; ok && v == value {
			continue
		}
		c.applied[name] = value
		was := c.valueLocked(name)
		now, err := c.set(name, value)
		if err != nil {
			c.refuseLine(name+" "+value, fmt.Errorf("%w; %s stays %s", err, name, was))
			continue
		}
		c.refused = ""
		if now != was {
			c.log.Info("alter setting changed by the control file", "setting", name, "from", was, "to", now)
		}
	}
	return word
}

// refuseLine logs a control-file line that changes nothing. Called with
// c.mu held.
func (c *control) refuseLine(line string, why error) {
	c.refused = fmt.Sprintf("control file line %q refused, nothing changed: %v", line, why)
	c.log.Warn("control file line refused, nothing changed", "line", line, "why", why.Error())
}

// gate returns when work may go on: not paused, load below --max-load,
// every --replica within --max-lag. It returns errAbort for an abort in
// the control file or a load above --critical-load.
func (c *control) gate(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		reason := ""
		switch c.command() {
		case "abort":
			return fmt.Errorf("%w by the control file %s", errAbort, c.path)
		case "pause":
			reason = "paused by the control file " + c.path
		}
		if reason == "" {
			var err error
			if reason, err = c.load(ctx); err != nil {
				return err
			}
		}
		if reason == "" && c.lag != nil {
			if over := c.lag.check(ctx); over != "" {
				reason = "throttled: " + over
			}
		}
		c.mu.Lock()
		was, wasWhy := c.paused, c.why
		c.paused, c.why = reason != "", reason
		c.mu.Unlock()
		if reason == "" {
			if was {
				if c.lag != nil {
					c.log.Info("alter resumed", "replicas", c.lag.lastStatus())
				} else {
					c.log.Info("alter resumed")
				}
			}
			return nil
		}
		if !was || reasonKind(wasWhy) != reasonKind(reason) {
			// Again when the cause changes (a lagging replica that then
			// stops replicating), not when only its numbers move.
			c.log.Info("alter paused", "why", reason)
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}

// load reads the status variables of --critical-load and --max-load: an
// abort above the critical load, else why --max-load pauses the run ("").
func (c *control) load(ctx context.Context) (string, error) {
	c.mu.Lock()
	maxLoad, crit := c.maxLoad.limits, c.critical // replaced, never changed, by a setting line
	c.mu.Unlock()
	if len(crit) == 0 && len(maxLoad) == 0 {
		return "", nil
	}
	vals, err := c.status(ctx, maxLoad, crit)
	if err != nil {
		return "", err
	}
	critical := loadGate{limits: crit}
	if over := critical.firstOver(vals, 1); over != "" {
		return "", fmt.Errorf("%w: critical load: %s", errAbort, over)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.maxLoad.limits) == 0 {
		return "", nil
	}
	why, _ := c.maxLoad.step(vals, time.Now())
	return why, nil
}

// status reads every status variable --max-load and --critical-load name.
func (c *control) status(ctx context.Context, maxLoad, critical Load) (map[string]int64, error) {
	vals := map[string]int64{}
	for _, l := range []Load{maxLoad, critical} {
		for name := range l {
			if _, ok := vals[name]; ok {
				continue
			}
			var n, v string
			// SHOW cannot take a placeholder; ParseLoad allows only [A-Za-z0-9_].
			if err := c.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
				return nil, fmt.Errorf("alter: read status %s: %w", name, err)
			}
			vals[name], _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return vals, nil
}

// reasonKind is a pause reason without its digits: "replica r lag 3s >
// --max-lag 1s" is the same kind of reason as "… lag 2s …".
func reasonKind(why string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, why)
}

// setPacer hands the copy's pacer to keep-write-rate lines.
func (c *control) setPacer(p *writePacer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pacer = p
}

// refusal is the last control-file line refused ("" when none since).
func (c *control) refusal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}
