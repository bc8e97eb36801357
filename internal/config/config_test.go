package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseSource(t *testing.T) {
	m, err := ParseSource("mysql://app:s3cret@db.local:3307/shop?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	if m.Host != "db.local" || m.Port != 3307 || m.User != "app" || m.Password != "s3cret" || m.Database != "shop" {
		t.Fatalf("parsed %+v", m)
	}
	if got := m.Redacted(); got != "mysql://app:xxxxx@db.local:3307/shop" {
		t.Fatalf("Redacted() = %q", got)
	}
	dsn := m.DSN()
	for _, want := range []string{"app:s3cret@tcp(db.local:3307)/shop", "time_zone=%27%2B00%3A00%27", "tls=false"} {
		if !strings.Contains(dsn, want) {
			t.Errorf("DSN %q lacks %q", dsn, want)
		}
	}
	if m, _ := ParseSource("mariadb://u@h"); m.Port != 3306 || m.Database != "" {
		t.Fatalf("defaults: %+v", m)
	}
}

func TestParseErrorsNeverShowPassword(t *testing.T) {
	for _, in := range []string{
		"mysql://u:topsecret@h:notaport/db",
		"postgres://u:topsecret@h:x/db",
		"ftp://u:topsecret@h/db",
		"mysql://u:topsecret@h:3306/db\x7f",
	} {
		_, err1 := ParseSource(in)
		_, err2 := ParseTarget(in)
		for _, err := range []error{err1, err2} {
			if err == nil {
				t.Errorf("%q: want an error", in)
				continue
			}
			if strings.Contains(err.Error(), "topsecret") {
				t.Errorf("error shows the password: %v", err)
			}
		}
	}
	if _, err := ParseSource(""); err == nil || !strings.Contains(err.Error(), "SLUICE_SOURCE") {
		t.Errorf("empty source: %v", err)
	}
}

func TestParseTarget(t *testing.T) {
	p, err := ParseTarget("postgres://pg:pw@127.0.0.1:15432/app?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if p.Port != 15432 || p.Database != "app" || p.Redacted() != "postgres://pg:xxxxx@127.0.0.1:15432/app" {
		t.Fatalf("parsed %+v / %s", p, p.Redacted())
	}
	cs := p.ConnString()
	if !strings.Contains(cs, "sslmode=disable") || !strings.Contains(cs, "connect_timeout=10") {
		t.Fatalf("ConnString() = %q", cs)
	}
}

func TestParseMySQLTarget(t *testing.T) {
	m, err := ParseMySQLTarget("mysql://sl:pw@127.0.0.1:13308/replica?tls=true")
	if err != nil {
		t.Fatal(err)
	}
	if m.Database != "replica" || m.Port != 13308 || m.Redacted() != "mysql://sl:xxxxx@127.0.0.1:13308/replica" {
		t.Fatalf("mysql target parsed as %+v / %s", m, m.Redacted())
	}
	for in, want := range map[string]string{
		"mysql://sl:pw@127.0.0.1:13308/": "no database in the URL",
		"mysql://127.0.0.1:13308/db":     "no user in the URL",
		"oracle://a:b@h/db":              `URL scheme "oracle" is not supported`,
	} {
		_, err := ParseMySQLTarget(in)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), ":pw@") {
			t.Errorf("ParseMySQLTarget(%q) = %v, want an error with %q", in, err, want)
		}
	}
}

