package board

import (
	"math"
	"time"

	"github.com/sluice-db/sluice/internal/notify"
)

// Phase is what a stream is doing.
type Phase string

// The phases of a stream. A publisher sets PhaseReplicating once it
// applies; the board shows it as PhaseCatchingUp while the lag is above
// CatchingUpLag.
const (
	PhaseStarting     Phase = "starting"
	PhaseSnapshot     Phase = "snapshot"
	PhaseCatchingUp   Phase = "catching up"
	PhaseReplicating  Phase = "replicating"
	PhaseReconnecting Phase = "reconnecting"
	PhaseStandby      Phase = "standby"
	PhaseStopped      Phase = "stopped"
	PhaseFailed       Phase = "failed"
)

// CatchingUpLag is the lag above which a replicating stream is shown as
// catching up.
const CatchingUpLag = 10 * time.Second

// Reading is what a stream's probe reports: its current counters.
type Reading struct {
	Read    string  // position read from the source
	Applied string  // position committed in the target
	Lag     float64 // seconds behind the source; NaN: nothing applied yet
	Changes int64   // row changes committed so far (cumulative)
	Queue   int64   // received and not yet committed
}

// PolicyChange is a value a type policy changed (--zero-date, --nul-char…):
// the column and how many rows so far, never a value.
type PolicyChange struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	Policy string `json:"policy"`
	Rows   int64  `json:"rows"`
}

// Point is one sample of a stream's lag chart: Unix seconds and the lag in
// seconds (nil: unknown).
type Point struct {
	T   int64    `json:"t"`
	Lag *float64 `json:"lag"`
}

// Stream is one stream's card on the board.
type Stream struct {
	b              *Board
	name, kind     string
	phase          Phase
	since          time.Time
	source, target string
	probe          func() Reading
	policies       func() []PolicyChange
	last           Reading
	lastAt         time.Time
	rate           float64
	errMsg         string
	errAt          time.Time
	lag            *ring
	frozen         *Reading // the last reading once the probe is gone
	frozenPolicies []PolicyChange
	// The events already sent (notify.go): caught up in this attached run,
	// lag over the threshold, a standby that took over.
	caughtUp, lagOver, tookOver bool
}

// SetEndpoints records the source and target as shown: pass redacted URLs
// (config.Endpoint.Redacted), never one with a password.
func (s *Stream) SetEndpoints(source, target string) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.source, s.target = source, target
}

// SetPhase records what the stream does now.
func (s *Stream) SetPhase(p Phase) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.phase != p {
		prev := s.phase
		s.phase, s.since = p, s.b.now()
		s.phaseEvent(prev)
	}
}

// Fail records the stream's last error (it stays shown until the next
// one); the phase is the publisher's to set.
func (s *Stream) Fail(err error) {
	if s == nil || err == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.errMsg, s.errAt = Message(err), s.b.now()
}

// Reconnecting records a lost connection: the error, and the phase until
// the publisher sets another.
func (s *Stream) Reconnecting(err error) {
	s.Fail(err)
	s.SetPhase(PhaseReconnecting)
	s.notify(notify.Reconnecting)
}

// notify emits one of the stream's events.
func (s *Stream) notify(event string) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.b.emit(s.event(event))
}

// Stopped records the end of the stream: stopped (err nil) or failed.
func (s *Stream) Stopped(err error) {
	if err != nil {
		s.Fail(err)
		s.SetPhase(PhaseFailed)
		s.notify(notify.Failed)
		return
	}
	s.SetPhase(PhaseStopped)
	s.notify(notify.Stopped)
}

// Attach sets the probes of a running stream (policies may be nil). Detach
// ends them, keeping the last reading on the page.
func (s *Stream) Attach(probe func() Reading, policies func() []PolicyChange) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.probe, s.policies, s.frozen = probe, policies, nil
	s.lastAt, s.caughtUp = time.Time{}, false
}

// Detach ends the probes attached last: the run they read has ended.
func (s *Stream) Detach() {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.probe != nil {
		r := s.probe()
		s.frozen = &r
	}
	if s.policies != nil {
		s.frozenPolicies = s.policies()
	}
	s.probe, s.policies, s.rate = nil, nil, 0
}

// reading is the current reading (mu held); ok false before any.
func (s *Stream) reading() (Reading, bool) {
	switch {
	case s.probe != nil:
		return s.probe(), true
	case s.frozen != nil:
		return *s.frozen, true
	}
	return Reading{Lag: math.NaN()}, false
}

func (s *Stream) sample(now time.Time) {
	rd, ok := s.reading()
	if !ok {
		s.lag.add(Point{T: now.Unix()})
		return
	}
	if s.probe != nil && !s.lastAt.IsZero() {
		if secs := now.Sub(s.lastAt).Seconds(); secs > 0 {
			s.rate = float64(rd.Changes-s.last.Changes) / secs
		}
	}
	if s.probe != nil {
		s.last, s.lastAt = rd, now
	}
	s.lag.add(Point{T: now.Unix(), Lag: lagPtr(rd.Lag)})
}

func lagPtr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	v = math.Round(v*10) / 10
	return &v
}

// shownPhase is the phase on the page: a replicating stream far behind is
// catching up.
func (s *Stream) shownPhase(rd Reading, ok bool) Phase {
	if s.phase != PhaseReplicating || !ok {
		return s.phase
	}
	if math.IsNaN(rd.Lag) || rd.Lag > CatchingUpLag.Seconds() {
		return PhaseCatchingUp
	}
	return PhaseReplicating
}

func (s *Stream) status(now time.Time) StreamStatus {
	rd, ok := s.reading()
	st := StreamStatus{Name: s.name, Kind: s.kind, Phase: s.shownPhase(rd, ok), PhaseSince: s.since,
		Source: s.source, Target: s.target, Read: rd.Read, Applied: rd.Applied, LagSeconds: lagPtr(rd.Lag),
		RowsPerSecond: math.Round(s.rate*10) / 10, Changes: rd.Changes, Queue: rd.Queue,
		PolicyChanges: s.frozenPolicies, LagHistory: s.lag.points()}
	if s.policies != nil {
		st.PolicyChanges = s.policies()
	}
	if st.PolicyChanges == nil {
		st.PolicyChanges = []PolicyChange{}
	}
	if s.errMsg != "" {
		st.LastError = &ErrorStatus{Message: s.errMsg, At: s.errAt}
	}
	return st
}
