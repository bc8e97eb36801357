package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
)

// The boundary tables: sluice.cutover in the PostgreSQL target, and
// sluice.cutover in the MySQL source (database sluice there is the reverse
// stream's state database). One row per forward stream.
const pgBoundaryDDL = `CREATE TABLE IF NOT EXISTS sluice.cutover (
	stream          text PRIMARY KEY,
	reverse_stream  text NOT NULL,
	source_position text NOT NULL, -- the forward source's encoding (model.Position.Encode)
	lsn             pg_lsn NOT NULL, -- where the reverse stream's slot starts
	slot            text NOT NULL,
	publication     text NOT NULL,
	cut_at          timestamptz NOT NULL
);`

const mysqlBoundaryDDL = "CREATE TABLE IF NOT EXISTS sluice.cutover (" +
	"stream VARCHAR(190) NOT NULL PRIMARY KEY, reverse_stream VARCHAR(190) NOT NULL, source_position TEXT NOT NULL, " +
	"lsn VARCHAR(32) NOT NULL, slot VARCHAR(64) NOT NULL, publication VARCHAR(64) NOT NULL, cut_at DATETIME(6) NOT NULL" +
	") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"

// mysqlBoundaryBinary makes a boundary table created before it compare
// stream names as bytes, as every other state table does: under the
// server's default collation streams S and s shared one record (the second
// cut-over failed on a duplicate key).
const mysqlBoundaryBinary = "ALTER TABLE sluice.cutover CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"

// record is step 6. The source is checked quiet once more up to now; the
// reverse stream's slot is advanced to PostgreSQL's current WAL position
// (what the forward stream applied since the slot was created must not go
// back); that LSN and the source position are written on both sides.
func (r *run) record(ctx context.Context) (string, error) {
	now, err := r.src.MasterStatus(ctx, r.info)
	if err != nil {
		return "", fmt.Errorf("read the source's binlog position: %w", err)
	}
	if r.watch != nil {
		if err := r.watch.waitPast(ctx, now); err != nil {
			return "", err
		}
	}
	b := &Boundary{SourcePosition: r.final, At: time.Now().UTC().Truncate(time.Microsecond)}
	slot, pub := logical.SlotName(r.o.ReverseStream), logical.PublicationName(r.o.ReverseStream)
	if b.LSN, err = r.advanceSlot(ctx, slot); err != nil {
		return "", err
	}
	if err := checkpoint.EnsureTables(ctx, r.pg, "CREATE SCHEMA IF NOT EXISTS sluice;\n"+pgBoundaryDDL); err != nil {
		return "", fmt.Errorf("target: create %s.cutover: %w", checkpoint.Schema, err)
	}
	enc := b.SourcePosition.Encode()
	r.onUndo("boundary record in the target deleted", func(ctx context.Context) error {
		_, err := r.pg.Exec(ctx, `DELETE FROM sluice.cutover WHERE stream = $1`, r.o.Stream)
		return err
	})
	if _, err := r.pg.Exec(ctx, `INSERT INTO sluice.cutover (stream, reverse_stream, source_position, lsn, slot, publication, cut_at)
		VALUES ($1, $2, $3, $4::pg_lsn, $5, $6, $7)`, r.o.Stream, r.o.ReverseStream, enc, b.LSN, slot, pub, b.At); err != nil {
		return "", fmt.Errorf("target: record the boundary in %s.cutover: %w", checkpoint.Schema, err)
	}
	if err := r.recordSource(ctx, b, enc, slot, pub); err != nil {
		return "", err
	}
	r.rep.Boundary = b
	if r.lock != nil {
		r.lock.release() // held only for the switch
	}
	return fmt.Sprintf("source position %s = PostgreSQL LSN %s (the reverse stream's start), recorded in sluice.cutover on both sides",
		b.SourcePosition, b.LSN), nil
}

