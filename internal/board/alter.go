package board

import (
	"fmt"
	"math"
	"time"

	"github.com/sluice-db/sluice/internal/notify"
)

// Alter is one online schema change's card: the copy, the changes applied
// to it, and what holds it back (a pause, the write pacer, replica lag).
type Alter struct {
	b       *Board
	name    string
	started time.Time
	phase   string
	copyAt  time.Time
	probe   func() AlterReading
	last    AlterReading
	errMsg  string
	errAt   time.Time
}

// AlterReading is what an alter's probe reports.
type AlterReading struct {
	Chunks, ChunksDone int64
	Rows               int64 // copied so far
	KeysPending        int64 // changed keys waiting for their chunk
	Applied            int64 // binlog changes applied to the copy
	Paused             string
	Throttle           string // the write pacer's state ("" when not pacing)
	Replicas           string // each replica's lag at the last poll (--max-lag)
}

// AlterStatus is an alter as /api/status serves it.
type AlterStatus struct {
	Name          string       `json:"name"`
	Phase         string       `json:"phase"` // starting, copying, swapping, done, failed
	Started       time.Time    `json:"started"`
	Chunks        int64        `json:"chunks"`
	ChunksDone    int64        `json:"chunks_done"`
	Percent       float64      `json:"percent"`
	Rows          int64        `json:"rows"`
	RowsPerSecond float64      `json:"rows_per_second"`
	KeysPending   int64        `json:"keys_pending"`
	Applied       int64        `json:"applied"`
	Paused        string       `json:"paused,omitempty"`
	Throttle      string       `json:"throttle,omitempty"`
	Replicas      string       `json:"replicas,omitempty"`
	LastError     *ErrorStatus `json:"last_error"`
}

// Alter returns the named alter's card (db.table), creating it.
func (b *Board) Alter(name string) *Alter {
	if b == nil {
		return nil
	}
	return card(b, b.alters, name, func() *Alter { return &Alter{b: b, name: name, started: b.now(), phase: "starting"} })
}

// Attach sets the copy's probe (phase copying).
func (a *Alter) Attach(probe func() AlterReading) {
	if a == nil {
		return
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	a.probe, a.phase, a.copyAt = probe, "copying", a.b.now()
}

// Detach ends the copy, keeping its last reading (phase swapping: the
// catch-up and the swap follow).
func (a *Alter) Detach() {
	if a == nil {
		return
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	if a.freeze() {
		a.phase = "swapping"
		a.b.emit(notify.Event{Event: notify.AlterCopyDone, Stream: a.name, Table: a.name,
			Detail: fmt.Sprintf("%d rows copied; catching up, then swapping", a.last.Rows)})
	}
}

// freeze keeps the probe's last reading and drops the probe (mu held);
// false when none was attached.
func (a *Alter) freeze() bool {
	if a.probe == nil {
		return false
	}
	a.last, a.probe = a.probe(), nil
	return true
}

// Finish records the end: done (err nil) or failed.
func (a *Alter) Finish(err error) {
	if a == nil {
		return
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	a.freeze()
	a.phase = "done"
	ev := notify.Event{Event: notify.AlterSwapped, Stream: a.name, Table: a.name}
	if err != nil {
		a.phase, a.errMsg, a.errAt = "failed", Message(err), a.b.now()
		ev.Event, ev.Detail, ev.Error = notify.Failed, "alter failed", a.errMsg
	}
	a.b.emit(ev)
}

func (a *Alter) status(now time.Time) AlterStatus {
	rd := a.last
	if a.probe != nil {
		rd = a.probe()
	}
	st := AlterStatus{Name: a.name, Phase: a.phase, Started: a.started, Chunks: rd.Chunks, ChunksDone: rd.ChunksDone,
		Percent: percent(rd.ChunksDone, rd.Chunks, rd.Chunks > 0 && rd.ChunksDone >= rd.Chunks), Rows: rd.Rows,
		KeysPending: rd.KeysPending, Applied: rd.Applied, Paused: rd.Paused, Throttle: Clean(rd.Throttle), Replicas: Clean(rd.Replicas)}
	if a.probe != nil {
		if secs := now.Sub(a.copyAt).Seconds(); secs > 0 {
			st.RowsPerSecond = math.Round(float64(rd.Rows)/secs*10) / 10
		}
	}
	if a.errMsg != "" {
		st.LastError = &ErrorStatus{Message: a.errMsg, At: a.errAt}
	}
	return st
}
