// Package cutover runs `sluice cutover`: the switch of an application from
// the MySQL/MariaDB source to its PostgreSQL copy, in steps that each explain
// themselves on failure. The way back (a PostgreSQL publication and logical
// slot for the reverse stream) is armed first; writes to the migrated tables
// must have stopped (or are blocked with a read lock); the forward stream is
// brought to the source's final position; both sides are verified; identity
// sequences are moved; the boundary (source binlog position = PostgreSQL LSN
// where the reverse stream starts) is recorded on both sides. A failure at any
// step drops what the run created and leaves the forward stream as it was.
package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/verify"
)

// Step names, in order (also what Options.Inject receives).
const (
	StepArm      = "arm"
	StepQuiet    = "quiet"
	StepCatchUp  = "catch-up"
	StepVerify   = "verify"
	StepSequence = "sequences"
	StepRecord   = "record"
)

// Results of a run.
const (
	ResultSwitched = "switched"
	ResultRefused  = "refused"
)

// Options configure a cut-over.
type Options struct {
	Source config.MySQL
	// Target is the target's engine (what internal/target opens from
	// --target); only one with Capabilities.Cutover (PostgreSQL), whose
	// settings cutover reads with target.PostgresOf, can be switched to.
	Target target.Engine
	// Stream is the forward stream; ReverseStream names the way back (its
	// slot and publication, see internal/source/postgres/logical).
	Stream, ReverseStream string
	Filter                schema.Filter
	Naming                schema.Naming
	// Lock blocks writes to the migrated tables (FLUSH TABLES … WITH READ
	// LOCK on one session) for the switch instead of checking they stopped.
	Lock bool
	// QuietFor is how long no write may reach the migrated tables before
	// the switch (without Lock). Default 5s.
	QuietFor time.Duration
	// CatchUpTimeout bounds the wait for a running replicator. Default 5m.
	CatchUpTimeout time.Duration
	// LockWait bounds the wait for the read lock. Default 30s.
	LockWait time.Duration
	// Replicate runs the final catch-up when no replicator of Stream runs
	// (UntilCaughtUp is set by Run).
	Replicate replicate.Options
	// Verify compares both sides (Online is set off by Run); nil skips it.
	Verify *verify.Options
	Log    *slog.Logger
	// Inject, when set, is called after each step; an error fails the run
	// there (tests: a failure at each step leaves nothing behind).
	Inject func(step string) error
	// Board receives the steps as they run, for the status page (nil: none).
	Board *board.Board
}

