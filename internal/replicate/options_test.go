package replicate

import (
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"runtime"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"256MB": 256 << 20, "1GiB": 1 << 30, "1gb": 1 << 30, "512m": 512 << 20, "1073741824": 1 << 30,
		" 64 MiB ": 64 << 20, "1.5GB": 3 << 29, "100k": 100 << 10,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MB", "12XB", "-1MB", "1e3"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): no error", bad)
		}
	}
	if FormatSize(256<<20) != "256MiB" || FormatSize(1<<30) != "1GiB" || FormatSize(1000) != "1000B" {
		t.Error("FormatSize")
	}
	for n, want := range map[int64]string{1000: "1000 B", 676000: "660.2 KiB", 3 << 30: "3.0 GiB", 1<<40 + 1<<39: "1.5 TiB"} {
		if got := HumanSize(n); got != want {
			t.Errorf("HumanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParsePosition(t *testing.T) {
	p, err := ParsePosition("mysql-bin.000042:1337")
	if err != nil || p.File != "mysql-bin.000042" || p.Pos != 1337 {
		t.Errorf("%+v %v", p, err)
	}
	for _, bad := range []string{"mysql-bin.000042", ":4", "f:x", "f:3", "f:99999999999"} {
		if _, err := ParsePosition(bad); err == nil {
			t.Errorf("ParsePosition(%q): no error", bad)
		}
	}
}

func TestOptionsAreCheckedTogether(t *testing.T) {
	_, err := Options{StartGTID: "0-1-1", StartPosition: "f", ZeroDate: "never", MaxTxnMemory: 1 << 20}.withDefaults()
	if exitcode.Of(err) != exitcode.Config {
		t.Fatalf("exit code %d: %v", exitcode.Of(err), err)
	}
	for _, want := range []string{"--start-gtid and --start-position", "--zero-date", "--max-txn-memory 1MiB", "--start-position \"f\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

// TestMySQLTargetDefaultWorkers: without --workers a MySQL target gets the
// MySQL sink's default, one session fewer than the pipeline's on a small
// machine; an explicit count and other targets are left alone.
func TestMySQLTargetDefaultWorkers(t *testing.T) {
	o, err := Options{Target: mysink.NewEngine(config.MySQL{}, "")}.withDefaults()
	if err != nil || o.Workers != mysink.DefaultWorkers() {
		t.Fatalf("MySQL target: %d workers (%v), want %d", o.Workers, err, mysink.DefaultWorkers())
	}
	if w := mysink.DefaultWorkers(); w < 3 || w != max(3, 2*runtime.NumCPU()-1) {
		t.Errorf("mysink.DefaultWorkers() = %d", w)
	}
	if o, err := (Options{Target: mysink.NewEngine(config.MySQL{}, ""), Workers: 7}).withDefaults(); err != nil || o.Workers != 7 {
		t.Errorf("--workers 7 into MySQL: %d (%v)", o.Workers, err)
	}
	if o, err := (Options{Target: pgsink.NewEngine(config.Postgres{})}).withDefaults(); err != nil || o.Workers != 0 {
		t.Errorf("PostgreSQL target: %d workers (%v), want 0 (the pipeline's default)", o.Workers, err)
	}
}

func TestReachedAndFileNumber(t *testing.T) {
	a := binlogpos.Position{File: "mysql-bin.000010", Pos: 500}
	for _, c := range []struct {
		applied, target binlogpos.Position
		want            bool
	}{
		{a, binlogpos.Position{File: "mysql-bin.000010", Pos: 500}, true},
		{a, binlogpos.Position{File: "mysql-bin.000010", Pos: 501}, false},
		{a, binlogpos.Position{File: "mysql-bin.000009", Pos: 9999}, true},
		{binlogpos.Position{GTIDSet: "0-1-5"}, a, false},
	} {
		if got := reached(c.applied, c.target); got != c.want {
			t.Errorf("reached(%s, %s) = %v", c.applied, c.target, got)
		}
	}
	if fileNumber(binlogpos.Position{File: "host.example-bin.000123"}) != 123 || fileNumber(binlogpos.Position{}) != 0 {
		t.Error("fileNumber")
	}
}
