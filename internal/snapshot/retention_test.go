package snapshot

import (
	"testing"
	"time"
)

func TestCopyRetentionNeeded(t *testing.T) {
	for _, c := range []struct {
		bytes, rate int64
		retention   time.Duration
		need        time.Duration
		ok          bool
	}{
		{3600 << 20, 1 << 20, 3 * time.Hour, 2 * time.Hour, true},     // 1 h of copy + 1 h margin
		{3600 << 20, 1 << 20, 90 * time.Minute, 2 * time.Hour, false}, // too short
		{3600 << 20, 1 << 20, 0, 2 * time.Hour, true},                 // never purged
		{0, 1 << 20, time.Hour, time.Hour, true},                      // an empty scope needs the margin
	} {
		need, ok := copyRetentionNeeded(c.bytes, c.rate, c.retention)
		if need != c.need || ok != c.ok {
			t.Errorf("copyRetentionNeeded(%d, %d, %v) = %v, %v; want %v, %v", c.bytes, c.rate, c.retention, need, ok, c.need, c.ok)
		}
	}
	if got := ceilHour(61 * time.Minute); got != 2*time.Hour {
		t.Errorf("ceilHour(61m) = %v", got)
	}
}