func (o *Options) defaults() {
	if o.ReverseStream == "" {
		o.ReverseStream = DefaultReverseStream(o.Stream)
	}
	if o.QuietFor <= 0 {
		o.QuietFor = 5 * time.Second
	}
	if o.CatchUpTimeout <= 0 {
		o.CatchUpTimeout = 5 * time.Minute
	}
	if o.LockWait <= 0 {
		o.LockWait = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// DefaultReverseStream is the reverse stream's name when none is given.
func DefaultReverseStream(stream string) string { return stream + "_reverse" }

// Report is what a run prints.
type Report struct {
	Stream        string `json:"stream"`
	ReverseStream string `json:"reverse_stream"`
	Result        string `json:"result"`
	Error         string `json:"error,omitempty"`
	// Steps in the order they ran.
	Steps       []StepReport `json:"steps"`
	Slot        string       `json:"slot,omitempty"`
	Publication string       `json:"publication,omitempty"`
	Tables      []string     `json:"tables,omitempty"`
	Boundary    *Boundary    `json:"boundary,omitempty"`
	Collisions  []Collision  `json:"collisions,omitempty"`
	// Undone lists what a failed run dropped again.
	Undone []string `json:"undone,omitempty"`
	Next   []string `json:"next,omitempty"`
	// Fallback is the reverse replicate command line.
	Fallback string  `json:"fallback_command,omitempty"`
	Seconds  float64 `json:"seconds"`
}

// StepReport is one step's outcome.
type StepReport struct {
	Name    string  `json:"name"`
	Result  string  `json:"result"` // ok or failed
	Detail  string  `json:"detail,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Boundary is the recorded switch point (kept with sluice's state, where
// `sluice drop` reads it too).
type Boundary = checkpoint.Boundary

// run is one cut-over's connections and what it created (for undo).
type run struct {
	o      Options
	log    *slog.Logger
	rep    *Report
	src    *binlog.Source
	info   binlog.SourceInfo
	srcDB  *sql.DB
	tgt    config.Postgres // Options.Target's settings
	pg     *pgx.Conn
	tables []*schema.Table
	undo   []undoFunc
	lock   *readLock
	watch  *watcher
	final  binlogpos.Position // the source's position after the writes stopped
	// runningReplicator names the forward replicator step 3 waited for.
	runningReplicator string
}

type undoFunc struct {
	what string
	fn   func(context.Context) error
}

// Run performs the cut-over. The report is returned in every case after the
// connections were made; the error says why the switch is not safe (exit
// code 1), or is a configuration error (2).
func Run(ctx context.Context, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	r := &run{o: o, log: o.Log, rep: &Report{Stream: o.Stream, ReverseStream: o.ReverseStream}}
	defer r.close()
	if err := r.connect(ctx); err != nil {
		r.rep.Result, r.rep.Error = ResultRefused, err.Error()
		return r.rep, err
	}
	err := r.steps(ctx)
	if err != nil {
		r.rollback()
		r.rep.Result, r.rep.Error = ResultRefused, err.Error()
		if exitcode.Of(err) == exitcode.OK {
			err = exitcode.WithCode(exitcode.Failure, err)
		}
	} else {
		r.rep.Result = ResultSwitched
		r.next(ctx)
	}
	r.rep.Seconds = time.Since(start).Round(time.Millisecond).Seconds()
	o.Board.Cutover(o.Stream, nil).Finish(r.rep.Result)
	return r.rep, err
}

func (r *run) steps(ctx context.Context) error {
	steps := []struct {
		name string
		fn   func(context.Context) (string, error)
	}{
		{StepArm, r.arm},
		{StepQuiet, r.quiet},
		{StepCatchUp, r.catchUp},
		{StepVerify, r.verify},
		{StepSequence, r.sequences},
		{StepRecord, r.record},
	}
	names := make([]string, len(steps))
	for i, s := range steps {
		names[i] = s.name
	}
	card := r.o.Board.Cutover(r.o.Stream, names)
	for _, s := range steps {
		t := time.Now()
		card.Step(s.name, "running", "", 0)
		detail, err := s.fn(ctx)
		if err == nil && r.o.Inject != nil {
			err = r.o.Inject(s.name)
		}
		sr := StepReport{Name: s.name, Result: "ok", Detail: detail, Seconds: time.Since(t).Round(time.Millisecond).Seconds()}
		if err != nil {
			sr.Result, sr.Detail = "failed", err.Error()
			r.rep.Steps = append(r.rep.Steps, sr)
			card.Step(sr.Name, sr.Result, sr.Detail, sr.Seconds)
			r.log.Error("cutover: step failed", "step", s.name, "err", err)
			return fmt.Errorf("step %s: %w", s.name, err)
		}
		r.log.Info("cutover: step done", "step", s.name, "detail", sr.Detail, "seconds", sr.Seconds)
		r.rep.Steps = append(r.rep.Steps, sr)
		card.Step(sr.Name, sr.Result, sr.Detail, sr.Seconds)
	}
	return nil
}

func (r *run) connect(ctx context.Context) error {
	var err error
	if r.tgt, err = postgresTarget(r.o.Target); err != nil {
		return err
	}
	if r.src, err = binlog.OpenSource(r.o.Source); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.info, err = r.src.Info(ctx); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source %s: %w", r.o.Source.Redacted(), err))
	}
	if r.srcDB, err = r.o.Source.OpenDB(); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.pg, err = pgx.Connect(ctx, r.tgt.ConnString()); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", r.o.Target.Redacted(), err))
	}
	// The stream's naming before anything is armed: under another one the
	// target's tables and columns have other names than this run would use.
	if err := checkpoint.CheckNaming(ctx, r.pg, r.o.Stream, r.o.Naming.Options(), false); err != nil {
		return err
	}
	cat, err := schema.Load(ctx, r.srcDB, r.o.Filter)
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: %w", err))
	}
	for _, t := range cat.Tables {
		if t.LeftOut == "" {
			r.tables = append(r.tables, t)
		}
	}
	if len(r.tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope on the source (filter %s): check --include/--exclude and the database in --source", r.o.Filter))
	}
	for _, t := range r.tables {
		r.rep.Tables = append(r.rep.Tables, t.TableID.String())
	}
	return nil
}

// onUndo registers what a failed run must drop again, last first.
func (r *run) onUndo(what string, fn func(context.Context) error) {
	r.undo = append(r.undo, undoFunc{what, fn})
}

// rollback drops what the run created, newest first, even when the run's
// context was cancelled (SIGINT).
func (r *run) rollback() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if len(r.undo) > 0 && r.pg.IsClosed() {
		// pgx closes a connection whose query was cancelled (SIGINT): the
		// undo needs a new one.
		conn, err := pgx.Connect(ctx, r.tgt.ConnString())
		if err != nil {
			r.log.Error("cutover: cannot reconnect to the target to undo; do it by hand", "err", err)
		} else {
			r.pg.Close(ctx)
			r.pg = conn
		}
	}
	for i := len(r.undo) - 1; i >= 0; i-- {
		u := r.undo[i]
		if err := u.fn(ctx); err != nil {
			r.log.Error("cutover: could not undo; do it by hand", "what", u.what, "err", err)
			r.rep.Undone = append(r.rep.Undone, "NOT undone: "+u.what+": "+err.Error())
			continue
		}
		r.rep.Undone = append(r.rep.Undone, u.what)
	}
	r.undo = nil
}

func (r *run) close() {
	if r.watch != nil {
		r.watch.stop()
	}
	if r.lock != nil {
		r.lock.release()
	}
	if r.pg != nil {
		r.pg.Close(context.Background())
	}
	if r.srcDB != nil {
		r.srcDB.Close()
	}
	if r.src != nil {
		r.src.Close()
	}
}

// postgresTarget is the settings of a target cutover can switch to
// (Capabilities.Cutover); the command refuses any other before it gets here
// (cli's postgresOnly), with the same message.
func postgresTarget(e target.Engine) (config.Postgres, error) {
	if e == nil {
		return config.Postgres{}, exitcode.ConfigError(fmt.Errorf("cutover: no target"))
	}
	pg, ok := target.PostgresOf(e)
	if !ok || !e.Capabilities().Cutover {
		return config.Postgres{}, exitcode.ConfigError(fmt.Errorf("cutover: a %s target (%s) is not supported by this command yet; use a postgres:// target",
			e.Name(), e.Redacted()))
	}
	return pg, nil
}
