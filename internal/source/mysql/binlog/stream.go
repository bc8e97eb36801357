package binlog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// Stream reads the binlog from a start position and emits model.Txn values.
//
// Ownership: Run is the only sender on out and closes it when it returns.
// Every emitted Txn has a Seq (1, 2, ... in stream order); the fragments of a
// transaction larger than FragmentBytes share one Seq, all but the last have
// Partial=true and no End, and the last one always carries at least one
// change. A Txn with no Changes and no DDL is a position-only marker: a
// transaction with nothing in scope, a skipped statement, or a heartbeat of
// the idle source (then Timestamp is the time it arrived, so lag reads 0).
//
// After a network error the stream reconnects with backoff and continues
// from the end of the last transaction it emitted completely, with the
// schema of that point (the in-memory schema never runs ahead of it). A
// transaction whose first fragments were already emitted is read again from
// its start and the changes already emitted are skipped, so apply sees every
// change exactly once and never has to drop a half-received transaction.
type Stream struct {
	cfg    Config
	tables *tableSet
	gtid   *gtidTracker
	out    chan<- *model.Txn

	file     string             // binlog file being read
	boundary binlogpos.Position // end of the last complete transaction: where a reconnect resumes
	seq      uint64             // last Seq handed out
	txn      *openTxn           // transaction being read, nil between transactions
	resume   *resumeState       // set after a reconnect in the middle of a fragmented transaction
	// pendingGTID is the GTID of the group being read; a statement outside
	// a transaction (DDL) commits it.
	pendingGTID string
	groupTime   time.Time // commit time announced by the group's GTID event
	lastOwn     time.Time // last emission of changes or DDL
	lastIdle    time.Time // last OnIdle call

	stats Stats
	mu    sync.Mutex // guards readPos for Position
	read  binlogpos.Position
}

// openTxn is the transaction being assembled.
type openTxn struct {
	seq     uint64 // 0 until its first fragment is emitted
	gtid    string
	ts      time.Time
	changes []model.RowChange
	bytes   int64
	seen    int // changes decoded so far (including the skipped ones)
	skip    int // changes already emitted before a reconnect
	emitted int // changes emitted in fragments, as decoded
	folded  int // buffered changes folded into the one before (replace.go)
	stmt    string
	// rowsSeen: a rows event of the transaction was read (in scope or
	// not); loopback: its first one was on database sluice (loopback.go).
	rowsSeen, loopback bool
}

// resumeState carries a fragmented transaction across a reconnect.
type resumeState struct {
	seq     uint64
	gtid    string
	emitted int
}

// Stats are counters for metrics and status lines; safe to read concurrently.
type Stats struct {
	Events    atomic.Int64 // binlog events read
	Bytes     atomic.Int64 // binlog bytes read
	Txns      atomic.Int64 // transactions emitted (fragments count once)
	Changes   atomic.Int64 // row changes emitted
	Reconnect atomic.Int64 // reconnects after a connection loss
	Sessions  atomic.Int64 // binlog dump connections started
	// Resumed counts fragmented transactions read again from their start
	// after a reconnect (the changes already emitted are skipped).
	Resumed atomic.Int64
	// Loopback counts transactions skipped whole because their first row
	// event is on database sluice (loopback.go).
	Loopback atomic.Int64
}

// New validates the configuration and prepares the schema state. It does
// not connect.
func New(cfg Config) (*Stream, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	useGTID := c.Info.GTID && c.Start.GTIDSet != ""
	g, err := newGTIDTracker(c.Info.Flavor, c.Start.GTIDSet, useGTID)
	if err != nil {
		return nil, err
	}
	s := &Stream{
		cfg:      c,
		tables:   newTableSet(c.Tables, c.SchemaVersion, c.InScope),
		gtid:     g,
		boundary: c.Start,
		file:     c.Start.File,
		read:     c.Start,
		lastOwn:  time.Now(),
	}
	s.boundary.Flavor = c.Info.Flavor
	return s, nil
}

// Stats returns the stream's counters.
func (s *Stream) Stats() *Stats { return &s.stats }

// Position returns the end of the last complete transaction read.
func (s *Stream) Position() binlogpos.Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read
}

// SchemaVersion returns the schema-history version at the read position.
// Only meaningful from the stream goroutine or after Run returned.
func (s *Stream) SchemaVersion() int64 { return s.tables.version }

// Run reads until ctx is cancelled (then it returns nil) or a permanent
// error. It closes out when it returns.
func (s *Stream) Run(ctx context.Context, out chan<- *model.Txn) error {
	defer close(out)
	s.out = out
	src, err := OpenSource(s.cfg.Source)
	if err != nil {
		return err
	}
	defer src.Close()
	backoff := time.Second
	failed := 0 // sessions in a row that read nothing
	for {
		progressed, err := s.session(ctx, src)
		if ctx.Err() != nil {
			return nil
		}
		if isPermanent(err) {
			return errors.Unwrap(err)
		}
		if progressed {
			backoff, failed = time.Second, 0
		} else if failed++; s.cfg.Failover && failed >= 2 {
			return &SourceLost{Addr: s.cfg.Source.Addr(), Boundary: s.boundary, Err: err}
		}
		s.stats.Reconnect.Add(1)
		s.cfg.Log.Warn("binlog connection lost, reconnecting", "err", err, "in", backoff, "from", s.boundary.String())
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, s.cfg.MaxBackoff)
	}
}

