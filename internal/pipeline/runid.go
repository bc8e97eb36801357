package pipeline

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// NewRunID names one run of a replicator on its target: the process and
// when it started. A standby that takes a stream over records its own, and
// the run it replaced finds out by comparing (sink/postgres standby.go).
func NewRunID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("sluice %d@%s started %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339Nano))
}

// ErrTakenOver marks the error of a run whose stream another run (a
// standby) took over: it must stop, exit 2, and write nothing more.
var ErrTakenOver = errors.New("a standby took the stream over")

// RunIdentity names one run of a replicator across its reconnects (the
// forward stream's lost target, the way back's lost PostgreSQL), and
// remembers whether it has owned the stream: a run that did, and finds on
// reconnecting that another run owns it now, was taken over and stops
// (exit 2) instead of fencing its successor out.
type RunIdentity struct {
	ID    string
	Owned atomic.Bool
}

// NewRunIdentity is a run that has not owned its stream yet.
func NewRunIdentity() *RunIdentity { return &RunIdentity{ID: NewRunID()} }
