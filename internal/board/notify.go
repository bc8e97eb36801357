package board

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/notify"
)

// Notifier receives the board's events (internal/notify: --hook and
// --notify-webhook). Notify is called with the board locked: it must not
// block and must not call back into the board.
type Notifier interface {
	Notify(notify.Event)
}

// watchEvery is how often the board checks the lag events (caught up, over
// and back under --notify-lag) when it has a notifier.
const watchEvery = time.Second

// emit sends ev, stamped now (mu held).
func (b *Board) emit(ev notify.Event) {
	if b.notify == nil {
		return
	}
	ev.Time = b.now()
	b.notify.Notify(ev)
}

// event is one of the stream's events with its position and lag (mu held).
func (s *Stream) event(name string) notify.Event {
	ev := notify.Event{Event: name, Stream: s.name}
	if rd, ok := s.reading(); ok {
		ev.Position, ev.LagSeconds = rd.Applied, lagPtr(rd.Lag)
	}
	if name == notify.Failed || name == notify.Reconnecting {
		ev.Error = s.errMsg
	}
	return ev
}

// watch emits each stream's lag events (mu held): caught up once per
// attached run when the lag first comes under CatchingUpLag; over the
// threshold when the lag exceeds it, and back under only once it is at
// most half of it again, so a lag hovering at the threshold does not page
// at every check.
func (b *Board) watch() {
	for _, name := range sortedKeys(b.streams) {
		s := b.streams[name]
		if s.probe == nil || s.phase != PhaseReplicating {
			continue
		}
		lag := s.probe().Lag
		if math.IsNaN(lag) { // nothing applied yet
			continue
		}
		// Compared as reported (to a tenth of a second), so an event never
		// says "lag 3.0 s is over --notify-lag 3s".
		lag = math.Round(lag*10) / 10
		if !s.caughtUp && lag <= CatchingUpLag.Seconds() {
			s.caughtUp = true
			b.emit(s.event(notify.CaughtUp))
		}
		if t := b.lagThreshold.Seconds(); t > 0 {
			switch {
			case !s.lagOver && lag > t:
				s.lagOver = true
				ev := s.event(notify.LagOver)
				ev.LagSeconds = lagPtr(lag) // the lag that crossed, not a second reading
				ev.Detail = fmt.Sprintf("lag %.1f s is over --notify-lag %s", lag, b.lagThreshold)
				b.emit(ev)
			case s.lagOver && lag <= t/2:
				s.lagOver = false
				ev := s.event(notify.LagUnder)
				ev.LagSeconds = lagPtr(lag)
				ev.Detail = fmt.Sprintf("lag %.1f s is back under half of --notify-lag %s", lag, b.lagThreshold)
				b.emit(ev)
			}
		}
	}
}

// phaseEvent emits the event of a stream's phase change from prev (mu
// held): a standby that starts applying took the stream over.
func (s *Stream) phaseEvent(prev Phase) {
	if prev == PhaseStandby && s.phase == PhaseReplicating && !s.tookOver {
		s.tookOver = true
		s.b.emit(s.event(notify.StandbyTookOver))
	}
}

// event emits a finished snapshot's event (mu held): done, or failed
// when no stream card will report the failure itself (snapshot alone).
func (s *Snapshot) event(err error) {
	if err == nil {
		var rows int64
		for _, t := range s.tables {
			rows += t.Rows
		}
		s.b.emit(notify.Event{Event: notify.SnapshotDone, Stream: s.stream,
			Detail: fmt.Sprintf("%d tables, %d rows copied", len(s.tables), rows)})
		return
	}
	if _, streamed := s.b.streams[s.stream]; !streamed {
		s.b.emit(notify.Event{Event: notify.Failed, Stream: s.stream, Detail: "snapshot failed", Error: s.errMsg})
	}
}

// event emits a finished verify's event (mu held): differences, with
// the tables that have them.
func (v *Verify) event() {
	if v.result != "differences" {
		return
	}
	var tables []string
	var rows int64
	for _, t := range v.results {
		if t.Result == "differences" {
			tables = append(tables, t.Table)
			rows += t.OnlyInSource + t.OnlyInTarget + t.Differing
		}
	}
	v.b.emit(notify.Event{Event: notify.VerifyDifference, Stream: v.name, Table: strings.Join(tables, ","),
		Detail: differDetail(len(tables), rows)})
}

// differDetail says how many tables and rows differ ("1 table differs, 3 rows").
func differDetail(tables int, rows int64) string {
	what := fmt.Sprintf("%d tables differ", tables)
	if tables == 1 {
		what = "1 table differs"
	}
	if rows == 1 {
		return what + ", 1 row"
	}
	return fmt.Sprintf("%s, %d rows", what, rows)
}

// event emits a cutover step's event (mu held): done, or failed.
func (c *Cutover) event(s CutoverStep) {
	switch s.Result {
	case "ok":
		c.b.emit(notify.Event{Event: notify.CutoverStep, Stream: c.name, Step: s.Name, Detail: s.Detail})
	case "failed":
		c.b.emit(notify.Event{Event: notify.Failed, Stream: c.name, Step: s.Name, Detail: "cutover step failed", Error: s.Detail})
	}
}
