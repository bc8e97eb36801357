package alter

import (
	"testing"
	"time"
)

// TestReportLocks: a waiting READ lock blocks writes only while held, a
// waiting WRITE lock while it waits too, and the summary names each lock
// with its durations and their total.
func TestReportLocks(t *testing.T) {
	ms := time.Millisecond
	rep := &Report{Locks: []Lock{
		{Step: stepChecksum, Statement: "LOCK TABLES t READ", Waited: 300 * ms, Held: 518 * ms, Granted: true},
		{Step: stepSwap, Statement: "LOCK TABLES t WRITE, t_new WRITE", Waited: 1000 * ms, QueuesWriters: true},
		{Step: stepSwap, Statement: "LOCK TABLES t WRITE, t_new WRITE", Waited: 5 * ms, Held: 157 * ms, Granted: true, QueuesWriters: true},
	}}
	wants := []time.Duration{518 * ms, 1000 * ms, 162 * ms}
	for i, l := range rep.Locks {
		if l.Blocked() != wants[i] {
			t.Errorf("%s: blocked %s, want %s", l, l.Blocked(), wants[i])
		}
	}
	if rep.WritesBlocked() != 1680*ms {
		t.Errorf("writes blocked %s in all, want 1.68s", rep.WritesBlocked())
	}
	want := "table locks: checksum point LOCK TABLES t READ: waited 300ms, held 518ms (writes blocked 518ms); " +
		"swap LOCK TABLES t WRITE, t_new WRITE: not granted after 1s (writes blocked 1s); " +
		"swap LOCK TABLES t WRITE, t_new WRITE: waited 5ms, held 157ms (writes blocked 162ms); writes blocked 1.68s in all"
	if got := rep.LockSummary(); got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	instant := Lock{Step: stepInstant, Statement: "ALTER TABLE t … ALGORITHM=INSTANT", Held: 35 * ms, Granted: true, Unsplit: true, QueuesWriters: true}
	if got, want := instant.String(), "instant alter ALTER TABLE t … ALGORITHM=INSTANT: waited for and held 35ms (writes blocked 35ms)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if (&Report{}).LockSummary() != "" {
		t.Error("a summary without locks")
	}
	for _, c := range []struct {
		rep  Report
		want string
	}{
		{Report{}, ""},
		{Report{KeepWriteRate: 0.9}, "write rate without the copy: not measured (the copy was not paced)"},
		{Report{KeepWriteRate: 0.9, WriteRateMeasured: true}, "write rate without the copy: 0 row changes/s (the table was idle: the copy was not paced)"},
		{Report{KeepWriteRate: 0.9, WriteRateMeasured: true, WriteRate: 1312.4}, "write rate without the copy: 1312 row changes/s (the copy paced to keep 90% of it)"},
	} {
		if got := c.rep.PacingSummary(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.rep, got, c.want)
		}
	}
}
