package pipeline

import (
	"errors"
	"fmt"
	"os"
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
