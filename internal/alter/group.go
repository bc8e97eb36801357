package alter

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// TableChange is one more table of a run that swaps several tables at once
// (Options.More): its name, in the --source URL's database, and its clauses.
type TableChange struct {
	Table string
	Alter string
}

// swapGroup joins the runs of several tables at two points: after their
// checks (nothing is created unless every table passes) and at the swap,
// which the last to arrive does for all of them in one RENAME TABLE under
// one LOCK TABLES (groupCutover).
type swapGroup struct {
	n   int
	ctx context.Context // the change's: the shared binlog reader's lifetime

	// The members' trackers and streams, until the last registers and one
	// reader starts for all (group_reader.go); stopReader ends it.
	trackers   []*tracker
	configs    []binlog.Config
	stopReader func()

	mu      sync.Mutex
	cond    *sync.Cond
	err     error // the first failure: every member stops waiting
	checked int
	ready   []*member
	swapped bool
	swapErr error
}

// member is a run waiting at the swap, with its running appliers.
type member struct {
	r    *runner
	stop func() error
}

func newSwapGroup(ctx context.Context, n int) *swapGroup {
	g := &swapGroup{n: n, ctx: ctx, stopReader: func() {}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// fail stops every member's wait with err (the first one wins).
func (g *swapGroup) fail(err error) {
	if err == nil {
		err = errors.New("another table of the change ended before the swap")
	}
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.cond.Broadcast()
	g.mu.Unlock()
}

// errOtherTable: a member stopped because another table's run failed.
var errOtherTable = errors.New("another table of the change failed")

// passed waits until every table passed its checks; an error when one
// failed (this one then creates nothing).
func (g *swapGroup) passed(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { g.fail(ctx.Err()) })
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.checked++
	g.cond.Broadcast()
	for g.checked < g.n && g.err == nil {
		g.cond.Wait()
	}
	if g.err != nil {
		return fmt.Errorf("%w: %v", errOtherTable, g.err)
	}
	return nil
}

// swap is a member's cut-over: it waits for the others, the last to arrive
// swaps every table, and each returns the swap's outcome. stop ends the
// member's appliers (the swap stops them, or restarts them between attempts).
func (g *swapGroup) swap(ctx context.Context, r *runner, stop func() error) error {
	stopWait := context.AfterFunc(ctx, func() { g.fail(ctx.Err()) })
	defer stopWait()
	g.mu.Lock()
	g.ready = append(g.ready, &member{r: r, stop: stop})
	last := len(g.ready) == g.n
	if !last {
		for !g.swapped && g.err == nil {
			g.cond.Wait()
		}
		defer g.mu.Unlock()
		if g.swapped {
			return g.swapErr
		}
		stop() //nolint:errcheck // the run failed elsewhere
		return fmt.Errorf("%w: %v", errOtherTable, g.err)
	}
	// In name order: the lock and the RENAME list the tables the same way
	// whichever copy finished first.
	ms := slices.Clone(g.ready)
	slices.SortFunc(ms, func(a, b *member) int { return strings.Compare(a.r.id.Name, b.r.id.Name) })
	g.mu.Unlock()
	err := groupCutover(ctx, ms)
	g.mu.Lock()
	g.swapped, g.swapErr = true, err
	g.cond.Broadcast()
	g.mu.Unlock()
	return err
}

// groupCutover is cutover for several tables: each attempt catches every
// table up, stops the appliers, and swaps all of them in one RENAME under
// one lock; a given-up attempt restarts the appliers and backs off.
func groupCutover(ctx context.Context, ms []*member) error {
	lead := ms[0].r
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		for _, m := range ms {
			if err := m.r.readyToSwap(ctx); err != nil {
				stopAll(ms)
				return err
			}
		}
		if err := stopAll(ms); err != nil {
			return err
		}
		for _, m := range ms {
			m.r.setPhase(phaseSwap)
		}
		err := tryGroupCutover(ctx, ms)
		if err == nil {
			return nil
		}
		code, _ := mysqlErr(err)
		if (code != errLockWaitTimeout && !errors.Is(err, errRetryCutover)) || attempt >= lead.o.CutoverRetries {
			return err
		}
		lead.log.Warn("cut-over of several tables: retrying", "attempt", attempt, "reason", err, "in", backoff)
		for _, m := range ms {
			m.stop = m.r.startAppliers(ctx, false)
		}
		if err := sleep(ctx, backoff); err != nil {
			stopAll(ms) //nolint:errcheck
			return err
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func stopAll(ms []*member) error {
	var first error
	for _, m := range ms {
		if err := m.stop(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// tryGroupCutover is one attempt: LOCK TABLES of every table and copy, each
// table's catch-up under the lock (marker, drain, AUTO_INCREMENT), then
// one RENAME TABLE of all of them on the locking session (MySQL 8.0.13+;
// runMany refuses MariaDB, whose RENAME would let writers of all but the
// first table in name order into their old tables).
func tryGroupCutover(ctx context.Context, ms []*member) error {
	lead := ms[0].r
	lock, err := lead.swapSession(ctx)
	if err != nil {
		return err
	}
	defer lock.Close()
	var locks, names, renames []string
	for _, m := range ms {
		t, name := m.r.id.Name, m.r.id.Name
		locks = append(locks, m.r.quoted(t)+" WRITE", m.r.quoted(shadowName(t))+" WRITE")
		names = append(names, name+" WRITE", shadowName(name)+" WRITE")
		renames = append(renames, m.r.quoted(t)+" TO "+m.r.quoted(oldName(t)), m.r.quoted(shadowName(t))+" TO "+m.r.quoted(t))
	}
	lt := startLock(stepSwap, "LOCK TABLES "+strings.Join(names, ", "), true)
	defer func() {
		l := lt.done()
		for _, m := range ms {
			m.r.recordLock(l)
		}
	}()
	if _, err := lock.ExecContext(ctx, "LOCK TABLES "+strings.Join(locks, ", ")); err != nil {
		return err
	}
	lt.grant()
	defer lock.ExecContext(context.WithoutCancel(ctx), "UNLOCK TABLES") //nolint:errcheck
	for _, m := range ms {
		if err := m.r.catchUpUnderLock(ctx, lock); err != nil {
			return err
		}
	}
	// Sealed, as in tryCutover; a failed RENAME unseals before the unlock.
	for _, m := range ms {
		m.r.tr.slipped.Store(0)
		m.r.tr.sealed.Store(true)
	}
	rename := "RENAME TABLE " + strings.Join(renames, ", ")
	if _, err := lock.ExecContext(ctx, rename); err != nil {
		for _, m := range ms {
			m.r.tr.sealed.Store(false)
		}
		if code, _ := mysqlErr(err); code == errCantLock {
			return refuse("this server does not RENAME under LOCK TABLES (MySQL before 8.0.13), so several tables cannot be swapped in one step: alter them one at a time")
		}
		return fmt.Errorf("alter: %s: %w", rename, err)
	}
	lead.log.Info("swapped every table in one RENAME", "tables", len(ms))
	return nil
}

// groupFlavorProblem: the reason several tables cannot be swapped together
// on this server, or "".
func groupFlavorProblem(info binlog.SourceInfo) string {
	if info.Flavor != binlog.FlavorMariaDB {
		return ""
	}
	return "MariaDB refuses RENAME TABLE under LOCK TABLES, and its RENAME from a second session takes the tables' metadata locks one at a time " +
		"in name order: writers queued on every table but the first reach their old tables when the lock is released " +
		"(measured on 10.11: all five queued inserts of the second table went into its old table); alter the tables one at a time"
}
