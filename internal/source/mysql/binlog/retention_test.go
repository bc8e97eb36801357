package binlog

import (
	"testing"
	"time"
)

func TestRetentionOf(t *testing.T) {
	for _, c := range []struct {
		seconds, days string
		want          time.Duration
	}{
		{"7200", "0.083333", 2 * time.Hour},               // MariaDB keeps both in step
		{"2592000", "", 30 * 24 * time.Hour},              // MySQL 8.4+: no expire_logs_days
		{"0", "0", 0},                                     // never purged
		{"", "", 0},                                       // a server with neither
		{"0", "2", 48 * time.Hour},                        // MySQL 5.7, MariaDB before 10.6
		{"0", "0.5", 12 * time.Hour},                      // MariaDB's fractional days
		{"86400", "7", 24 * time.Hour},                    // seconds win
		{"junk", "1", 24 * time.Hour},                     // unparsable seconds: days
		{"18446744073709551615", "", 2562047 * time.Hour}, // capped, not overflowed
	} {
		got := RetentionOf(c.seconds, c.days)
		if c.seconds == "18446744073709551615" {
			if got < c.want {
				t.Errorf("RetentionOf(%q, %q) = %v, want at least %v", c.seconds, c.days, got, c.want)
			}
			continue
		}
		if got != c.want {
			t.Errorf("RetentionOf(%q, %q) = %v, want %v", c.seconds, c.days, got, c.want)
		}
	}
}
