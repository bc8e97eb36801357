package binlog

import (
	"context"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// A dead binlog connection (a peer that vanished without a FIN or RST, a
// frozen NAT entry) shows as silence: an idle source still sends a
// heartbeat every Config.Heartbeat. go-mysql can detect that with its
// ReadTimeout, but it implements it as a SetReadDeadline per packet, which
// re-arms a runtime timer for every binlog event: about a quarter of
// sluice's CPU while catching up a backlog of small transactions. The
// watchdog instead counts the reads of the connection and closes it when
// the count has not moved for deadAfter; go-mysql's reader then fails with
// a network error and the stream reconnects as after any connection loss.

// watchedConn is a net.Conn whose reads are counted.
type watchedConn struct {
	net.Conn
	reads  atomic.Uint64
	closed atomic.Bool
	// coalesce: Config.ReadCoalesce; short: the last read filled less than
	// a quarter of its buffer (only go-mysql's reader goroutine reads).
	coalesce time.Duration
	short    bool
}

func (c *watchedConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

func (c *watchedConn) Read(p []byte) (int, error) {
	if c.coalesce > 0 && c.short {
		time.Sleep(c.coalesce)
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.reads.Add(1)
	}
	c.short = n < len(p)/4
	return n, err
}

// watchdog dials the connections of one binlog session and closes any of
// them that stays silent for deadAfter once the session streams events.
// Before the first event the limit is startupGrace: positioning a dump by
// GTID makes MariaDB read the binlog file from its start, silently, which
// takes seconds on a large file.
type watchdog struct {
	deadAfter time.Duration
	coalesce  time.Duration // of the connections' reads (Config.ReadCoalesce)
	log       *slog.Logger
	streaming atomic.Bool // the session has received its first event

	mu    sync.Mutex
	conns map[*watchedConn]*silence
}

// silence is what the watchdog last saw of a connection.
type silence struct {
	reads uint64
	since time.Time
}

// startupGrace bounds the silence before a session's first event.
const startupGrace = 2 * time.Minute

// started tells the watchdog that the session receives events.
func (w *watchdog) started() { w.streaming.Store(true) }

func newWatchdog(deadAfter time.Duration, log *slog.Logger) *watchdog {
	return &watchdog{deadAfter: deadAfter, log: log, conns: map[*watchedConn]*silence{}}
}

// dial is a go-mysql client.Dialer.
func (w *watchdog) dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	wc := &watchedConn{Conn: c, coalesce: w.coalesce}
	w.mu.Lock()
	w.conns[wc] = &silence{since: time.Now()}
	w.mu.Unlock()
	return wc, nil
}

// run checks the connections until ctx ends; the session cancels it when
// the syncer is closed.
func (w *watchdog) run(ctx context.Context) {
	tick := time.NewTicker(max(w.deadAfter/8, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			w.check(now)
		}
	}
}

// check closes the connections silent for deadAfter and forgets them.
func (w *watchdog) check(now time.Time) {
	limit := w.deadAfter
	if !w.streaming.Load() {
		limit = max(limit, startupGrace)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for c, s := range w.conns {
		if c.closed.Load() {
			delete(w.conns, c)
			continue
		}
		n := c.reads.Load()
		if n != s.reads {
			s.reads, s.since = n, now
			continue
		}
		if now.Sub(s.since) < limit {
			continue
		}
		w.log.Warn("binlog connection silent, closing it to reconnect",
			"silent_for", now.Sub(s.since).Round(time.Millisecond), "remote", c.RemoteAddr().String())
		_ = c.Close()
		delete(w.conns, c)
	}
}
