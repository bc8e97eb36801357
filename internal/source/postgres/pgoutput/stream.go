// Package pgoutput is the PostgreSQL source of the reverse stream
// (PostgreSQL → MySQL): it reads a logical replication slot with the
// pgoutput plugin (protocol version 2, through jackc/pglogrepl), turns each
// committed transaction into a model.Txn whose values are those the MySQL
// binlog source would emit for the MySQL target's own columns (values.go),
// and acknowledges to the slot only what the pipeline has checkpointed in
// MySQL.
package pgoutput

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// OriginPrefix marks transactions written by a sluice sink on PostgreSQL
// (the forward stream sets a replication origin "sluice_<stream>" on its
// sessions): they are skipped, so that with both directions running a row
// never comes back to where it was written.
const OriginPrefix = "sluice"

// Config configures a Stream.
type Config struct {
	// ConnString is the PostgreSQL connection (a URL or keywords); the
	// stream adds replication=database and its session settings.
	ConnString        string
	Slot, Publication string
	// Start is the checkpoint: transactions ending at or before it are in
	// MySQL already and are passed over.
	Start pglogrepl.LSN
	// Schema is the PostgreSQL schema whose tables come back; Tables are
	// the MySQL target tables by their PostgreSQL name (their definitions
	// are the truth the values are converted for); Naming names their
	// columns on PostgreSQL (the forward stream's mapping).
	Schema string
	Tables map[string]*schema.Table
	Naming schema.Naming
	// FragmentBytes bounds one fragment of a large transaction (--max-txn-memory/16).
	FragmentBytes int64
	// Acked returns the pipeline's saved checkpoint: the only position
	// ever reported to the slot as flushed.
	Acked func() model.Position
	// SkipBadRows is --on-error skip-and-log: a row whose value the MySQL
	// column cannot hold is logged and left out instead of stopping.
	SkipBadRows bool
	// IdleAfter is how long the stream is quiet before it writes a marker
	// to move an idle slot forward (default 10s; marker.go).
	IdleAfter time.Duration
	// StatusInterval is how often the acknowledged position is sent (default 1s).
	StatusInterval time.Duration
	Log            *slog.Logger
}

// Stream reads one slot. Create it with New, then call Run once.
type Stream struct {
	cfg  Config
	conn *pgconn.PgConn
	rels map[uint32]*relation
	seq  uint64
	// lastEnd is the end of the last transaction or heartbeat sent.
	lastEnd pglogrepl.LSN
	// received is the WAL position the server last reported (for lag).
	received atomic.Uint64
	skipped  atomic.Uint64 // transactions of a sluice origin
	quietAt  atomic.Uint64 // WAL end of the last keepalive (idle markers)
	badRows  atomic.Uint64 // rows left out by --on-error skip-and-log
	nextAck  time.Time
	cur      *txnState
	// curState holds the transaction cur points to (one per stream, not
	// one allocation per transaction); oldCols and newCols are the row
	// decoder's scratch (tuple.go).
	curState         txnState
	oldCols, newCols []tupleCol
	emitTick         *time.Ticker // emit's, while the pipeline is busy
	// lastData is when the server last sent a change; lastMark when an
	// idle marker was last written (marker.go) through plain.
	lastData, lastMark time.Time
	plain              *pgx.Conn
	// Streamed in-progress transactions (spool.go): inside a Stream
	// Start … Stop block of streamXid; their spools by top-level xid.
	inStream  bool
	streamXid uint32
	spools    map[uint32]*spool
}

// txnState is the transaction being decoded.
type txnState struct {
	xid      uint32
	final    pglogrepl.LSN // commit LSN (Begin)
	ts       time.Time
	skip     bool   // a sluice origin, or at/below the checkpoint
	origin   string // the origin, for the log
	txn      *model.Txn
	frags    int
	badRows  int
	firstErr error
}

