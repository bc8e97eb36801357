package mysql

import "testing"

func TestRowAliasSince(t *testing.T) {
	for v, want := range map[string]bool{
		"8.0.19": false, "8.0.20": true, "8.0.35-log": true, "8.4.3": true, "9.7.4": true,
		"5.7.44-log": false, "10": true, "8": false,
	} {
		if got := rowAliasSince(v); got != want {
			t.Errorf("rowAliasSince(%q) = %v, want %v", v, got, want)
		}
	}
}
