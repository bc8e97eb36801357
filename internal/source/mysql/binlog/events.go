package binlog

import (
	"context"
	"strings"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// handle processes one binlog event. logPos is the position right after the
// event (go-mysql stamps the events inside a compressed MySQL transaction
// payload with the payload's position).
func (s *Stream) handle(ctx context.Context, ev *replication.BinlogEvent, logPos uint32) error {
	h := ev.Header
	s.stats.Events.Add(1)
	s.stats.Bytes.Add(int64(h.EventSize))
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		s.file = string(e.NextLogName)
	case *replication.MariadbGTIDEvent:
		s.beginGroup(e, h, !e.IsStandalone())
	case *replication.GTIDEvent:
		s.beginGroup(e, h, false)
		if e.ImmediateCommitTimestamp > 0 {
			s.groupTime = time.UnixMicro(int64(e.ImmediateCommitTimestamp)).UTC()
		}
	case *replication.GtidTaggedLogEvent:
		s.beginGroup(e, h, false)
	case *replication.QueryEvent:
		return s.query(ctx, e, h, logPos)
	case *replication.XIDEvent:
		return s.commit(ctx, h, logPos)
	case *replication.RowsEvent:
		return s.rows(ctx, e, h, logPos)
	case *replication.MariadbAnnotateRowsEvent:
		if s.txn != nil {
			s.txn.stmt = string(e.Query)
		}
	case *replication.RowsQueryEvent:
		if s.txn != nil {
			s.txn.stmt = string(e.Query)
		}
	case *replication.TransactionPayloadEvent:
		for _, inner := range e.Events {
			if err := s.handle(ctx, inner, inner.Header.LogPos); err != nil {
				return err
			}
		}
	case *replication.HeartbeatEvent:
		return s.heartbeat(ctx, e, h)
	}
	// Everything else carries nothing to replicate: FORMAT_DESCRIPTION,
	// TABLE_MAP (go-mysql keeps them for the rows events), GTID lists,
	// checkpoints, INTVAR/RAND/USER_VAR (statement-based only), STOP.
	return nil
}

// beginGroup starts an event group after a GTID event. MariaDB marks
// transactions (as opposed to standalone DDL) in the GTID event itself;
// MySQL writes a BEGIN query event, handled in query.
func (s *Stream) beginGroup(ev replication.Event, h *replication.EventHeader, isTxn bool) {
	s.pendingGTID = s.gtid.begin(ev)
	s.groupTime = time.Unix(int64(h.Timestamp), 0).UTC()
	if isTxn {
		s.openTxn(h)
	}
}

// openTxn starts assembling a transaction.
func (s *Stream) openTxn(h *replication.EventHeader) {
	if s.txn != nil {
		return
	}
	s.txn = &openTxn{gtid: s.pendingGTID, ts: time.Unix(int64(h.Timestamp), 0).UTC()}
	if s.resume != nil {
		// The first transaction after a reconnect in the middle of a
		// fragmented one is that transaction again.
		s.txn.seq, s.txn.skip, s.txn.emitted = s.resume.seq, s.resume.emitted, s.resume.emitted
		s.resume = nil
	}
}

// commit ends the open transaction at an XID event or COMMIT query.
func (s *Stream) commit(ctx context.Context, h *replication.EventHeader, logPos uint32) error {
	t := s.txn
	if t == nil {
		// An XID without a transaction we saw begin: the dump started in the
		// middle of a group, which a boundary position never does.
		return s.errorf(s.at(logPos), "commit event without a transaction start")
	}
	if t.skip > t.seen {
		return s.errorf(s.at(logPos), "transaction %s read again after a reconnect has %d changes, %d were emitted before: the binlog changed under sluice",
			t.gtid, t.seen, t.skip)
	}
	if err := s.gtid.commit(); err != nil {
		return s.errorf(s.at(logPos), "%v", err)
	}
	end := s.at(logPos)
	seq := t.seq
	if seq == 0 {
		seq = s.nextSeq()
	}
	ts := time.Unix(int64(h.Timestamp), 0).UTC()
	if !s.groupTime.IsZero() && s.groupTime.After(ts) {
		ts = s.groupTime // MySQL 8's microsecond commit time
	}
	txn := &model.Txn{GTID: t.gtid, End: end, Timestamp: ts, Changes: t.changes, Bytes: t.bytes, Seq: seq}
	s.txn = nil
	s.pendingGTID = ""
	if err := s.emit(ctx, txn); err != nil {
		return err
	}
	s.setBoundary(end)
	if len(txn.Changes) == 0 {
		s.idle(false)
	}
	return s.join(ctx)
}