// New checks the configuration.
func New(cfg Config) (*Stream, error) {
	if cfg.Slot == "" || cfg.Publication == "" || cfg.Acked == nil || cfg.ConnString == "" {
		return nil, errors.New("pgoutput: slot, publication, connection and Acked are required")
	}
	if cfg.FragmentBytes <= 0 {
		cfg.FragmentBytes = 16 << 20
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = 10 * time.Second
	}
	if cfg.StatusInterval <= 0 {
		cfg.StatusInterval = time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Stream{cfg: cfg, rels: map[uint32]*relation{}, lastEnd: cfg.Start, spools: map[uint32]*spool{}}, nil
}

// Received is the server's WAL end as last reported (0 before anything).
func (s *Stream) Received() pglogrepl.LSN { return pglogrepl.LSN(s.received.Load()) }

// QuietAt is the server's WAL end in its last keepalive: not a
// transaction boundary (marker.go), only a sign the server's WAL moved on.
func (s *Stream) QuietAt() pglogrepl.LSN { return pglogrepl.LSN(s.quietAt.Load()) }

// BadRows counts rows left out by --on-error skip-and-log.
func (s *Stream) BadRows() uint64 { return s.badRows.Load() }

// Skipped counts transactions passed over for their sluice origin.
func (s *Stream) Skipped() uint64 { return s.skipped.Load() }

// connect opens the replication connection. The session settings fix the
// text forms values arrive in (values.go).
func (s *Stream) connect(ctx context.Context) error {
	pc, err := pgconn.ParseConfig(s.cfg.ConnString)
	if err != nil {
		return fmt.Errorf("reverse source: %w", err)
	}
	// The walsender streams a transaction once its decoded changes pass
	// logical_decoding_work_mem: a quarter of --max-txn-memory, so that the
	// server's memory for it is bounded by the same setting.
	pc.RuntimeParams["logical_decoding_work_mem"] = fmt.Sprintf("%dkB", max(64, s.cfg.FragmentBytes*16/4/1024))
	for k, v := range map[string]string{"replication": "database", "DateStyle": "ISO, YMD", "TimeZone": "UTC",
		"IntervalStyle": "postgres", "bytea_output": "hex", "extra_float_digits": "3", "client_encoding": "UTF8"} {
		pc.RuntimeParams[k] = v
	}
	if s.conn, err = pgconn.ConnectConfig(ctx, pc); err != nil {
		return lost(fmt.Errorf("reverse source: replication connection: %w", err))
	}
	return nil
}

// Run streams transactions into out until ctx ends (nil) or an error. It
// closes out when it returns, once the connections are closed
// (source.Stream).
func (s *Stream) Run(ctx context.Context, out chan<- *model.Txn) error {
	defer close(out)
	if err := s.connect(ctx); err != nil {
		return err
	}
	defer s.conn.Close(context.WithoutCancel(ctx))
	defer s.closeSpools()
	defer func() {
		if s.plain != nil {
			_ = s.plain.Close(context.WithoutCancel(ctx))
		}
	}()
	if err := s.endEarlierReader(ctx); err != nil { // takeover.go
		return err
	}
	if err := s.checkSlot(ctx); err != nil {
		return err
	}
	// messages: the markers (marker.go) arrive as transactions; streaming:
	// a transaction over logical_decoding_work_mem arrives while in
	// progress, spooled here (spool.go).
	args := []string{"proto_version '2'", "publication_names '" + strings.ReplaceAll(s.cfg.Publication, "'", "''") + "'",
		"messages 'true'", "streaming 'on'"}
	if err := pglogrepl.StartReplication(ctx, s.conn, s.cfg.Slot, s.cfg.Start,
		pglogrepl.StartReplicationOptions{Mode: pglogrepl.LogicalReplication, PluginArgs: args}); err != nil {
		return lost(fmt.Errorf("reverse source: START_REPLICATION of slot %s: %w", s.cfg.Slot, err))
	}
	s.cfg.Log.Info("reverse source: streaming", "slot", s.cfg.Slot, "publication", s.cfg.Publication, "from", s.cfg.Start.String())
	err := s.loop(ctx, out)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// checkSlot refuses a missing slot with what it means: the WAL since the
// checkpoint is gone, so the stream cannot continue exactly.
func (s *Stream) checkSlot(ctx context.Context) error {
	res, err := s.conn.Exec(ctx, "SELECT plugin, confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '"+
		strings.ReplaceAll(s.cfg.Slot, "'", "''")+"'").ReadAll()
	if err != nil {
		return lost(fmt.Errorf("reverse source: read slot %s: %w", s.cfg.Slot, err))
	}
	if len(res) == 0 || len(res[0].Rows) == 0 {
		return fmt.Errorf("reverse source: the replication slot %s does not exist (it was dropped, or never created): "+
			"the changes PostgreSQL made since the checkpoint %s are no longer kept, so the reverse stream cannot continue without losing writes; "+
			"compare the databases (sluice verify) and arm a new stream (sluice cutover, or a new --stream)", s.cfg.Slot, s.cfg.Start)
	}
	if p := string(res[0].Rows[0][0]); p != "pgoutput" {
		return fmt.Errorf("reverse source: slot %s uses the plugin %s, not pgoutput", s.cfg.Slot, p)
	}
	// The slot is only ever told the checkpoint MySQL holds, so it cannot
	// be past it: a slot that is was created anew or read by another
	// consumer, and the transactions in between would be missed.
	if flushed, err := pglogrepl.ParseLSN(string(res[0].Rows[0][1])); err == nil && s.cfg.Start != 0 && flushed > s.cfg.Start {
		return fmt.Errorf("reverse source: the replication slot %s is at %s, past the stream's checkpoint %s in MySQL: "+
			"it was created anew or consumed by something else, and the changes between are not in MySQL; "+
			"compare the databases (sluice verify) and arm a new stream", s.cfg.Slot, flushed, s.cfg.Start)
	}
	return nil
}

func (s *Stream) loop(ctx context.Context, out chan<- *model.Txn) error {
	// The receive waits on the connection's read deadline, set once per
	// status interval, and ctx's end moves that deadline to now: a context
	// per message (pgconn watches each one it is given) was a fifth of the
	// stream's CPU at a backlog's rate.
	nc := s.conn.Conn()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetReadDeadline(time.Now()) })
	defer stop()
	defer func() { _ = nc.SetReadDeadline(time.Time{}) }()
	s.nextAck = time.Now()
	var deadline time.Time
	for {
		if time.Now().After(s.nextAck) {
			if err := s.ack(ctx, false); err != nil {
				return err
			}
			if err := s.idleMark(ctx); err != nil {
				return err
			}
		}
		if !deadline.Equal(s.nextAck) {
			deadline = s.nextAck
			if err := nc.SetReadDeadline(deadline); err != nil {
				return lost(fmt.Errorf("reverse source: receive: %w", err))
			}
		}
		// Checked after the deadline is set: an end of ctx before it would
		// otherwise wait out the interval.
		if ctx.Err() != nil {
			return nil
		}
		raw, err := s.conn.ReceiveMessage(context.Background())
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if pgconn.Timeout(err) {
				continue
			}
			return lost(fmt.Errorf("reverse source: receive: %w", err))
		}
		switch msg := raw.(type) {
		case *pgproto3.ErrorResponse:
			return lost(fmt.Errorf("reverse source: %w", pgconn.ErrorResponseToPgError(msg)))
		case *pgproto3.CopyData:
			if err := s.copyData(ctx, msg.Data, out); err != nil {
				return err
			}
		}
	}
}