func TestLoadPrecedence(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "sluice.yaml")
	if err := os.WriteFile(file, []byte("source: mysql://file@h/db\ntarget: postgres://file@h/db\nworkers: 3\ninclude: [a.b, c.*]\nunknown-key: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	newFlags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.String("source", "", "")
		fs.String("target", "", "")
		fs.Int("workers", 2, "")
		fs.StringSlice("include", nil, "")
		fs.String("max-txn-memory", "256MB", "")
		return fs
	}

	fs := newFlags()
	k, unknown, err := Load(fs, file)
	if err != nil {
		t.Fatal(err)
	}
	if k.String("source") != "mysql://file@h/db" || k.Int("workers") != 3 || strings.Join(k.Strings("include"), ",") != "a.b,c.*" {
		t.Fatalf("file values not loaded: %v", k.All())
	}
	if k.String("max-txn-memory") != "256MB" {
		t.Fatalf("default lost: %v", k.All())
	}
	if len(unknown) != 1 || unknown[0] != "unknown-key" {
		t.Fatalf("unknown = %v", unknown)
	}

	t.Setenv("SLUICE_SOURCE", "mysql://env@h/db")
	t.Setenv("SLUICE_MAX_TXN_MEMORY", "1GB")
	t.Setenv("SLUICE_INCLUDE", "x.y,z.w")
	fs = newFlags()
	if err := fs.Parse([]string{"--target", "postgres://flag@h/db"}); err != nil {
		t.Fatal(err)
	}
	k, _, err = Load(fs, file)
	if err != nil {
		t.Fatal(err)
	}
	if k.String("source") != "mysql://env@h/db" {
		t.Errorf("env must beat file: source = %q", k.String("source"))
	}
	if k.String("target") != "postgres://flag@h/db" {
		t.Errorf("flag must beat file: target = %q", k.String("target"))
	}
	if k.String("max-txn-memory") != "1GB" {
		t.Errorf("env must beat default: %q", k.String("max-txn-memory"))
	}
	if got := strings.Join(k.Strings("include"), ","); got != "x.y,z.w" {
		t.Errorf("env list: %q", got)
	}

	fs = newFlags()
	if err := fs.Parse([]string{"--source", "mysql://flag@h/db"}); err != nil {
		t.Fatal(err)
	}
	k, _, _ = Load(fs, file)
	if k.String("source") != "mysql://flag@h/db" {
		t.Errorf("flag must beat env: %q", k.String("source"))
	}

	if _, _, err := Load(newFlags(), filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing config file must be an error")
	}
}

// TestLoadRefusesUnparsableValues: a value a flag's type cannot take, in
// the file or in a SLUICE_* variable, is an error naming where it came
// from, not a silent zero.
func TestLoadRefusesUnparsableValues(t *testing.T) {
	dir := t.TempDir()
	newFlags := func() *pflag.FlagSet {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.Int("workers", 2, "")
		fs.Duration("lock-wait-timeout", 0, "")
		fs.Bool("json", false, "")
		return fs
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("workers: four\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Load(newFlags(), bad); err == nil || !strings.Contains(err.Error(), `key "workers"`) ||
		!strings.Contains(err.Error(), `"four"`) {
		t.Errorf("file value: %v", err)
	}
	t.Setenv("SLUICE_WORKERS", "abc")
	t.Setenv("SLUICE_LOCK_WAIT_TIMEOUT", "10 parsecs")
	_, _, err := Load(newFlags(), "")
	if err == nil || !strings.Contains(err.Error(), "SLUICE_WORKERS") || !strings.Contains(err.Error(), "SLUICE_LOCK_WAIT_TIMEOUT") {
		t.Errorf("environment values: %v", err)
	}
	t.Setenv("SLUICE_WORKERS", "8")
	t.Setenv("SLUICE_LOCK_WAIT_TIMEOUT", "10s")
	t.Setenv("SLUICE_JSON", "true")
	if k, _, err := Load(newFlags(), ""); err != nil || k.Int("workers") != 8 {
		t.Errorf("valid values: %v, %v", k, err)
	}
}

func TestTLSFlagsOverrideURLParameters(t *testing.T) {
	src, err := ParseSource("mysql://u:p@127.0.0.1:3306/db?tls=false")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.ApplyTLSFlags("source", TLSFlags{Mode: "require", CA: "/ca.pem"}); err != nil {
		t.Fatal(err)
	}
	if src.Params.Get("tls") != "skip-verify" || src.Params.Get("ssl-ca") != "/ca.pem" {
		t.Errorf("source params %v", src.Params)
	}
	tgt, err := ParseTarget("postgres://u:p@127.0.0.1:5432/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	if err := tgt.ApplyTLSFlags(TLSFlags{Mode: "verify-full", CA: "/ca.pem", Cert: "/c.pem", Key: "/k.pem"}); err != nil {
		t.Fatal(err)
	}
	cs := tgt.ConnString()
	for _, want := range []string{"sslmode=verify-full", "sslrootcert=%2Fca.pem", "sslcert=%2Fc.pem", "sslkey=%2Fk.pem"} {
		if !strings.Contains(cs, want) {
			t.Errorf("target ConnString %q lacks %q", cs, want)
		}
	}
	my, err := ParseMySQLTarget("mysql://u:p@127.0.0.1:3306/replica")
	if err != nil {
		t.Fatal(err)
	}
	if err := my.ApplyTLSFlags("target", TLSFlags{Mode: "verify-ca"}); err != nil || my.Params.Get("tls") != "verify-ca" {
		t.Errorf("mysql target: %v, %v", my.Params, err)
	}
	if err := src.ApplyTLSFlags("source", TLSFlags{Mode: "sometimes"}); err == nil || !strings.Contains(err.Error(), "--source-ssl-mode") {
		t.Errorf("a bad mode: %v", err)
	}
}
