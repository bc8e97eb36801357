package board

import (
	"math"
	"time"
)

// The phases of a snapshot.
const (
	SnapshotCopying = "copying"
	SnapshotDone    = "done"
	SnapshotFailed  = "failed"
)

// TableReading is one table's copy counters, as a snapshot's probe reports
// them.
type TableReading struct {
	Name          string
	Rows          int64 // copied so far
	EstimatedRows int64 // the server's estimate
	Done          bool  // every chunk copied
}

// Snapshot is one snapshot's card.
type Snapshot struct {
	b       *Board
	stream  string
	phase   string
	started time.Time
	probe   func() []TableReading
	tables  []TableReading // the last reading once the probe is gone
	first   map[string]time.Time
	errMsg  string
	errAt   time.Time
}

// Attach sets the probe of a running copy.
func (s *Snapshot) Attach(probe func() []TableReading) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	s.probe, s.phase = probe, SnapshotCopying
}

// Finish ends the copy: done (err nil) or failed, keeping the last reading.
func (s *Snapshot) Finish(err error) {
	if s == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.probe != nil {
		s.tables, s.probe = s.probe(), nil
	}
	s.phase = SnapshotDone
	if err != nil {
		s.phase, s.errMsg, s.errAt = SnapshotFailed, Message(err), s.b.now()
	}
	s.event(err)
}

func (s *Snapshot) status(now time.Time) SnapshotStatus {
	tables := s.tables
	if s.probe != nil {
		tables = s.probe()
	}
	st := SnapshotStatus{Stream: s.stream, Phase: s.phase, Started: s.started, Tables: make([]TableStatus, 0, len(tables))}
	var maxETA float64
	for _, t := range tables {
		ts := TableStatus{Name: t.Name, Rows: t.Rows, EstimatedRows: max(t.EstimatedRows, t.Rows), Done: t.Done}
		if _, seen := s.first[t.Name]; !seen || t.Rows == 0 {
			// The last time it had no rows: its copy started after that.
			s.first[t.Name] = now
		}
		ts.Percent = percent(ts.Rows, ts.EstimatedRows, t.Done)
		if !t.Done && s.phase == SnapshotCopying {
			ts.ETASeconds = eta(ts.Rows, ts.EstimatedRows, now.Sub(s.firstAt(t.Name, now)))
			if ts.ETASeconds != nil {
				maxETA = max(maxETA, *ts.ETASeconds)
			}
		}
		if t.Done {
			st.TablesDone++
		}
		st.Rows += ts.Rows
		st.EstimatedRows += ts.EstimatedRows
		st.Tables = append(st.Tables, ts)
	}
	st.Percent = percent(st.Rows, st.EstimatedRows, s.phase == SnapshotDone)
	if s.phase == SnapshotCopying {
		st.ETASeconds = eta(st.Rows, st.EstimatedRows, now.Sub(s.started))
		if st.ETASeconds != nil && maxETA > *st.ETASeconds {
			st.ETASeconds = &maxETA // the slowest table sets the end
		}
	}
	if s.errMsg != "" {
		st.LastError = &ErrorStatus{Message: s.errMsg, At: s.errAt}
	}
	return st
}

// firstAt is when the table's copy started, as far as the board saw it.
func (s *Snapshot) firstAt(name string, now time.Time) time.Time {
	if t, ok := s.first[name]; ok {
		return t
	}
	return now
}

func percent(rows, est int64, done bool) float64 {
	switch {
	case done:
		return 100
	case est <= 0:
		return 0
	}
	// Estimates are approximate: an unfinished table reads at most 99.9 %.
	return math.Min(99.9, math.Floor(float64(rows)*1000/float64(est))/10)
}

// eta extrapolates the rate since the copy started to the estimate; nil
// while nothing was copied or time has not moved.
func eta(rows, est int64, elapsed time.Duration) *float64 {
	if rows <= 0 || elapsed <= 0 {
		return nil
	}
	left := math.Max(0, float64(est-rows))
	v := math.Round(elapsed.Seconds() * left / float64(rows))
	return &v
}