// session runs one binlog dump connection. It reports whether any event was
// read, so that the backoff restarts after a connection that worked.
func (s *Stream) session(ctx context.Context, src *Source) (bool, error) {
	s.prepareResume()
	if err := s.checkServer(ctx, src); err != nil {
		return false, err
	}
	if err := s.checkAvailable(ctx, src); err != nil {
		return false, err
	}
	wd := newWatchdog(s.cfg.deadAfter, s.cfg.Log)
	wd.coalesce = s.cfg.ReadCoalesce
	wdCtx, stopWatchdog := context.WithCancel(ctx)
	defer stopWatchdog()
	go wd.run(wdCtx)
	h := &eventHandler{s: s, ctx: ctx, wd: wd}
	syncer := replication.NewBinlogSyncer(s.syncerConfig(wd, h))
	defer syncer.Close() // waits for go-mysql's reader, and so for h
	// From the dump's start on, h owns the Stream's state: read it before.
	from, by, version, boundary := s.boundary.String(), s.positioning(), s.tables.version, s.boundary
	streamer, err := s.startDump(syncer)
	if err != nil {
		return false, classify(err, boundary)
	}
	s.stats.Sessions.Add(1)
	s.cfg.Log.Info("reading the binlog", "from", from, "by", by, "server_id", s.cfg.ServerID, "schema_version", version)
	// go-mysql's reader calls h for every event; the streamer only reports
	// how the session ended.
	_, err = streamer.GetEvent(ctx)
	if ctx.Err() != nil {
		return h.progressed.Load(), ctx.Err()
	}
	if herr := h.failed(); herr != nil {
		return true, stop(herr)
	}
	if err == nil {
		err = errors.New("binlog: go-mysql delivered an event to the stream of a synchronous handler")
	}
	return h.progressed.Load(), classify(err, s.boundary)
}

// eventHandler handles the events of one session on go-mysql's reader
// goroutine (BinlogSyncerConfig.SynchronousEventHandler): no channel hop
// between reading an event and handling it, which for a backlog of small
// transactions (five events each) cost more CPU than handling them. The
// reader blocks while the stream hands a transaction on, as it did on a
// full event queue. The session reads the Stream's state again only once
// the syncer is closed (its reader stopped).
type eventHandler struct {
	s          *Stream
	ctx        context.Context
	wd         *watchdog
	progressed atomic.Bool

	mu  sync.Mutex
	err error // the first error of Stream.handle: it ends the session for good
}

// HandleEvent is replication.EventHandler. A panic of the stream stops it
// with an error: go-mysql would report it as a lost connection.
func (h *eventHandler) HandleEvent(ev *replication.BinlogEvent) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("binlog: panic handling a %s event: %v\n%s", ev.Header.EventType, r, debug.Stack())
		}
		if err != nil {
			h.mu.Lock()
			h.err = err
			h.mu.Unlock()
		}
	}()
	if !h.progressed.Load() {
		h.wd.started()
		h.progressed.Store(true)
	}
	return h.s.handle(h.ctx, ev, ev.Header.LogPos)
}

func (h *eventHandler) failed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// prepareResume drops a half-read transaction before a (re)connect. Its
// emitted fragments are remembered so that reading it again skips them.
func (s *Stream) prepareResume() {
	s.tables.forget()
	s.pendingGTID = ""
	if s.txn != nil && s.txn.seq != 0 {
		s.resume = &resumeState{seq: s.txn.seq, gtid: s.txn.gtid, emitted: s.txn.emitted}
		s.stats.Resumed.Add(1)
		s.cfg.Log.Info("reading a large transaction again after the reconnect; its changes already handed to apply are skipped",
			"seq", s.txn.seq, "gtid", s.txn.gtid, "emitted", s.txn.emitted)
	}
	s.txn = nil
	s.file = s.boundary.File
}

func (s *Stream) positioning() string {
	if s.byGTID() {
		return "gtid"
	}
	return "file"
}

// byGTID says whether the dump is positioned by GTID: when GTIDs are
// tracked and positions by them are exact (MySQL, MariaDB with
// gtid_strict_mode), or when there is no file to position by.
func (s *Stream) byGTID() bool {
	if !s.gtid.enabled() {
		return false
	}
	return s.cfg.Info.Flavor == FlavorMySQL || s.cfg.Info.GTIDStrict || s.boundary.File == ""
}