func (s *Stream) copyData(ctx context.Context, data []byte, out chan<- *model.Txn) error {
	if len(data) == 0 {
		return nil
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return fmt.Errorf("reverse source: keepalive: %w", err)
		}
		s.received.Store(uint64(k.ServerWALEnd))
		if k.ReplyRequested {
			if err := s.ack(ctx, true); err != nil {
				return err
			}
		}
		// The keepalive's WAL end is not a transaction boundary (marker.go);
		// it only says whether the server's WAL moved on (idle markers).
		if uint64(k.ServerWALEnd) > s.quietAt.Load() {
			s.quietAt.Store(uint64(k.ServerWALEnd))
		}
		return nil
	case pglogrepl.XLogDataByteID:
		x, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return fmt.Errorf("reverse source: %w", err)
		}
		if x.ServerWALEnd > s.Received() {
			s.received.Store(uint64(x.ServerWALEnd))
		}
		s.lastData = time.Now()
		return s.message(ctx, x, out)
	}
	return nil
}

// ack reports the pipeline's saved checkpoint as written, flushed and
// applied: never the received position, which MySQL may not hold yet.
func (s *Stream) ack(ctx context.Context, now bool) error {
	lsn, err := ackedLSN(s.cfg.Acked())
	if err != nil {
		return err
	}
	if lsn == 0 {
		lsn = s.cfg.Start
	}
	s.nextAck = time.Now().Add(s.cfg.StatusInterval)
	if lsn == 0 && !now {
		return nil
	}
	// ReplyRequested makes the server answer with a keepalive carrying its
	// sent position: between transactions that becomes a heartbeat, which
	// moves an idle stream's checkpoint (and so the slot) forward.
	if err := pglogrepl.SendStandbyStatusUpdate(ctx, s.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: lsn, WALFlushPosition: lsn, WALApplyPosition: lsn, ReplyRequested: true}); err != nil {
		return lost(fmt.Errorf("reverse source: standby status: %w", err))
	}
	return nil
}

func ackedLSN(p model.Position) (pglogrepl.LSN, error) { return lsnpos.From(p) }

// emit hands t to the pipeline, answering the server while the pipeline
// is busy (a walsender without replies drops the connection).
func (s *Stream) emit(ctx context.Context, out chan<- *model.Txn, t *model.Txn) error {
	if t.Seq == 0 {
		s.seq++
		t.Seq = s.seq
	}
	if t.End != nil {
		s.lastEnd, _ = lsnpos.From(t.End)
	}
	select {
	case out <- t: // the usual case: no timer for it
		return nil
	default:
	}
	// The pipeline is busy (while catching up, nearly every time): one
	// ticker for the stream, reset here, keeps the status going.
	if s.emitTick == nil {
		s.emitTick = time.NewTicker(s.cfg.StatusInterval)
	} else {
		s.emitTick.Reset(s.cfg.StatusInterval)
	}
	defer s.emitTick.Stop()
	for {
		select {
		case out <- t:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-s.emitTick.C:
			if err := s.ack(ctx, true); err != nil {
				return err
			}
		}
	}
}
