package mysql

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

func TestNarrowTimestamp(t *testing.T) {
	for v, want := range map[string]bool{
		"10.11.19-MariaDB-0+deb12u1-log": true, "11.4.2-MariaDB": true, "11.5.1-MariaDB": false,
		"11.8.9-MariaDB-0+deb13u1 from Debian-log": false, "12.0.1-MariaDB": false, "9.7.0": true, "8.0.36-log": true,
	} {
		if got := NarrowTimestamp(v); got != want {
			t.Errorf("NarrowTimestamp(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestCheckTimestamp(t *testing.T) {
	id := schema.TableID{Database: "d", Name: "t"}
	for _, v := range []string{"2038-01-19 03:14:07", "2038-01-19 03:14:07.999999", "0000-00-00 00:00:00", "1970-01-01 00:00:00.5", "2000-01-01 00:00:00"} {
		if err := CheckTimestamp(id, "ts", v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for _, v := range []string{"2038-01-19 03:14:08", "2040-01-01 00:00:00.5", "2106-02-07 06:28:15.999999"} {
		err := CheckTimestamp(id, "ts", v)
		if err == nil || !strings.Contains(err.Error(), "column ts: TIMESTAMP "+v) || exitcode.Of(err) != exitcode.Config {
			t.Errorf("%s: %v (exit %d), want exit 2 naming the column and value", v, err, exitcode.Of(err))
		}
	}
	enc := []encoder{encoderOf(schema.Column{Name: "ts", DataType: "timestamp"}, false)}
	narrowTimestamps(&schema.Table{TableID: id, Columns: []schema.Column{{Name: "ts", DataType: "timestamp"}}}, enc)
	if _, err := enc[0](nil, "2040-01-01 00:00:00"); err == nil {
		t.Error("the wrapped encoder wrote a TIMESTAMP after 2038")
	}
	if b, err := enc[0](nil, "2001-02-03 04:05:06"); err != nil || string(b) != "'2001-02-03 04:05:06'" {
		t.Errorf("the wrapped encoder: %s, %v", b, err)
	}
}
