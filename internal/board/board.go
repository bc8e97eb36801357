// Package board is the status model of a running command: what its streams
// and snapshots are doing, in memory, for the status page (/ and
// /api/status on --metrics-addr) and later readers such as hooks. A command
// creates one Board and passes it to the parts that publish to it, as it
// does with the Prometheus registry; nothing here is global.
//
// Publishers either set values (phase, endpoints, an error) or attach a
// probe the board calls when it is read or sampled. Probes read counters
// the publisher keeps anyway (atomics), so publishing costs the hot path
// nothing; they must be cheap and must not call back into the board.
// Memory is bounded: a stream keeps one hour of lag samples in a ring.
package board

import (
	"sort"
	"sync"
	"time"
)

// Board holds the status of one process. The zero value is not usable; a
// nil *Board is: every method of a nil Board, Stream or Snapshot does
// nothing, so a command without --metrics-addr publishes to nil.
type Board struct {
	mu        sync.Mutex
	now       func() time.Time
	command   string
	started   time.Time
	streams   map[string]*Stream
	snapshots map[string]*Snapshot
	verifies  map[string]*Verify
	cutovers  map[string]*Cutover
	alters    map[string]*Alter
	merged    map[string]*Merged
	every     time.Duration
	history   int
	// notify receives the board's events (notify.go); nil: none.
	notify       Notifier
	lagThreshold time.Duration
}

// Options of a board (zero values: the defaults).
type Options struct {
	// Command names the process on the page ("migrate", "replicate").
	Command string
	// Every is how often Run samples lag and rates (default 5 s).
	Every time.Duration
	// History is how long a stream's lag chart reaches back (default 1 h).
	History time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
	// Notify receives the events of the board's cards (--hook,
	// --notify-webhook); nil: none.
	Notify Notifier
	// LagThreshold is --notify-lag: a stream's lag over it is an event, and
	// back under half of it another (0: no lag events but caught up).
	LagThreshold time.Duration
}

// New returns an empty board.
func New(o Options) *Board {
	if o.Every <= 0 {
		o.Every = 5 * time.Second
	}
	if o.History <= 0 {
		o.History = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Board{now: o.Now, command: o.Command, started: o.Now(), every: o.Every,
		history: max(2, int(o.History/o.Every)), notify: o.Notify, lagThreshold: o.LagThreshold, streams: map[string]*Stream{}, snapshots: map[string]*Snapshot{}, verifies: map[string]*Verify{}, cutovers: map[string]*Cutover{}, alters: map[string]*Alter{}, merged: map[string]*Merged{}}
}

// Every is the sampling interval.
func (b *Board) Every() time.Duration {
	if b == nil {
		return 0
	}
	return b.every
}

// Stream returns the named stream's card, creating it (phase "starting").
// A command that runs the same stream again (a reconnect) gets the same
// card, with its history.
func (b *Board) Stream(name, kind string) *Stream {
	if b == nil {
		return nil
	}
	return card(b, b.streams, name, func() *Stream {
		return &Stream{b: b, name: name, kind: kind, phase: PhaseStarting, lag: newRing(b.history), since: b.now()}
	})
}

// card returns the named card of a kind, made by mk the first time (under
// the board's lock).
func card[C any](b *Board, cards map[string]*C, name string, mk func() *C) *C {
	b.mu.Lock()
	defer b.mu.Unlock()
	c, ok := cards[name]
	if !ok {
		c = mk()
		cards[name] = c
	}
	return c
}

// Snapshot returns the named stream's snapshot card, creating it.
func (b *Board) Snapshot(stream string) *Snapshot {
	if b == nil {
		return nil
	}
	return card(b, b.snapshots, stream, func() *Snapshot {
		return &Snapshot{b: b, stream: stream, phase: SnapshotCopying, started: b.now(), first: map[string]time.Time{}}
	})
}

// Sample records one point of every stream's lag chart and its rates
// since the previous sample.
func (b *Board) Sample() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	for _, s := range b.streams {
		s.sample(now)
	}
	for _, s := range b.snapshots {
		s.status(now) // notes when each table started copying (its ETA's rate)
	}
}

// Status is a copy of everything on the board, for the page and the JSON.
func (b *Board) Status() Status {
	if b == nil {
		return Status{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	st := Status{Command: b.command, Started: b.started, Now: now, SampleSeconds: b.every.Seconds(),
		Streams: []StreamStatus{}, Snapshots: []SnapshotStatus{}, Verifies: []VerifyStatus{}, Cutovers: []CutoverStatus{}, Alters: []AlterStatus{}, Merged: []MergedStatus{}}
	for _, name := range sortedKeys(b.streams) {
		st.Streams = append(st.Streams, b.streams[name].status(now))
	}
	for _, name := range sortedKeys(b.snapshots) {
		st.Snapshots = append(st.Snapshots, b.snapshots[name].status(now))
	}
	for _, name := range sortedKeys(b.verifies) {
		st.Verifies = append(st.Verifies, b.verifies[name].status())
	}
	for _, name := range sortedKeys(b.cutovers) {
		st.Cutovers = append(st.Cutovers, b.cutovers[name].status())
	}
	for _, name := range sortedKeys(b.alters) {
		st.Alters = append(st.Alters, b.alters[name].status(now))
	}
	for _, name := range sortedKeys(b.merged) {
		st.Merged = append(st.Merged, b.merged[name].status(now))
	}
	return st
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
