package replicate

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestSnapshotFromReplicaThenReplicateFromPrimary: the snapshot reads a
// replica (log_slave_updates) while the primary takes writes, and replicate
// then reads the primary (issue 24: a managed source's snapshot from a read
// replica). The position the snapshot recorded is the replica's binlog
// file:pos with its GTID; on the primary only the GTID means anything, and
// the stream continues there by GTID after the containment check, so the
// target equals the primary row for row: nothing the snapshot missed is
// lost, nothing it copied is applied twice.
func TestSnapshotFromReplicaThenReplicateFromPrimary(t *testing.T) {
	failoverFlavors(t, testSnapshotFromReplicaThenReplicateFromPrimary)
}

func testSnapshotFromReplicaThenReplicateFromPrimary(t *testing.T, start serverStarter) {
	f := newFailoverRig(t, start, [2]int{51, 52})
	// The rig snapshotted the (empty) table from the primary; this stream
	// starts over from the replica.
	stream := f.stream + "r"
	f.forgetStream(stream)
	f.write(f.primaryDB, 1, 200)
	f.replica.WaitCaughtUp(t, f.primary)
	primarySrc := f.src
	f.src = f.sourceAt(f.replica)
	done := make(chan struct{})
	go func() { defer close(done); f.write(f.primaryDB, 201, 320) }() // during the snapshot
	f.snapshot(stream, "")
	<-done
	f.write(f.primaryDB, 321, 400)
	f.src = primarySrc
	f.stream = stream
	o := f.options()
	o.Source = f.sourceAt(f.primary)
	o.Log = slog.New(slog.NewTextHandler(f.logs, nil))
	run := f.rig.start(o)
	f.waitTargetEquals(f.primaryDB, 90*time.Second)
	select {
	case err := <-run.done:
		t.Fatalf("replicate ended: %v\nlog:\n%s", err, f.logs.String())
	default:
	}
	if !strings.Contains(f.logs.String(), "by GTID") {
		t.Errorf("the log does not say replicate continued on the primary by GTID (%d bytes):\n%s", len(f.logs.String()), f.logs.String())
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
}
