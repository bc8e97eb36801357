package ddl

import (
	"testing"

	"github.com/sluice-db/sluice/internal/typemap"
)

// TestIntervalDefault: expiry-style defaults as MariaDB and MySQL print them
// in information_schema (found by the Nextcloud scenario's quirks table: the
// default was dropped, so an application's INSERT after the cut-over failed
// on the NOT NULL column).
func TestIntervalDefault(t *testing.T) {
	for _, c := range []struct {
		d    string
		kind typemap.Kind
		want string
	}{
		{"current_timestamp() + interval 1 day", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 days')"},
		{"(now() + interval 1 day)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 days')"},
		{"current_timestamp(6) - interval 30 minute", typemap.KindTimestamp, "(CURRENT_TIMESTAMP - interval '30 minutes')"},
		{"(now() + interval 2 quarter)", typemap.KindTimestamp, "(CURRENT_TIMESTAMP + interval '6 months')"},
		{"curdate() + interval 2 week", typemap.KindDate, "(CURRENT_DATE + interval '14 days')::date"},
		{"(curdate() + interval 1 year)", typemap.KindDate, "(CURRENT_DATE + interval '1 years')::date"},
		{"date_add(current_timestamp(), interval 1 hour)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 hours')"},
		// Not translated (the default is dropped with its reason, as before).
		{"curdate() + interval 1 hour", typemap.KindDate, ""},
		{"current_timestamp() + interval 1 day", typemap.KindText, ""},
		{"current_timestamp() + interval '1:30' hour_minute", typemap.KindDateTime, ""},
		{"current_timestamp() + interval a day", typemap.KindDateTime, ""},
		{"utc_timestamp() + interval 1 day", typemap.KindDateTime, ""},
	} {
		got, ok := intervalDefault(c.d, c.kind)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s (%s): %q %v, want %q", c.d, c.kind, got, ok, c.want)
		}
	}
}
