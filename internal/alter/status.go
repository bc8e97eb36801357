package alter

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
)

// A copy run writes its progress to sluice.alter_status on the source
// every statusEvery — one row, one write a second — so that `sluice alter
// status` reads it from wherever it can reach the source, without a port
// of its own. The row stays after the swap (phase done) until the next run
// of the table or --cleanup.
const statusEvery = time.Second

// staleAfter: a status row not written for this long is of a run that is
// no longer running (killed, or stopped by an error).
const staleAfter = 5 * statusEvery

// Phases of a copy run, as alter status shows them.
const (
	phaseCopy    = "copy"
	phaseCatchUp = "catch-up"
	phaseCheck   = "checksum"
	phaseWait    = "waiting for cutover"
	phaseSwap    = "swap"
	phaseDone    = "done"
)

// Status is a copy run's progress as it last wrote it.
type Status struct {
	Table        string        `json:"table"`
	Alter        string        `json:"alter"`
	Phase        string        `json:"phase"`
	Chunks       int64         `json:"chunks"`
	ChunksDone   int64         `json:"chunks_done"`
	Rows         int64         `json:"rows_copied"`
	RowsEstimate int64         `json:"rows_estimate"`
	Statements   int64         `json:"copy_statements"`
	ETA          time.Duration `json:"eta_ns,omitempty"`
	// KeysPending: changed rows read from the binlog not yet in the copy
	// (how far the copy is behind the table).
	KeysPending int64     `json:"keys_pending"`
	Applied     int64     `json:"keys_applied"`
	Paused      string    `json:"paused,omitempty"`
	Throttle    string    `json:"throttle,omitempty"`
	Refused     string    `json:"refused,omitempty"`
	Replicas    string    `json:"replicas,omitempty"`
	Settings    []Setting `json:"settings"`
	Started     time.Time `json:"started"`
	// Age: how long ago the run wrote this (filled by ReadStatus).
	Age     time.Duration `json:"-"`
	Running bool          `json:"-"`
}

func (r *runner) setPhase(p string) { r.phase.Store(p) }

// statusNow is the run's progress now; eta from the chunks done since
// start (at startChunks).
func (r *runner) statusNow(chunks int, start time.Time, startChunks int64) Status {
	phase, _ := r.phase.Load().(string)
	s := Status{Table: r.id.String(), Alter: r.o.Alter, Phase: phase, Chunks: int64(chunks), ChunksDone: r.chunksDone.Load(),
		Rows: r.copied.Load(), Statements: r.pieces.Load(), KeysPending: int64(r.keys.size()), Applied: r.applied.Load(),
		Paused: r.ctl.pausedWhy(), Throttle: r.pacer.note(), Refused: r.ctl.refusal(), Settings: r.ctl.settings(), Started: start}
	if r.p != nil {
		s.RowsEstimate = r.p.rows
	}
	if r.ctl.lag != nil {
		s.Replicas = r.ctl.lag.lastStatus()
	}
	if cd := s.ChunksDone; cd > startChunks && cd < s.Chunks {
		el := time.Since(start)
		s.ETA = time.Duration(float64(s.Chunks-cd) * float64(el) / float64(cd-startChunks)).Round(time.Second)
	}
	return s
}

// writeStatus upserts the run's status row.
func (r *runner) writeStatus(ctx context.Context, s Status) error {
	j, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, "REPLACE INTO `sluice`.`alter_status` (db, tbl, status) VALUES (?, ?, ?)", r.id.Database, r.id.Name, string(j))
	return err
}

