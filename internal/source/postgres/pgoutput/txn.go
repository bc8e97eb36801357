package pgoutput

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// message decodes one pgoutput message: stream control and in-progress
// changes go to spool.go, the rest builds the current transaction. Row
// changes, Begin and Commit, most of what arrives, are read without
// pglogrepl.ParseV2's allocations (tuple.go).
func (s *Stream) message(ctx context.Context, x pglogrepl.XLogData, out chan<- *model.Txn) error {
	data := x.WALData
	if isRowMsg(data) {
		if s.inStream {
			if len(data) < 5 {
				return fmt.Errorf("reverse source: a streamed %q message of %d bytes at %s", data[0], len(data), x.WALStart)
			}
			return s.spoolAdd(binary.BigEndian.Uint32(data[1:]), data)
		}
		return s.rowMessage(ctx, out, data, false)
	}
	if !s.inStream && len(data) > 0 {
		switch data[0] {
		case 'B':
			var m pglogrepl.BeginMessage
			if err := m.Decode(data[1:]); err != nil {
				return fmt.Errorf("reverse source: decode pgoutput at %s: %w", x.WALStart, err)
			}
			s.begin(m.Xid, m.FinalLSN, m.CommitTime)
			return nil
		case 'C':
			var m pglogrepl.CommitMessage
			if err := m.Decode(data[1:]); err != nil {
				return fmt.Errorf("reverse source: decode pgoutput at %s: %w", x.WALStart, err)
			}
			return s.commit(ctx, out, &m)
		}
	}
	m, err := pglogrepl.ParseV2(data, s.inStream)
	if err != nil {
		return fmt.Errorf("reverse source: decode pgoutput at %s: %w", x.WALStart, err)
	}
	switch m.(type) {
	case *pglogrepl.StreamStartMessageV2, *pglogrepl.StreamStopMessageV2, *pglogrepl.StreamCommitMessageV2, *pglogrepl.StreamAbortMessageV2:
		return s.streamed(ctx, out, data, m)
	}
	if s.inStream {
		return s.streamed(ctx, out, data, m)
	}
	switch m := m.(type) {
	case *pglogrepl.RelationMessageV2:
		return s.relation(&m.RelationMessage)
	case *pglogrepl.BeginMessage:
		s.begin(m.Xid, m.FinalLSN, m.CommitTime)
	case *pglogrepl.OriginMessage:
		if s.cur != nil && strings.HasPrefix(m.Name, OriginPrefix) {
			s.cur.skip, s.cur.origin = true, m.Name
		}
	case *pglogrepl.CommitMessage:
		return s.commit(ctx, out, m)
	default:
		return s.change(m, x.WALStart)
	}
	return nil
}

// begin starts decoding a transaction.
func (s *Stream) begin(xid uint32, final pglogrepl.LSN, ts time.Time) {
	s.curState = txnState{xid: xid, final: final, ts: ts, skip: final < s.cfg.Start, txn: &model.Txn{Timestamp: ts}}
	s.cur = &s.curState
}

// rowMessage decodes an Insert, Update or Delete message (streamed: one
// replayed from a spool) into the current transaction.
func (s *Stream) rowMessage(ctx context.Context, out chan<- *model.Txn, data []byte, streamed bool) error {
	c := s.cur
	if c == nil {
		return fmt.Errorf("reverse source: a row change outside a transaction")
	}
	if c.skip {
		return nil
	}
	m, err := parseRow(data, streamed, s.oldCols, s.newCols)
	if err != nil {
		return err
	}
	err = s.row(ctx, out, m.rel, m.op, m.oldType, m.old, m.new)
	// Kept as scratch for the next row, without pointing into this
	// message's buffer (a large one would stay allocated).
	if m.old != nil {
		clear(m.old)
		s.oldCols = m.old
	}
	if m.new != nil {
		clear(m.new)
		s.newCols = m.new
	}
	return err
}

// change refuses a TRUNCATE of the current transaction (and passes over
// the messages the stream does not use); at is a position for messages.
func (s *Stream) change(m pglogrepl.Message, at pglogrepl.LSN) error {
	switch m := m.(type) {
	case *pglogrepl.TruncateMessageV2:
		if s.cur != nil && s.cur.skip {
			return nil
		}
		var names []string
		for _, id := range m.RelationIDs {
			if r := s.rels[id]; r != nil {
				names = append(names, r.msg.Namespace+"."+r.msg.RelationName)
			}
		}
		return fmt.Errorf("reverse source: TRUNCATE of %s in the transaction committing at %s: the reverse stream does not replay TRUNCATE "+
			"(it would empty the MySQL tables outside the exactly-once record); run the same TRUNCATE on MySQL, then move the stream past it",
			strings.Join(names, ", "), at)
	}
	return nil
}

