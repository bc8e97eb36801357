package pgoutput

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// message decodes one pgoutput message: stream control and in-progress
// changes go to spool.go, the rest builds the current transaction.
func (s *Stream) message(ctx context.Context, x pglogrepl.XLogData, out chan<- *model.Txn) error {
	m, err := pglogrepl.ParseV2(x.WALData, s.inStream)
	if err != nil {
		return fmt.Errorf("reverse source: decode pgoutput at %s: %w", x.WALStart, err)
	}
	switch m.(type) {
	case *pglogrepl.StreamStartMessageV2, *pglogrepl.StreamStopMessageV2, *pglogrepl.StreamCommitMessageV2, *pglogrepl.StreamAbortMessageV2:
		return s.streamed(ctx, out, x.WALData, m)
	}
	if s.inStream {
		return s.streamed(ctx, out, x.WALData, m)
	}
	switch m := m.(type) {
	case *pglogrepl.RelationMessageV2:
		return s.relation(&m.RelationMessage)
	case *pglogrepl.BeginMessage:
		s.cur = &txnState{xid: m.Xid, final: m.FinalLSN, ts: m.CommitTime,
			skip: m.FinalLSN < s.cfg.Start, txn: &model.Txn{Timestamp: m.CommitTime}}
	case *pglogrepl.OriginMessage:
		if s.cur != nil && strings.HasPrefix(m.Name, OriginPrefix) {
			s.cur.skip, s.cur.origin = true, m.Name
		}
	case *pglogrepl.CommitMessage:
		return s.commit(ctx, out, m)
	default:
		return s.change(ctx, out, m, x.WALStart)
	}
	return nil
}

// change decodes a row change (or refuses a TRUNCATE) of the current
// transaction; at is a position for messages.
func (s *Stream) change(ctx context.Context, out chan<- *model.Txn, m pglogrepl.Message, at pglogrepl.LSN) error {
	switch m := m.(type) {
	case *pglogrepl.InsertMessageV2:
		return s.row(ctx, out, m.RelationID, model.Insert, 0, nil, m.Tuple)
	case *pglogrepl.UpdateMessageV2:
		return s.row(ctx, out, m.RelationID, model.Update, m.OldTupleType, m.OldTuple, m.NewTuple)
	case *pglogrepl.DeleteMessageV2:
		return s.row(ctx, out, m.RelationID, model.Delete, m.OldTupleType, m.OldTuple, nil)
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
	r, err := newRelation(m, t)
	if err != nil {
		return fmt.Errorf("reverse source: %w", err)
	}
	s.rels[m.RelationID] = r
	return nil
}

// row decodes one row change into the current transaction, handing a
// fragment to the pipeline when the transaction outgrows FragmentBytes.
func (s *Stream) row(ctx context.Context, out chan<- *model.Txn, relID uint32, op model.Op, oldType uint8, oldT, newT *pglogrepl.TupleData) error {
	c := s.cur
	if c == nil {
		return fmt.Errorf("reverse source: a row change outside a transaction")
	}
	if c.skip {
		return nil
	}
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
	s.cfg.Log.Debug("reverse source: commit", "xid", c.xid, "lsn", m.TransactionEndLSN.String(), "skip", c.skip,
		"fragments", c.frags, "rows", len(c.txn.Changes))
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