// checkAvailable fails with the purged-binlog error when the start file is
// no longer on the source (positioning by GTID, the server says so itself).
func (s *Stream) checkAvailable(ctx context.Context, src *Source) error {
	if s.byGTID() {
		return nil
	}
	files, err := src.BinaryLogs(ctx)
	if err != nil {
		return err // network: retried
	}
	if !slices.Contains(files, s.boundary.File) {
		return stop(purged(s.boundary, ""))
	}
	return nil
}

func (s *Stream) syncerConfig(wd *watchdog, h replication.EventHandler) replication.BinlogSyncerConfig {
	m := s.cfg.Source
	// The URL's TLS settings, as for every other connection (config/tls.go);
	// an invalid setting was reported when the first connection opened.
	tlsCfg, _, _ := m.TLSConfig()
	return replication.BinlogSyncerConfig{
		TLSConfig:               tlsCfg,
		ServerID:                s.cfg.ServerID,
		Flavor:                  s.cfg.Info.Flavor,
		Host:                    m.Host,
		Port:                    uint16(m.Port),
		User:                    m.User,
		Password:                m.Password,
		Localhost:               ReplicaHost(s.cfg.Stream),
		Charset:                 "utf8mb4",
		ParseTime:               false,
		TimestampStringLocation: time.UTC,
		UseDecimal:              false,
		// MySQL 8 binary JSON rendered the way MySQL prints it: without
		// this, a DECIMAL inside a document arrives as a JSON string and a
		// DATE with a time part, so a replicated document would differ from
		// the snapshot's copy of the same one (see docs/mysql8.md).
		RenderJSONAsMySQLText: true,
		HeartbeatPeriod:       s.cfg.Heartbeat,
		// No per-packet read deadline: the watchdog finds a dead
		// connection by its silence, at a fraction of the cost.
		ReadTimeout:      0,
		Dialer:           wd.dial,
		DisableRetrySync: true, // reconnects resume from our own boundary, see Stream
		// The GTID set is tracked by gtidTracker; go-mysql's copy of it
		// on every commit event would only be garbage.
		DiscardGTIDSet:          true,
		DumpCommandFlag:         dumpFlags(s.cfg.Info.Flavor),
		SynchronousEventHandler: h,
		RowsEventDecodeFunc:     s.decodeRows,
		Logger:                  libraryLogger(s.cfg.Log),
	}
}

func dumpFlags(flavor string) uint16 {
	if flavor == FlavorMariaDB {
		// Annotate events carry the statement of each row event, which
		// makes decode errors point at the statement that caused them.
		return replication.BINLOG_SEND_ANNOTATE_ROWS_EVENT
	}
	return 0
}

func (s *Stream) startDump(syncer *replication.BinlogSyncer) (*replication.BinlogStreamer, error) {
	if s.byGTID() {
		return syncer.StartSyncGTID(s.gtid.clone())
	}
	return syncer.StartSync(gomysql.Position{Name: s.boundary.File, Pos: s.boundary.Pos})
}

// decodeRows decodes a rows event only when its table is in scope: rows of
// other tables are never converted. It runs on go-mysql's reader goroutine.
func (s *Stream) decodeRows(e *replication.RowsEvent, data []byte) error {
	pos, err := e.DecodeHeader(data)
	if err != nil {
		return err
	}
	if !s.cfg.InScope(schema.TableID{Database: string(e.Table.Schema), Name: string(e.Table.Table)}) {
		return nil
	}
	if err := e.DecodeData(pos, data); err != nil {
		return err
	}
	if isPartialUpdate(e) {
		// go-mysql kept only the first diff of each partial JSON column.
		resolvePartialJSON(e, data, pos)
	}
	return nil
}

// emit hands a Txn to the consumer.
func (s *Stream) emit(ctx context.Context, t *model.Txn) error {
	select {
	case s.out <- t:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !t.Partial {
		s.stats.Txns.Add(1)
	}
	if len(t.Changes) > 0 || t.DDL != nil {
		s.lastOwn = time.Now()
	}
	s.stats.Changes.Add(int64(len(t.Changes)))
	return nil
}

// nextSeq hands out the next sequence number.
func (s *Stream) nextSeq() uint64 {
	s.seq++
	return s.seq
}

// setBoundary records the end of a complete transaction.
func (s *Stream) setBoundary(p binlogpos.Position) {
	s.boundary = p
	s.mu.Lock()
	s.read = p
	s.mu.Unlock()
}

// idle calls OnIdle. Without a heartbeat (force=false) it does so at most
// once per heartbeat period, and only after a period without changes in scope.
func (s *Stream) idle(force bool) {
	if s.cfg.OnIdle == nil {
		return
	}
	now := time.Now()
	if !force && (now.Sub(s.lastOwn) < s.cfg.Heartbeat || now.Sub(s.lastIdle) < s.cfg.Heartbeat) {
		return
	}
	s.lastIdle = now
	s.cfg.OnIdle(s.boundary)
}

func (s *Stream) logger() *slog.Logger { return s.cfg.Log }

func (s *Stream) errorf(at binlogpos.Position, format string, a ...any) error {
	return fmt.Errorf("binlog %s: %s", at, fmt.Sprintf(format, a...))
}
