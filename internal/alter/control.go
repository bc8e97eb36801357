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

// errAbort is an operator's or the critical load's abort: everything the
// run created is removed.
var errAbort = errors.New("aborted")

// control is the operator's hand on a run: the control file (its last
// word: pause, resume, abort, cutover) and the load thresholds.
type control struct {
	path     string
	db       *sql.DB
	maxLoad  Load
	critical Load
	lag      *lagWatch // nil without --max-lag
	log      *slog.Logger

	mu      sync.Mutex
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

// command returns the control file's current word ("" without a file).
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
	fields := strings.Fields(strings.ToLower(string(b)))
	c.word = ""
	if len(fields) > 0 {
		c.word = fields[len(fields)-1]
	}
	return c.word
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
			over, err := c.over(ctx, c.critical)
			if err != nil {
				return err
			}
			if over != "" {
				return fmt.Errorf("%w: critical load: %s", errAbort, over)
			}
			if over, err = c.over(ctx, c.maxLoad); err != nil {
				return err
			}
			if over != "" {
				reason = "throttled: " + over
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

// over names the first status variable above its limit ("" when none).
func (c *control) over(ctx context.Context, l Load) (string, error) {
	for name, limit := range l {
		var n, v string
		// SHOW cannot take a placeholder; ParseLoad allows only [A-Za-z0-9_].
		err := c.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v)
		if err != nil {
			return "", fmt.Errorf("alter: read status %s: %w", name, err)
		}
		x, _ := strconv.ParseInt(v, 10, 64)
		if x > limit {
			return fmt.Sprintf("%s=%d > %d", name, x, limit), nil
		}
	}
	return "", nil
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
