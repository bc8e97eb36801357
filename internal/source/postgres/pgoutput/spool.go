package pgoutput

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
)

// A transaction larger than logical_decoding_work_mem (set from
// --max-txn-memory) is streamed by the server while it is still in progress
// (pgoutput streaming, protocol version 2): in blocks between Stream Start
// and Stream Stop, interleaved with other transactions, ending in Stream
// Commit or Stream Abort (of the whole transaction or of a subtransaction).
// The pipeline needs a transaction's changes together and in order, so the
// stream keeps each in-progress transaction's change messages in a spool
// file (unlinked at once: it never outlives the process), and replays it
// through the ordinary decoding at Stream Commit, in fragments of
// FragmentBytes. Memory stays bounded; the disk holds what PostgreSQL would
// otherwise have spilled itself.

// spool is one in-progress transaction's change messages.
type spool struct {
	f       *os.File
	w       *bufio.Writer
	skip    bool   // a sluice origin
	origin  string // for the log
	aborted map[uint32]bool
	bytes   int64
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "sluice-reverse-spool-*")
	if err != nil {
		return nil, fmt.Errorf("reverse source: spool for a streamed transaction: %w", err)
	}
	_ = os.Remove(f.Name()) // the open file stays readable; nothing is left behind by a kill
	return &spool{f: f, w: bufio.NewWriterSize(f, 256<<10), aborted: map[uint32]bool{}}, nil
}

// add appends one message of (sub)transaction xid.
func (sp *spool) add(xid uint32, data []byte) error {
	var h [8]byte
	binary.BigEndian.PutUint32(h[:4], uint32(len(data)))
	binary.BigEndian.PutUint32(h[4:], xid)
	if _, err := sp.w.Write(h[:]); err != nil {
		return fmt.Errorf("reverse source: spool: %w", err)
	}
	if _, err := sp.w.Write(data); err != nil {
		return fmt.Errorf("reverse source: spool: %w", err)
	}
	sp.bytes += int64(len(data)) + 8
	return nil
}

// each calls f with every message not of an aborted subtransaction, in order.
func (sp *spool) each(f func(data []byte) error) error {
	if err := sp.w.Flush(); err != nil {
		return fmt.Errorf("reverse source: spool: %w", err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reverse source: spool: %w", err)
	}
	r := bufio.NewReaderSize(sp.f, 256<<10)
	var h [8]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reverse source: spool: %w", err)
		}
		n, xid := binary.BigEndian.Uint32(h[:4]), binary.BigEndian.Uint32(h[4:])
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return fmt.Errorf("reverse source: spool: %w", err)
		}
		if sp.aborted[xid] {
			continue
		}
		if err := f(buf); err != nil {
			return err
		}
	}
}

func (sp *spool) close() { _ = sp.f.Close() }

// closeSpools releases every spool (the stream ends).
func (s *Stream) closeSpools() {
	for xid, sp := range s.spools {
		sp.close()
		delete(s.spools, xid)
	}
}

// streamed handles a message inside a Stream Start … Stop block, and the
// stream control messages.
func (s *Stream) streamed(ctx context.Context, out chan<- *model.Txn, raw []byte, m pglogrepl.Message) error {
	switch m := m.(type) {
	case *pglogrepl.StreamStartMessageV2:
		s.inStream, s.streamXid = true, m.Xid
		if s.spools[m.Xid] == nil {
			sp, err := newSpool()
			if err != nil {
				return err
			}
			s.spools[m.Xid] = sp
		}
	case *pglogrepl.StreamStopMessageV2:
		s.inStream = false
	case *pglogrepl.OriginMessage:
		if sp := s.spools[s.streamXid]; sp != nil && len(m.Name) >= len(OriginPrefix) && m.Name[:len(OriginPrefix)] == OriginPrefix {
			sp.skip, sp.origin = true, m.Name
		}
	case *pglogrepl.RelationMessageV2:
		return s.relation(&m.RelationMessage)
	case *pglogrepl.InsertMessageV2:
		return s.spoolAdd(m.Xid, raw)
	case *pglogrepl.UpdateMessageV2:
		return s.spoolAdd(m.Xid, raw)
	case *pglogrepl.DeleteMessageV2:
		return s.spoolAdd(m.Xid, raw)
	case *pglogrepl.TruncateMessageV2:
		return s.spoolAdd(m.Xid, raw)
	case *pglogrepl.StreamAbortMessageV2:
		sp := s.spools[m.Xid]
		if sp == nil {
			return nil
		}
		if m.SubXid == m.Xid {
			sp.close()
			delete(s.spools, m.Xid)
			return nil
		}
		sp.aborted[m.SubXid] = true
	case *pglogrepl.StreamCommitMessageV2:
		return s.streamCommit(ctx, out, m)
	}
	return nil
}

func (s *Stream) spoolAdd(xid uint32, raw []byte) error {
	sp := s.spools[s.streamXid]
	if sp == nil {
		return fmt.Errorf("reverse source: a streamed change of transaction %d outside its stream", s.streamXid)
	}
	if sp.skip {
		return nil // a sluice origin: passed over at commit anyway
	}
	return sp.add(xid, raw)
}

// streamCommit replays a streamed transaction's spool as one transaction.
func (s *Stream) streamCommit(ctx context.Context, out chan<- *model.Txn, m *pglogrepl.StreamCommitMessageV2) error {
	sp := s.spools[m.Xid]
	if sp == nil {
		return fmt.Errorf("reverse source: commit of streamed transaction %d, which was never started", m.Xid)
	}
	defer func() {
		sp.close()
		delete(s.spools, m.Xid)
	}()
	s.begin(m.Xid, m.CommitLSN, m.CommitTime)
	s.cur.skip, s.cur.origin = s.cur.skip || sp.skip, sp.origin
	s.cfg.Log.Debug("reverse source: replaying a streamed transaction", "xid", m.Xid, "spooled_bytes", sp.bytes, "lsn", m.TransactionEndLSN.String())
	if !s.cur.skip {
		err := sp.each(func(data []byte) error {
			if isRowMsg(data) {
				return s.rowMessage(ctx, out, data, true)
			}
			msg, err := pglogrepl.ParseV2(data, true)
			if err != nil {
				return fmt.Errorf("reverse source: decode spooled pgoutput: %w", err)
			}
			return s.change(msg, m.CommitLSN)
		})
		if err != nil {
			return err
		}
	}
	return s.commit(ctx, out, &pglogrepl.CommitMessage{CommitLSN: m.CommitLSN, TransactionEndLSN: m.TransactionEndLSN, CommitTime: m.CommitTime})
}
