package alter

import "testing"

// TestReasonKind: a pause is logged again when its cause changes, not when
// only the numbers in its reason move.
func TestReasonKind(t *testing.T) {
	lag2 := "throttled: replica 127.0.0.1:3306 lag 2s > --max-lag 1s"
	lag3 := "throttled: replica 127.0.0.1:3306 lag 3s > --max-lag 1s"
	stopped := "throttled: replica 127.0.0.1:3306 is not replicating: SQL thread no (counts as over --max-lag)"
	load := "throttled: Threads_running=57 > 50"
	if reasonKind(lag2) != reasonKind(lag3) {
		t.Errorf("%q and %q are one kind of reason", lag2, lag3)
	}
	for _, other := range []string{stopped, load, ""} {
		if reasonKind(lag2) == reasonKind(other) {
			t.Errorf("%q and %q are different reasons", lag2, other)
		}
	}
}
