package alter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// runMany alters several tables together: each table's copy runs as a
// single-table run does, the runs join after their checks (nothing is
// created unless all pass) and at the swap, which renames every table in
// one RENAME TABLE under one lock (group.go).
func runMany(parent context.Context, opts Options) (*Report, error) {
	ctx := parent
	changes := append([]TableChange{{Table: opts.Table, Alter: opts.Alter}}, opts.More...)
	if err := checkChanges(opts, changes); err != nil {
		return nil, err
	}
	if !opts.DryRun && !opts.Cleanup {
		if err := checkGroupServer(ctx, opts); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := newSwapGroup(ctx, len(changes))
	reps := make([]*Report, len(changes))
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range changes {
		o := opts
		o.Table, o.Alter, o.More, o.group = c.Table, c.Alter, nil, g
		if o.Method == MethodAuto {
			o.Method = MethodCopy // INSTANT table by table would not be one step
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, err := Run(ctx, o)
			reps[i] = rep
			if err == nil {
				// Swapped (or nothing to wait for): a member still waiting
				// would wait for this one forever.
				g.fail(nil)
				return
			}
			{
				// The first failure is the change's; the others stop.
				once.Do(func() { first = fmt.Errorf("%s: %w", c.Table, err) })
				g.fail(err)
				cancel()
			}
		}()
	}
	wg.Wait()
	cancel()
	g.mu.Lock()
	stopReader := g.stopReader
	g.mu.Unlock()
	stopReader()
	if errors.Is(first, errAbort) {
		// An abort (control file, critical load, a checksum difference)
		// ends the whole change: the other tables' copies go too.
		cleanupAll(context.WithoutCancel(parent), opts, changes)
	}
	return mergeReports(changes, reps, time.Since(start)), first
}

// cleanupAll removes every table's copy and state (each a no-op where
// there is none).
func cleanupAll(ctx context.Context, opts Options, changes []TableChange) {
	for _, c := range changes {
		o := opts
		o.Table, o.Alter, o.More, o.Cleanup = c.Table, "", nil, true
		if _, err := run(ctx, o); err != nil {
			opts.withDefaults().Log.Error("cleanup after abort", "table", c.Table, "err", err)
		}
	}
}

// checkChanges refuses a multi-table change the runs could not do as one
// step, before anything connects to the server.
func checkChanges(opts Options, changes []TableChange) error {
	if opts.Method == MethodInstant {
		return refuse("--method instant changes one table at a time: several tables are swapped together by the copy method; use --method copy (or auto)")
	}
	seen := map[string]string{}
	var reasons []string
	for _, c := range changes {
		name := strings.TrimSpace(c.Table)
		switch {
		case name == "":
			reasons = append(reasons, "a --table is empty: give each --table a name and its --alter, in the same order")
			continue
		case strings.Contains(name, "."):
			reasons = append(reasons, fmt.Sprintf("--table %s names another database: the tables of one change are all in the --source URL's database (%s); run one sluice alter per database", name, opts.Source.Database))
		case strings.TrimSpace(c.Alter) == "" && !opts.Cleanup:
			reasons = append(reasons, fmt.Sprintf("--table %s has no --alter: give each --table its own --alter, in the same order", name))
		}
		low := strings.ToLower(name)
		if prev, ok := seen[low]; ok {
			reasons = append(reasons, fmt.Sprintf("--table %s is given twice (%s and %s): put all of its changes into one --alter, comma-separated", name, prev, name))
		}
		seen[low] = name
	}
	for low, name := range seen {
		for _, other := range []string{shadowName(low), oldName(low)} {
			if n, ok := seen[other]; ok {
				reasons = append(reasons, fmt.Sprintf("--table %s is the name the change uses for a copy of %s: alter them in separate runs", n, name))
			}
		}
	}
	if len(reasons) > 0 {
		return refuseAll(reasons)
	}
	return nil
}

// checkGroupServer refuses a server that cannot swap several tables in one
// step (groupFlavorProblem).
func checkGroupServer(ctx context.Context, opts Options) error {
	db, err := opts.Source.OpenDB()
	if err != nil {
		return err
	}
	defer db.Close()
	info, err := binlog.SourceOnPool(db).Info(ctx)
	if err != nil {
		return err
	}
	if why := groupFlavorProblem(info); why != "" {
		return refuse("several tables cannot be swapped in one step on this server: %s", why)
	}
	return nil
}

// mergeReports sums the tables' reports into the change's: the swap's lock,
// which every table recorded, is counted once.
func mergeReports(changes []TableChange, reps []*Report, took time.Duration) *Report {
	var out *Report
	var names []string
	for i, rep := range reps {
		names = append(names, changes[i].Table)
		if rep == nil {
			continue
		}
		if out == nil {
			out = &Report{Method: rep.Method, Apply: rep.Apply, CutoverLock: rep.CutoverLock, SwapPosition: rep.SwapPosition,
				WriteRate: rep.WriteRate, WriteRateMeasured: rep.WriteRateMeasured, KeepWriteRate: rep.KeepWriteRate}
		}
		out.Rows += rep.Rows
		out.Keys += rep.Keys
		out.KeysReadByCopy += rep.KeysReadByCopy
		out.Chunks += rep.Chunks
		out.Resumed = out.Resumed || rep.Resumed
		for _, l := range rep.Plan {
			out.Plan = append(out.Plan, changes[i].Table+": "+l)
		}
		for _, l := range rep.Locks {
			if l.Step != stepSwap || i == firstReport(reps) {
				out.Locks = append(out.Locks, l)
			}
		}
	}
	if out == nil {
		return nil
	}
	out.Took = took
	if out.Method == MethodCopy {
		out.Why = fmt.Sprintf("shadow copies of %s, swapped in together by one RENAME TABLE", strings.Join(names, ", "))
	}
	return out
}

func firstReport(reps []*Report) int {
	for i, r := range reps {
		if r != nil {
			return i
		}
	}
	return -1
}