// statusWriter writes the status every statusEvery until stopped, then
// once more (the phase it stopped in).
func (r *runner) statusWriter(ctx context.Context, chunks int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	start, startChunks := time.Now(), r.chunksDone.Load()
	write := func(ctx context.Context) {
		if err := r.writeStatus(ctx, r.statusNow(chunks, start, startChunks)); err != nil && ctx.Err() == nil {
			r.log.Debug("alter status not written", "err", err)
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(statusEvery)
		defer t.Stop()
		for {
			write(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
		wctx, c := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer c()
		write(wctx)
	}
}

func deleteStatus(ctx context.Context, db *sql.DB, schemaName, table string) error {
	// The state of a run of an earlier version has no status table.
	if ok, err := hasStatusTable(ctx, db); err != nil || !ok {
		return err
	}
	_, err := db.ExecContext(ctx, "DELETE FROM `sluice`.`alter_status` WHERE db = ? AND tbl = ?", schemaName, table)
	return err
}

func hasStatusTable(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = 'alter_status'`).Scan(&n)
	return n > 0, err
}

// ReadStatus reads the status of the copy run of table in src's database:
// a refusal (exit 2) when no run of it has written one.
func ReadStatus(ctx context.Context, src config.MySQL, table string) (*Status, error) {
	if src.Database == "" || table == "" {
		return nil, refuse("alter status needs --source with the table's database (mysql://user@host:3306/db) and --table")
	}
	db, err := src.OpenDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	exists, err := hasStatusTable(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("alter status: source %s: %w", src.Redacted(), err)
	}
	var text string
	var ageMicros int64
	err = sql.ErrNoRows
	if exists {
		err = db.QueryRowContext(ctx, "SELECT status, TIMESTAMPDIFF(MICROSECOND, updated_at, CURRENT_TIMESTAMP(6)) FROM `sluice`.`alter_status` WHERE db = ? AND tbl = ?",
			src.Database, table).Scan(&text, &ageMicros)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return nil, refuse("no sluice alter of %s.%s has run since its last --cleanup (nothing in sluice.alter_status): check --source and --table", src.Database, table)
	}
	if err != nil {
		return nil, fmt.Errorf("alter status: source %s: %w", src.Redacted(), err)
	}
	var s Status
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, fmt.Errorf("alter status: the status row of %s.%s: %w", src.Database, table, err)
	}
	s.Age = time.Duration(ageMicros) * time.Microsecond
	s.Running = s.Phase != phaseDone && s.Age < staleAfter
	return &s, nil
}

// Lines is the status as alter status prints it, and its exit code: 0
// running or done, 1 when the run stopped before it was done.
func (s *Status) Lines() ([]string, int) {
	state, code := "running", exitcode.OK
	switch {
	case s.Phase == phaseDone:
		state = "done"
	case !s.Running:
		state, code = fmt.Sprintf("not running (last update %s ago): run the same sluice alter again to resume it, or with --cleanup to remove it", s.Age.Round(time.Second)), exitcode.Failure
	}
	out := []string{
		fmt.Sprintf("%s: %s, phase %s", s.Table, state, s.Phase),
		"alter: " + s.Alter,
		fmt.Sprintf("rows copied: %d of about %d; chunks %d/%d (%d copy statements)", s.Rows, s.RowsEstimate, s.ChunksDone, s.Chunks, s.Statements),
		fmt.Sprintf("copy behind the table: %d changed keys pending, %d applied", s.KeysPending, s.Applied),
	}
	if s.ETA > 0 && s.Running {
		out = append(out, "copy ETA: "+s.ETA.String())
	}
	throttle := "none"
	if parts := nonEmpty(s.Paused, s.Throttle); len(parts) > 0 {
		throttle = strings.Join(parts, "; ")
	}
	out = append(out, "throttle: "+throttle)
	if s.Replicas != "" {
		out = append(out, "replicas: "+s.Replicas)
	}
	if s.Refused != "" {
		out = append(out, "last refused: "+s.Refused)
	}
	kv := make([]string, len(s.Settings))
	for i, st := range s.Settings {
		kv[i] = st.Name + " " + st.Value
	}
	out = append(out, "settings: "+strings.Join(kv, ", "))
	return out, code
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
