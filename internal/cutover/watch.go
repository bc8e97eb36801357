package cutover

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// watcher reads the source's binlog from one position on and notes the
// first row event on a migrated table: the proof (without --lock) that the
// application stopped writing to the source. It reads only event headers;
// row images are never decoded.
type watcher struct {
	cancel context.CancelFunc
	done   chan struct{}
	syncer *replication.BinlogSyncer

	mu    sync.Mutex
	pos   binlogpos.Position // read up to here
	write string             // the first write to a migrated table, "" while none
	err   error
}

func startWatcher(ctx context.Context, o Options, info binlog.SourceInfo, from binlogpos.Position, inScope func(db, table string) bool) (*watcher, error) {
	m := o.Source
	tlsCfg, _, _ := m.TLSConfig()
	stream := o.Stream + "-cutover"
	syncer := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		TLSConfig: tlsCfg,
		ServerID:  binlog.DefaultServerID(stream, o.Target.Redacted()),
		Flavor:    info.Flavor,
		Host:      m.Host, Port: uint16(m.Port), User: m.User, Password: m.Password,
		Localhost:        binlog.ReplicaHost(stream),
		Charset:          "utf8mb4",
		HeartbeatPeriod:  200 * time.Millisecond,
		DisableRetrySync: true,
		DiscardGTIDSet:   true,
		// The table is all the watcher needs of a rows event.
		RowsEventDecodeFunc: func(e *replication.RowsEvent, data []byte) error {
			_, err := e.DecodeHeader(data)
			return err
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	streamer, err := syncer.StartSync(gomysql.Position{Name: from.File, Pos: from.Pos})
	if err != nil {
		syncer.Close()
		return nil, fmt.Errorf("watch the source's binlog from %s: %w", from, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	w := &watcher{cancel: cancel, done: make(chan struct{}), syncer: syncer, pos: from}
	go w.run(wctx, streamer, inScope)
	return w, nil
}

func (w *watcher) run(ctx context.Context, s *replication.BinlogStreamer, inScope func(db, table string) bool) {
	defer close(w.done)
	file := w.pos.File
	var handle func(ev *replication.BinlogEvent)
	handle = func(ev *replication.BinlogEvent) {
		switch e := ev.Event.(type) {
		case *replication.RotateEvent:
			file = string(e.NextLogName)
			return
		case *replication.RowsEvent:
			if e.Table != nil && inScope(string(e.Table.Schema), string(e.Table.Table)) {
				w.mu.Lock()
				if w.write == "" {
					w.write = fmt.Sprintf("%s.%s at %s:%d (%s)", e.Table.Schema, e.Table.Table, file, ev.Header.LogPos,
						time.Unix(int64(ev.Header.Timestamp), 0).UTC().Format(time.RFC3339))
				}
				w.mu.Unlock()
			}
		case *replication.TransactionPayloadEvent:
			for _, inner := range e.Events {
				handle(inner)
			}
		}
		if ev.Header.LogPos > 0 {
			w.mu.Lock()
			p := binlogpos.Position{File: file, Pos: ev.Header.LogPos}
			if p.Compare(w.pos) > 0 {
				w.pos = p
			}
			w.mu.Unlock()
		}
	}
	for {
		ev, err := s.GetEvent(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				w.mu.Lock()
				w.err = fmt.Errorf("watching the source's binlog: %w", err)
				w.mu.Unlock()
			}
			return
		}
		handle(ev)
	}
}

// check returns an error when a write to a migrated table was seen or the
// watch failed.
func (w *watcher) check() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.write != "" {
		return fmt.Errorf("writes still reach the migrated tables on the source: %s; stop the application's writers "+
			"(or pass --lock to block them during the switch) and run cutover again", w.write)
	}
	return w.err
}

// waitPast waits until the watcher has read the binlog up to p and returns
// check's verdict.
func (w *watcher) waitPast(ctx context.Context, p binlogpos.Position) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(time.Minute)
	for {
		if err := w.check(); err != nil {
			return err
		}
		w.mu.Lock()
		at := w.pos
		w.mu.Unlock()
		if reached(at, p) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.done:
			if err := w.check(); err != nil {
				return err
			}
			return fmt.Errorf("watching the source's binlog stopped at %s before %s", at, p)
		case <-timeout:
			return fmt.Errorf("watching the source's binlog: still at %s after a minute, want %s", at, p)
		case <-tick.C:
		}
	}
}

func (w *watcher) stop() {
	w.cancel()
	w.syncer.Close()
	<-w.done
}
