package replicate

import (
	"testing"
	"time"
)

func TestHeadroomOf(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	files := []string{"mysql-bin.000007", "mysql-bin.000008", "mysql-bin.000009"}
	for _, c := range []struct {
		name string
		file string
		at   time.Time
		want time.Duration
		ok   bool
	}{
		{"nothing applied yet", "", time.Time{}, 0, false},
		{"the checkpoint is in the newest file: the clock has not started", "mysql-bin.000009", now.Add(-5 * time.Hour), 24 * time.Hour, true},
		{"an older file: retention minus the applied transaction's age", "mysql-bin.000008", now.Add(-3 * time.Hour), 21 * time.Hour, true},
		{"further behind than the retention: negative", "mysql-bin.000007", now.Add(-30 * time.Hour), -6 * time.Hour, true},
	} {
		got, ok := headroomOf(24*time.Hour, files, c.file, c.at, now)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: headroomOf = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
