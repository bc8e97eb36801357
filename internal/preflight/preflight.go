// Package preflight checks, before any work starts, that both databases are
// reachable and configured for what a command needs, and reports every
// problem at once with its fix.
package preflight

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
)

// Needs says what a command requires of the servers.
type Needs struct {
	// Source must be reachable with SELECT on the tables in scope.
	Source bool
	// Binlog: log_bin on, binlog_format ROW, binlog_row_image FULL, and the
	// privileges to read it (REPLICATION SLAVE, REPLICATION CLIENT).
	Binlog bool
	// Snapshot wants LOCK TABLES (or RELOAD) for the brief lock of a
	// parallel consistent snapshot (without either the snapshot reads with
	// one session on MariaDB).
	Snapshot bool
	// SourceState: the command writes sluice's state database on the source
	// (cutover's boundary record, sluice.cutover).
	SourceState bool
	// SourceFlushLock: the command takes FLUSH TABLES … WITH READ LOCK on
	// the source (cutover --lock), which needs RELOAD (or FLUSH_TABLES).
	SourceFlushLock bool
	// ServerID is the server_id sluice will use to read the binlog (0 = none):
	// it must differ from the source's and from every connected replica's.
	ServerID uint32
	// Target must be reachable; TargetCreate also needs CREATE on the database.
	Target       bool
	TargetCreate bool
	// TargetReadOnly: the command only reads the target's tables (verify
	// without --repair), so a MySQL target needs SELECT on its database and
	// nothing on sluice's state database (e.g. a read-only user on a replica).
	TargetReadOnly bool
	// TargetEngine is the storage engine the tables get on a MySQL target
	// ("" = the source table's own): it must exist there and be transactional.
	TargetEngine string
	// MinBinlogRetention: with the binlog on, the source must keep binlog
	// files at least this long (0 = no check); a retention of 0 (never
	// purged) passes. For the commands that start or resume a stream or
	// record a snapshot's position.
	MinBinlogRetention time.Duration
}

// Problem is one finding. Warnings do not stop the command.
type Problem struct {
	Side    string `json:"side"` // "source" or "target"
	Cause   string `json:"cause"`
	Fix     string `json:"fix,omitempty"`
	Warning bool   `json:"warning,omitempty"`
}

func (p Problem) String() string {
	s := p.Side + ": " + p.Cause
	if p.Fix != "" {
		s += "; fix: " + p.Fix
	}
	return s
}

// Report is the outcome of the checks.
type Report struct {
	Source   SourceInfo
	Target   TargetInfo
	Problems []Problem
}

// Errors returns the problems that stop the command.
func (r *Report) Errors() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Warnings returns the problems that do not stop the command.
func (r *Report) Warnings() []Problem {
	var out []Problem
	for _, p := range r.Problems {
		if p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// Err is nil when nothing stops the command, else a configuration error
// (exit code 2) with one line per problem.
func (r *Report) Err() error {
	errs := r.Errors()
	if len(errs) == 0 {
		return nil
	}
	lines := make([]string, len(errs))
	for i, p := range errs {
		lines[i] = p.String()
	}
	return exitcode.ConfigError(errors.New("pre-flight failed:\n  " + strings.Join(lines, "\n  ")))
}

// TargetInfo is what the checks learned about the target.
type TargetInfo struct {
	Version  string `json:"version"`
	WALLevel string `json:"wal_level"`
	PostGIS  bool   `json:"postgis"` // the postgis extension is installed in the database
}

// TargetChecker is a target engine's pre-flight check (internal/target's
// engines implement it in their own packages): reachable, the privileges
// and settings needs asks for, each problem with its fix.
type TargetChecker interface {
	CheckTarget(ctx context.Context, needs Needs) (TargetInfo, []Problem)
}

// Check checks both sides concurrently (so a dead server costs one connect
// timeout, not two) and returns every problem found. dst, the target
// engine, is checked when needs.Target is set.
func Check(ctx context.Context, src config.MySQL, dst TargetChecker, needs Needs) *Report {
	r := &Report{}
	var wg sync.WaitGroup
	var srcProblems, dstProblems []Problem
	if needs.Source {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Source, srcProblems = checkSource(ctx, src, needs)
		}()
	}
	switch {
	case needs.Target && dst == nil:
		dstProblems = []Problem{Problemf("target", "", "no target engine to check (a programming error)")}
	case needs.Target:
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Target, dstProblems = dst.CheckTarget(ctx, needs)
		}()
	}
	wg.Wait()
	r.Problems = append(srcProblems, dstProblems...)
	return r
}

// Run is Check for a command that checks its source only (`sluice
// stream`'s shards): the target argument is ignored (a needs.Target is
// refused: no engine is given to check it).
//
// Deprecated: call Check with a nil TargetChecker; Run goes once its last
// caller (internal/stream) does.
func Run(ctx context.Context, src config.MySQL, _ config.Target, needs Needs) *Report {
	return Check(ctx, src, nil, needs)
}

// Problemf is a problem that stops the command: cause is format's text.
func Problemf(side, fix, format string, args ...any) Problem {
	return Problem{Side: side, Cause: fmt.Sprintf(format, args...), Fix: fix}
}

// Warningf is a problem that does not stop the command.
func Warningf(side, fix, format string, args ...any) Problem {
	p := Problemf(side, fix, format, args...)
	p.Warning = true
	return p
}