func (r *run) recordSource(ctx context.Context, b *Boundary, enc, slot, pub string) error {
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS sluice CHARACTER SET utf8mb4", mysqlBoundaryDDL} {
		if _, err := r.srcDB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("source: create sluice.cutover (the reverse stream's state database; the source user needs CREATE on `sluice`.*): %w", err)
		}
	}
	var coll string
	if err := r.srcDB.QueryRowContext(ctx, `SELECT COLLATION_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = 'cutover' AND COLUMN_NAME = 'stream'`).Scan(&coll); err != nil {
		return fmt.Errorf("source: read the collation of sluice.cutover: %w", err)
	}
	if coll != "utf8mb4_bin" {
		if _, err := r.srcDB.ExecContext(ctx, mysqlBoundaryBinary); err != nil {
			return fmt.Errorf("source: %s (the source user needs ALTER on `sluice`.*): %w", mysqlBoundaryBinary, err)
		}
	}
	r.onUndo("boundary record in the source deleted", func(ctx context.Context) error {
		_, err := r.srcDB.ExecContext(ctx, "DELETE FROM sluice.cutover WHERE stream = ?", r.o.Stream)
		return err
	})
	if _, err := r.srcDB.ExecContext(ctx, `INSERT INTO sluice.cutover (stream, reverse_stream, source_position, lsn, slot, publication, cut_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.o.Stream, r.o.ReverseStream, enc, b.LSN, slot, pub, b.At.Format("2006-01-02 15:04:05.999999")); err != nil {
		return fmt.Errorf("source: record the boundary in sluice.cutover: %w", err)
	}
	return nil
}

// LoadTargetBoundary reads a recorded cut-over of stream from the
// PostgreSQL target's sluice.cutover (nil: none).
func LoadTargetBoundary(ctx context.Context, q checkpoint.Querier, stream string) (*Boundary, error) {
	return checkpoint.LoadCutover(ctx, q, stream)
}

// ReverseStreamOf is the way back of stream: as its cut-over recorded it
// in the target, else the default name.
func ReverseStreamOf(ctx context.Context, q checkpoint.Querier, stream string) (string, error) {
	b, err := LoadTargetBoundary(ctx, q, stream)
	if err != nil || b == nil || b.ReverseStream == "" {
		return DefaultReverseStream(stream), err
	}
	return b.ReverseStream, nil
}

// LoadSourceBoundary reads a recorded cut-over of stream from the MySQL
// source's sluice.cutover (nil: none).
func LoadSourceBoundary(ctx context.Context, db *sql.DB, stream string) (*Boundary, error) {
	return mysqlstate.LoadCutover(ctx, db, stream)
}

// advanceSlot moves the reverse slot to PostgreSQL's current WAL position.
// A slot advances only as far as the WAL is flushed, and the forward apply
// commits with synchronous_commit off: its last commits may not be flushed
// yet, and a slot stopping short of them would send them back to MySQL. So
// the flush is waited for (the WAL writer does it within wal_writer_delay).
func (r *run) advanceSlot(ctx context.Context, slot string) (string, error) {
	var target string
	if err := r.pg.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&target); err != nil {
		return "", fmt.Errorf("read the target's WAL position: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var flushed bool
		if err := r.pg.QueryRow(ctx, `SELECT pg_current_wal_flush_lsn() >= $1::pg_lsn`, target).Scan(&flushed); err != nil {
			return "", fmt.Errorf("read the target's flushed WAL position: %w", err)
		}
		if flushed {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("the target's WAL is not flushed up to %s after 30s", target)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	var end string
	var reached bool
	if err := r.pg.QueryRow(ctx, `SELECT end_lsn::text, end_lsn >= $2::pg_lsn FROM pg_replication_slot_advance($1, $2::pg_lsn)`,
		slot, target).Scan(&end, &reached); err != nil {
		return "", fmt.Errorf("advance the reverse stream's slot %s to the switch (%s): %w", slot, target, err)
	}
	if !reached {
		return "", fmt.Errorf("the reverse stream's slot %s advanced only to %s, not to the switch at %s", slot, end, target)
	}
	return end, nil
}
