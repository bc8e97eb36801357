package binlog

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// rows converts the row images of a rows event and adds them to the open
// transaction, emitting a fragment first when the buffer is full.
func (s *Stream) rows(ctx context.Context, e *replication.RowsEvent, h *replication.EventHeader, logPos uint32) error {
	mt, err := s.tables.resolve(e.Table)
	if err != nil {
		return s.errorf(s.statementAt(h, logPos), "%v", err)
	}
	if s.loopback(e.Table, h, logPos) || mt.skip {
		return nil
	}
	if s.cfg.SkipRows != nil && s.cfg.SkipRows(mt.table.TableID, s.at(logPos)) {
		return nil
	}
	if s.txn == nil {
		// Row events always sit inside a group; a source that logs one
		// without BEGIN still commits it with the next XID/COMMIT.
		s.openTxn(h)
	}
	op, err := rowsOp(h.EventType)
	if err != nil {
		return s.errorf(s.statementAt(h, logPos), "%v", err)
	}
	if err := s.checkSkipped(mt, e.SkippedColumns); err != nil {
		return fmt.Errorf("binlog %s: %w", s.statementAt(h, logPos), err) // its exit code kept
	}
	changes, bytes, err := s.convertRows(mt.table, op, e.Rows)
	if err != nil {
		return s.errorf(s.statementAt(h, logPos), "%v%s", err, s.statementHint())
	}
	return s.add(ctx, changes, bytes)
}

func (s *Stream) statementHint() string {
	if s.txn != nil && s.txn.stmt != "" {
		return " (statement: " + clip(s.txn.stmt) + ")"
	}
	return ""
}

func rowsOp(t replication.EventType) (model.Op, error) {
	switch t {
	case replication.WRITE_ROWS_EVENTv0, replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2,
		replication.MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1:
		return model.Insert, nil
	case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2,
		replication.MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1, replication.PARTIAL_UPDATE_ROWS_EVENT:
		return model.Update, nil
	case replication.DELETE_ROWS_EVENTv0, replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2,
		replication.MARIADB_DELETE_ROWS_COMPRESSED_EVENT_V1:
		return model.Delete, nil
	}
	return 0, fmt.Errorf("unknown rows event type %s", t)
}

// convertRows turns go-mysql row images into model changes. Update events
// hold before and after images alternately. The values stay as go-mysql
// decodes them (the source's own types: see model.RowChange); the sink
// converts them to its own.
func (s *Stream) convertRows(t *schema.Table, op model.Op, rows [][]any) ([]model.RowChange, int64, error) {
	step := 1
	if op == model.Update {
		step = 2
		if len(rows)%2 != 0 {
			return nil, 0, fmt.Errorf("table %s: update event with %d images, want pairs", t.TableID, len(rows))
		}
	}
	changes := make([]model.RowChange, 0, len(rows)/step)
	var bytes int64
	for i := 0; i < len(rows); i += step {
		c := model.RowChange{Op: op, Table: t}
		var err error
		var n int64
		switch op {
		case model.Insert:
			c.After, n, err = detachImage(t, rows[i])
		case model.Delete:
			c.Before, n, err = detachImage(t, rows[i])
		case model.Update:
			c.Before, n, err = detachImage(t, rows[i])
			if err == nil {
				var m int64
				c.After, m, err = detachImage(t, rows[i+1])
				n += m
			}
			if err == nil {
				var m int64
				m, err = resolvePartial(t, c.Before, c.After)
				n += m
			}
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s row %d: %w", op, i/step+1, err)
		}
		bytes += n + rowChangeOverhead
		changes = append(changes, c)
	}
	return changes, bytes, nil
}

// rowChangeOverhead approximates the memory of a RowChange besides its
// values: the struct, two slice headers and allocator rounding.
const rowChangeOverhead = 96

