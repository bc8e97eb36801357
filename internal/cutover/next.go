package cutover

import "fmt"

// FallbackCommand is the reverse stream's command line: PostgreSQL's new
// writes back into the MySQL source database (passwords redacted).
func FallbackCommand(o Options) string {
	return fmt.Sprintf("sluice replicate --source %s --target %s --stream %s",
		o.Target.Redacted(), o.Source.Redacted(), o.ReverseStream)
}

// next is step 7: what the operator does now.
func (r *run) next() {
	r.rep.Fallback = FallbackCommand(r.o)
	r.rep.Next = []string{
		"stop every writer of the MySQL source for good (the read lock of --lock is released now): from here on PostgreSQL is the primary",
		"leave no `sluice replicate` of stream " + r.o.Stream + " running against the target once the application writes there",
		"enable what you ported by hand (triggers created disabled, jobs replacing events: docs/cutover.md)",
		"point the application at PostgreSQL (" + r.o.Target.Redacted() + ") and start its writers",
		"keep the way back running: " + r.rep.Fallback + " (it starts at LSN " + r.rep.Boundary.LSN + ", slot " + r.rep.Slot + ")",
		"to fall back: stop the application's writers on PostgreSQL, run the reverse stream with --until-caught-up, point the application at MySQL again",
	}
	if r.runningReplicator != "" {
		// Its sink decided at start that the stream was not cut over: its
		// transactions carry no replication origin.
		r.rep.Next = append([]string{"stop the running replicator of stream " + r.o.Stream + " (" + r.runningReplicator +
			") now: it started before the cut-over and does not mark its transactions for the reverse stream " +
			"(restart it if both directions are to run at once)"}, r.rep.Next...)
	}
}