func (s *Stream) relation(m *pglogrepl.RelationMessage) error {
	if prev, ok := s.rels[m.RelationID]; ok {
		if d := sameShape(prev.msg, m); d != "" {
			return fmt.Errorf("reverse source: table %s.%s was changed on PostgreSQL: %s; schema changes on PostgreSQL are not replicated back: "+
				"change %s.%s on MySQL the same way (or undo the change) and start the reverse stream again",
				prev.msg.Namespace, prev.msg.RelationName, d, prev.table.Database, prev.table.Name)
		}
		prev.msg = m
		return nil
	}
	if m.Namespace != s.cfg.Schema {
		return fmt.Errorf("reverse source: table %s.%s is in the publication %s but not in the schema %s the stream carries back",
			m.Namespace, m.RelationName, s.cfg.Publication, s.cfg.Schema)
	}
	t := s.cfg.Tables[m.RelationName]
	if t == nil {
		return fmt.Errorf("reverse source: table %s.%s is published but the MySQL target database has no table %s",
			m.Namespace, m.RelationName, m.RelationName)
	}
	r, err := newRelation(m, t, s.cfg.Naming)
	if err != nil {
		return fmt.Errorf("reverse source: %w", err)
	}
	s.rels[m.RelationID] = r
	return nil
}

// row decodes one row change into the current transaction, handing a
// fragment to the pipeline when the transaction outgrows FragmentBytes.
func (s *Stream) row(ctx context.Context, out chan<- *model.Txn, relID uint32, op model.Op, oldType uint8, oldT, newT []tupleCol) error {
	c := s.cur
	r := s.rels[relID]
	if r == nil {
		return fmt.Errorf("reverse source: a row change of relation %d before its Relation message", relID)
	}
	rc, size, err := s.decode(r, op, oldType, oldT, newT)
	if err != nil {
		var ve *valueError
		if errors.As(err, &ve) && s.cfg.SkipBadRows {
			c.badRows++
			s.badRows.Add(1)
			s.cfg.Log.Error("reverse source: row left out (--on-error skip-and-log)", "error", err.Error())
			return nil
		}
		return err
	}
	c.txn.Changes = append(c.txn.Changes, rc)
	c.txn.Bytes += size
	if c.txn.Bytes >= s.cfg.FragmentBytes {
		// A fragment: the pipeline writes fragments of one Seq into one
		// MySQL transaction, committed with the last one (model.Txn.Partial).
		if c.frags == 0 {
			s.seq++
		}
		c.frags++
		f := c.txn
		f.Partial, f.Seq = true, s.seq
		c.txn = &model.Txn{Timestamp: c.ts}
		return s.emit(ctx, out, f)
	}
	return nil
}

func (s *Stream) commit(ctx context.Context, out chan<- *model.Txn, m *pglogrepl.CommitMessage) error {
	c := s.cur
	s.cur = nil
	if c == nil {
		return fmt.Errorf("reverse source: commit without a transaction")
	}
	if s.cfg.Log.Enabled(ctx, slog.LevelDebug) {
		s.cfg.Log.Debug("reverse source: commit", "xid", c.xid, "lsn", m.TransactionEndLSN.String(), "skip", c.skip,
			"fragments", c.frags, "rows", len(c.txn.Changes))
	}
	end := m.TransactionEndLSN
	if c.skip && c.frags == 0 {
		if c.origin != "" {
			s.skipped.Add(1)
		}
		if end <= s.lastEnd {
			return nil
		}
		// Nothing to write: a heartbeat moves the checkpoint past it.
		return s.emit(ctx, out, &model.Txn{End: lsnpos.Of(end), Timestamp: c.ts})
	}
	t := c.txn
	t.End, t.Timestamp = lsnpos.Of(end), m.CommitTime
	if c.frags > 0 {
		t.Seq = s.seq
	}
	if c.badRows > 0 {
		s.cfg.Log.Warn("reverse source: transaction applied without the rows MySQL cannot hold (--on-error skip-and-log)",
			"lsn", end.String(), "rows_left_out", c.badRows)
	}
	return s.emit(ctx, out, t)
}