// heartbeat reports an idle source: the position is everything it has, and
// the Txn's timestamp is now, so the lag reads 0 once apply reaches it.
func (s *Stream) heartbeat(ctx context.Context, e *replication.HeartbeatEvent, h *replication.EventHeader) error {
	if s.txn != nil || s.resume != nil || h.LogPos == 0 {
		return nil
	}
	file := e.Filename
	if file == "" {
		file = s.file
	}
	pos := binlogpos.Position{File: file, Pos: h.LogPos, GTIDSet: s.gtid.String(), Flavor: s.cfg.Info.Flavor, ServerID: s.cfg.Info.ServerID}
	if pos.Compare(s.boundary) < 0 {
		pos = s.boundary
	}
	txn := &model.Txn{End: pos, Timestamp: time.Now().UTC(), Seq: s.nextSeq()}
	if err := s.emit(ctx, txn); err != nil {
		return err
	}
	s.setBoundary(pos)
	s.idle(true)
	return s.join(ctx)
}

// emitMarker emits a position-only Txn after a statement that changes
// nothing sluice replicates, so the checkpoint moves past it.
func (s *Stream) emitMarker(ctx context.Context, h *replication.EventHeader, logPos uint32) error {
	if err := s.gtid.commit(); err != nil {
		return s.errorf(s.at(logPos), "%v", err)
	}
	end := s.at(logPos)
	txn := &model.Txn{GTID: s.pendingGTID, End: end, Timestamp: time.Unix(int64(h.Timestamp), 0).UTC(), Seq: s.nextSeq()}
	s.pendingGTID = ""
	if err := s.emit(ctx, txn); err != nil {
		return err
	}
	s.setBoundary(end)
	s.idle(false)
	return s.join(ctx)
}

// at is the position right after the event ending at logPos, with the GTID
// set as of the last commit.
func (s *Stream) at(logPos uint32) binlogpos.Position {
	return binlogpos.Position{File: s.file, Pos: logPos, GTIDSet: s.gtid.String(), Flavor: s.cfg.Info.Flavor, ServerID: s.cfg.Info.ServerID}
}

// statementAt is where a statement event starts, for error messages.
func (s *Stream) statementAt(h *replication.EventHeader, logPos uint32) binlogpos.Position {
	p := s.at(logPos)
	if logPos >= h.EventSize {
		p.Pos = logPos - h.EventSize
	}
	return p
}

// queryKind classifies the statement of a QUERY event.
type queryKind int

const (
	queryOther queryKind = iota
	queryBegin
	queryCommit
	queryRollback
	querySavepoint
	queryXA
)

func classifyQuery(q string) queryKind {
	q = strings.TrimSpace(q)
	word, rest, _ := strings.Cut(q, " ")
	switch strings.ToUpper(word) {
	case "BEGIN":
		return queryBegin
	case "COMMIT":
		return queryCommit
	case "ROLLBACK":
		if r := strings.ToUpper(strings.TrimSpace(rest)); strings.HasPrefix(r, "TO") {
			return querySavepoint
		}
		return queryRollback
	case "SAVEPOINT", "RELEASE":
		return querySavepoint
	case "XA":
		return queryXA
	}
	return queryOther
}
