// Package notify tells the world outside of what a long-running command
// does: it runs --hook commands and POSTs to --notify-webhook URLs for the
// events of internal/board (started, snapshot done, caught up, lag over a
// threshold…). Delivery is asynchronous and bounded: Notify never blocks,
// a full queue drops the event and counts it, a hanging hook is killed at
// its timeout and a refusing webhook is retried with backoff — replication
// never waits for any of it.
package notify

import (
	"slices"
	"strconv"
	"time"
)

// The events. Their names are the contract of --hook EVENT=… and of the
// webhook body's "event" (docs/monitoring.md).
const (
	Started          = "started"            // the command started
	SnapshotDone     = "snapshot_done"      // a snapshot copied every table
	CaughtUp         = "caught_up"          // a stream's lag came under 10 s (once per connection)
	LagOver          = "lag_over"           // a stream's lag went over --notify-lag
	LagUnder         = "lag_under"          // and back under half of it
	Reconnecting     = "reconnecting"       // a stream lost its source or target and retries
	Failed           = "failed"             // a stream, snapshot or alter stopped with an error
	Stopped          = "stopped"            // a stream stopped without error
	VerifyDifference = "verify_differences" // a verify run found differences
	CutoverStep      = "cutover_step"       // a cutover step finished (ok)
	AlterCopyDone    = "alter_copy_done"    // an alter's copy finished; catch-up and swap follow
	AlterSwapped     = "alter_swapped"      // an alter swapped the tables: done
	StandbyTookOver  = "standby_took_over"  // a --standby replicator started applying the stream
)

// All matches every event in --hook all=COMMAND.
const All = "all"

// Names are the events, in the order a run meets them.
var names = []string{Started, SnapshotDone, CaughtUp, LagOver, LagUnder, Reconnecting, Failed, Stopped,
	VerifyDifference, CutoverStep, AlterCopyDone, AlterSwapped, StandbyTookOver}

// Names returns the event names (a copy).
func Names() []string { return append([]string(nil), names...) }

func known(name string) bool { return name == All || slices.Contains(names, name) }

// Event is one notification: the webhook's JSON body, and the SLUICE_*
// variables of a hook's environment. Text fields are as the status page
// shows them: URLs redacted, no password, no row's content.
type Event struct {
	Event      string    `json:"event"`
	Stream     string    `json:"stream"`   // the stream, or the verify, cutover or alter run's name
	Time       time.Time `json:"time"`     // when it happened (UTC)
	Position   string    `json:"position"` // the applied position, when the event has one
	LagSeconds *float64  `json:"lag_seconds"`
	Table      string    `json:"table"`  // the table(s) it concerns, comma-separated
	Step       string    `json:"step"`   // cutover_step: the step's name
	Detail     string    `json:"detail"` // a short human-readable summary
	Error      string    `json:"error"`
	Command    string    `json:"command"` // migrate, replicate, verify…
	Host       string    `json:"host"`    // the machine sluice runs on
}

// env is the event as a hook's SLUICE_* variables.
func (e Event) env() []string {
	lag := "" // unknown: nothing applied yet, or no lag to the event
	if e.LagSeconds != nil {
		lag = strconv.FormatFloat(*e.LagSeconds, 'f', -1, 64)
	}
	return []string{
		"SLUICE_EVENT=" + e.Event, "SLUICE_STREAM=" + e.Stream, "SLUICE_TIME=" + e.Time.UTC().Format(time.RFC3339Nano),
		"SLUICE_POSITION=" + e.Position, "SLUICE_LAG_SECONDS=" + lag, "SLUICE_TABLE=" + e.Table,
		"SLUICE_STEP=" + e.Step, "SLUICE_DETAIL=" + e.Detail, "SLUICE_ERROR=" + e.Error,
		"SLUICE_COMMAND=" + e.Command, "SLUICE_HOST=" + e.Host,
	}
}
