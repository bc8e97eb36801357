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
		// Compound units (MySQL's get_interval_info: fields fill from the
		// right, a leading minus negates the whole, microseconds are a
		// fraction's digits).
		{"current_timestamp() + interval '1:30' hour_minute", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 hours 30 minutes')"},
		{"(now() + interval '1 2:3:4' day_second)", typemap.KindTimestamp, "(CURRENT_TIMESTAMP + interval '1 days 2 hours 3 minutes 4 seconds')"},
		{"(now() + interval '3:4' day_second)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '3 minutes 4 seconds')"},
		{"(now() - interval '-1:30' hour_minute)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 hours 30 minutes')"},
		{"(curdate() + interval '1-2' year_month)", typemap.KindDate, "(CURRENT_DATE + interval '1 years 2 months')::date"},
		{"(now(6) - interval '1.5' second_microsecond)", typemap.KindDateTime, "(LOCALTIMESTAMP - interval '1 seconds 500000 microseconds')"},
		{"(now(6) + interval '5' second_microsecond)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '500000 microseconds')"},
		{"(now(6) + interval '1 1:1:1.000001' day_microsecond)", typemap.KindDateTime, "(LOCALTIMESTAMP + interval '1 days 1 hours 1 minutes 1 seconds 1 microseconds')"},
		{"(curdate() + interval '1 2' day_hour)", typemap.KindDate, ""},
		{"(now() + interval '1:2:3' hour_minute)", typemap.KindDateTime, ""},
		{"(now() + interval '1.1234567' second_microsecond)", typemap.KindDateTime, ""},
		{"(now() + interval '1,5' hour_minute)", typemap.KindDateTime, ""},
		{"(now() + interval '5' day)", typemap.KindDateTime, ""},
		{"current_timestamp() + interval a day", typemap.KindDateTime, ""},
		{"utc_timestamp() + interval 1 day", typemap.KindDateTime, ""},
	} {
		got, ok := intervalDefault(c.d, c.kind)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s (%s): %q %v, want %q", c.d, c.kind, got, ok, c.want)
		}
	}
}