// detachImage checks one row image against the table version and makes its
// values independent of go-mysql's event buffer (strings and byte slices may
// point into it), reusing the row slice go-mysql allocated for the event. It
// returns the approximate memory the image holds.
func detachImage(t *schema.Table, row []any) ([]any, int64, error) {
	if len(row) != len(t.Columns) {
		return nil, 0, fmt.Errorf("table %s: row image has %d values, the schema has %d columns",
			t.TableID, len(row), len(t.Columns))
	}
	size := int64(16 * len(row))
	for i, v := range row {
		switch x := v.(type) {
		case []byte:
			row[i] = bytes.Clone(x)
		case string:
			if t.Columns[i].DataType == "timestamp" {
				x = epochFraction(x)
			}
			row[i] = strings.Clone(x)
		case *replication.JsonDiff:
			// Only partial update events hold diffs, and decodeRows
			// replaces them all by *partialJSON.
			c := t.Columns[i]
			return nil, 0, fmt.Errorf("table %s column %s (%s): a partial JSON update outside a partial update event", t.TableID, c.Name, c.ColumnType)
		case *partialJSON:
			// Resolved against the before image by resolvePartial.
			size += 64
			continue
		}
		size += valueSize(row[i])
	}
	return row, size, nil
}

// valueSize approximates the heap memory behind one converted value.
func valueSize(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x)) + 16
	case []byte:
		return int64(cap(x)) + 24
	}
	return 16
}

// add appends changes to the open transaction. When the buffer has reached
// the fragment size it is emitted first, so the last fragment of a
// transaction always carries changes.
func (s *Stream) add(ctx context.Context, changes []model.RowChange, bytes int64) error {
	t := s.txn
	if t.skip > t.seen {
		// Re-reading a fragmented transaction after a reconnect: drop the
		// changes apply already has.
		drop := min(t.skip-t.seen, len(changes))
		t.seen += drop
		changes = changes[drop:]
		if len(changes) == 0 {
			return nil
		}
		bytes = bytes * int64(len(changes)) / int64(len(changes)+drop)
	}
	t.seen += len(changes)
	if s.cfg.Info.SQLForeignKeys && !s.cfg.KeepReplace && len(changes) > 0 && len(t.changes) > 0 &&
		foldReplace(&t.changes[len(t.changes)-1], &changes[0]) {
		// Before a fragment can be emitted: the DELETE is still buffered.
		changes = changes[1:]
		t.folded++
	}
	if len(changes) == 0 {
		return nil
	}
	if t.bytes >= s.cfg.FragmentBytes && len(t.changes) > 0 {
		if err := s.emitFragment(ctx); err != nil {
			return err
		}
	}
	t.changes = append(t.changes, changes...)
	t.bytes += bytes
	return nil
}

// emitFragment hands the buffered part of a large transaction to apply.
func (s *Stream) emitFragment(ctx context.Context) error {
	t := s.txn
	if t.seq == 0 {
		t.seq = s.nextSeq()
	}
	frag := &model.Txn{GTID: t.gtid, Timestamp: t.ts, Changes: t.changes, Bytes: t.bytes, Seq: t.seq, Partial: true}
	if err := s.emit(ctx, frag); err != nil {
		return err
	}
	t.emitted += len(t.changes) + t.folded // counted as decoded, as skip is
	t.changes, t.bytes, t.folded = nil, 0, 0
	return nil
}

// epochFraction corrects go-mysql's text of a TIMESTAMP whose seconds since
// the epoch are 0 but whose fraction is not: it prints the zero date with
// the fraction ("0000-00-00 00:00:00.99"), where the server holds the
// instant 0.99 s after the epoch (MariaDB stores an out-of-range value
// written with a fraction, or a DATETIME → TIMESTAMP change of one, so;
// it reads back as 1970-01-01 00:00:00.99 UTC). Read as the zero date, it
// became NULL or -infinity in PostgreSQL and 00:00:00.00 in a MySQL target.
func epochFraction(s string) string {
	const zero = "0000-00-00 00:00:00."
	if !strings.HasPrefix(s, zero) || strings.Trim(s[len(zero):], "0") == "" {
		return s
	}
	return "1970-01-01 00:00:00." + s[len(zero):]
}
