package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// connFlags is a command's connection flags as internal/cli declares them.
func connFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("source", "", "")
	fs.String(PasswordFileFlag("source"), "", "")
	fs.String("target", "", "")
	fs.String(PasswordFileFlag("target"), "", "")
	fs.StringArray("replica", nil, "")
	fs.String(PasswordFileFlag("replica"), "", "")
	return fs
}

// clearEnv removes the caller's SLUICE_* settings (a shell with the
// sandbox's SLUICE_SOURCE) for the test; t.Setenv restores them.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, EnvPrefix) {
			t.Setenv(name, "")
			_ = os.Unsetenv(name)
		}
	}
}

func writeFile(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // umask
		t.Fatal(err)
	}
	return p
}

// TestPasswordsMergedIntoURLs: a URL without a password takes it from its
// password file or from SLUICE_<NAME>_PASSWORD (special characters intact),
// every URL of a repeatable flag included; the password setting itself is
// gone from the settings afterwards.
func TestPasswordsMergedIntoURLs(t *testing.T) {
	clearEnv(t)
	const srcPW, pgPW, replPW = "s3cret file", "p@ss:w/rd?#%", "mon-pw"
	pwFile := writeFile(t, "src.pw", srcPW+"\n", 0o600)
	t.Setenv("SLUICE_TARGET_PASSWORD", pgPW)
	t.Setenv("SLUICE_REPLICA_PASSWORD", replPW)
	fs := connFlags()
	if err := fs.Parse([]string{"--source", "mysql://app@db1:3306/shop?tls=false", "--source-password-file", pwFile,
		"--target", "postgres://pg@pg1:5432/shop?sslmode=disable",
		"--replica", "mysql://mon@db2:3306", "--replica", "mysql://mon@db3:3306"}); err != nil {
		t.Fatal(err)
	}
	k, unknown, err := Load(fs, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 0 {
		t.Errorf("unknown: %v", unknown)
	}
	src, err := ParseSource(k.String("source"))
	if err != nil || src.Password != srcPW || src.User != "app" || src.Database != "shop" || src.Params.Get("tls") != "false" {
		t.Fatalf("source %+v: %v", src, err)
	}
	if got := src.Config().Passwd; got != srcPW {
		t.Errorf("driver password %q", got)
	}
	tgt, err := ParseTarget(k.String("target"))
	if err != nil || tgt.Password != pgPW || tgt.User != "pg" || tgt.Params.Get("sslmode") != "disable" {
		t.Fatalf("target %+v: %v", tgt, err)
	}
	if !strings.Contains(tgt.ConnString(), "sslmode=disable") {
		t.Errorf("conn string lost its parameters: %s", tgt.Redacted())
	}
	if tgt.Redacted() != "postgres://pg:xxxxx@pg1:5432/shop" || src.Redacted() != "mysql://app:xxxxx@db1:3306/shop" {
		t.Errorf("redacted %s %s", tgt.Redacted(), src.Redacted())
	}
	reps := List(k, "replica")
	if len(reps) != 2 {
		t.Fatalf("replicas %d", len(reps))
	}
	for i, r := range reps {
		m, err := ParseSource(r)
		if err != nil || m.Password != replPW || m.Host != []string{"db2", "db3"}[i] {
			t.Errorf("replica %d: %+v %v", i, m, err)
		}
	}
	for _, key := range []string{"source-password", "target-password", "replica-password"} {
		if k.Exists(key) {
			t.Errorf("%s still in the settings", key)
		}
	}
}

// TestPasswordFileRefusals: a password file others may read, an empty or
// multi-line one, two passwords for one URL: each refused naming the fix,
// the password never in the message.
func TestPasswordFileRefusals(t *testing.T) {
	clearEnv(t)
	const pw = "Zq7-never-shown"
	for _, c := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"0644", []string{"--source", "mysql://u@h/db", "--source-password-file", writeFile(t, "a.pw", pw, 0o644)}, "",
			"chmod 600 "},
		{"0640", []string{"--source", "mysql://u@h/db", "--source-password-file", writeFile(t, "b.pw", pw, 0o640)}, "",
			"group or world access (mode 0640)"},
		{"empty", []string{"--source", "mysql://u@h/db", "--source-password-file", writeFile(t, "c.pw", "\n", 0o600)}, "", "is empty"},
		{"two lines", []string{"--source", "mysql://u@h/db", "--source-password-file", writeFile(t, "d.pw", pw+"\nmore\n", 0o600)}, "",
			"more than one line"},
		{"missing", []string{"--source", "mysql://u@h/db", "--source-password-file", "/nonexistent/sluice.pw"}, "", "no such file"},
		{"url and file", []string{"--source", "mysql://u:" + pw + "@h/db", "--source-password-file", writeFile(t, "e.pw", "other", 0o600)}, "",
			"the URL has a password and --source-password-file gives one too"},
		{"url and env", []string{"--target", "postgres://u:" + pw + "@h/db"}, "SLUICE_TARGET_PASSWORD", "SLUICE_TARGET_PASSWORD"},
		{"file and env", []string{"--target", "postgres://u@h/db", "--target-password-file", writeFile(t, "f.pw", pw, 0o600)}, "SLUICE_TARGET_PASSWORD",
			"are both set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv(c.env, pw)
			}
			fs := connFlags()
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			_, _, err := Load(fs, "")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error with %q, got %v", c.want, err)
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("the error shows the password: %v", err)
			}
		})
	}
}

// TestConfigFilePermissions: a config file holding a password (a URL with
// one, or a password setting) that others may read is refused; one without
// a password may be 0644; a 0600 one's password setting fills in the URL.
func TestConfigFilePermissions(t *testing.T) {
	clearEnv(t)
	pwFile := writeFile(t, "src.pw", "pw", 0o600)
	for _, c := range []struct {
		content string
		mode    os.FileMode
		refused bool
	}{
		{"source: mysql://u:pw@h/db\n", 0o644, true},
		{"replica: [mysql://u@h2/, mysql://u:pw@h3/]\n", 0o604, true},
		{"source: mysql://u@h/db\nsource-password: pw\n", 0o640, true},
		{"source: mysql://u@h/db\nsource-password-file: " + pwFile + "\nworkers: 4\n", 0o644, false},
		{"source: mysql://u:pw@h/db\n", 0o600, false},
		{"source: mysql://u:pw@h/db\n", 0o400, false},
	} {
		path := writeFile(t, "sluice.yaml", c.content, c.mode)
		k, _, err := Load(connFlags(), path)
		if c.refused {
			if err == nil || !strings.Contains(err.Error(), "chmod 600 "+path) || !strings.Contains(err.Error(), "config file") {
				t.Errorf("%q mode %04o: want a refusal naming chmod 600, got %v", c.content, c.mode, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q mode %04o: %v", c.content, c.mode, err)
			continue
		}
		if strings.Contains(c.content, "u:pw@") || strings.Contains(c.content, pwFile) {
			if m, err := ParseSource(k.String("source")); err != nil || m.Password != "pw" {
				t.Errorf("%q: %+v %v", c.content, m, err)
			}
		}
	}
	path := writeFile(t, "pw.yaml", "source: mysql://u@h/db\nsource-password: from-file\n", 0o600)
	k, unknown, err := Load(connFlags(), path)
	if err != nil || len(unknown) != 0 {
		t.Fatalf("%v %v", unknown, err)
	}
	if m, err := ParseSource(k.String("source")); err != nil || m.Password != "from-file" {
		t.Errorf("source-password in the file: %+v %v", m, err)
	}
	// A list of URLs in the file (stream's shards, alter's replicas): each
	// without a password takes the file's password setting.
	path = writeFile(t, "list.yaml", "replica: [mysql://m@r1:3306/, mysql://m@r2:3306/]\nreplica-password: rp\n", 0o600)
	k, _, err = Load(connFlags(), path)
	if err != nil {
		t.Fatal(err)
	}
	reps := List(k, "replica")
	if len(reps) != 2 {
		t.Fatalf("replicas %v", len(reps))
	}
	for i, r := range reps {
		if m, err := ParseSource(r); err != nil || m.Password != "rp" || m.Host != []string{"r1", "r2"}[i] {
			t.Errorf("replica %d from the file: %+v %v", i, m, err)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	got := RedactArgs([]string{"sluice", "replicate", "--source", "mysql://app:hunter2@db1:3306/shop",
		"--target=postgres://pg:hunter2@pg1/shop?sslmode=disable", "--workers", "4", "mysql://u:hunter2@h:x/db", "--stream", "s"})
	want := []string{"sluice", "replicate", "--source", "mysql://app:xxxxx@db1:3306/shop",
		"--target=postgres://pg:xxxxx@pg1/shop?sslmode=disable", "--workers", "4", "xxxxx", "--stream", "s"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("RedactArgs:\n got %q\nwant %q", got, want)
	}
}

func TestCommandLinePasswords(t *testing.T) {
	fs := connFlags()
	if err := fs.Parse([]string{"--source", "mysql://u:pw@h/db", "--target", "postgres://u@h/db",
		"--replica", "mysql://m@r1/", "--replica", "mysql://m:pw@r2/"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(CommandLinePasswords(fs), ","); got != "replica,source" && got != "source,replica" {
		t.Errorf("CommandLinePasswords = %q", got)
	}
}

// TestConnectionsPrintRedacted: a connection (or an options struct holding
// one) formatted, logged or marshalled by mistake shows xxxxx.
func TestConnectionsPrintRedacted(t *testing.T) {
	m, err := ParseSource("mysql://app:Hunter2pw@db1:3306/shop")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseTarget("postgres://pg:Hunter2pw@pg1:5432/shop")
	if err != nil {
		t.Fatal(err)
	}
	opts := struct {
		Source  MySQL
		Target  Postgres
		Replica *MySQL
	}{m, p, &m}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("x", "source", m, "target", p)
	js, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fmt.Sprintf("%v %+v %s %#v", m, m, m, m), fmt.Sprintf("%v %+v %s %#v", p, p, p, p),
		fmt.Sprintf("%v %+v %#v", opts, opts, opts), logged.String(), string(js)} {
		if strings.Contains(out, "Hunter2pw") || !strings.Contains(out, "xxxxx") {
			t.Errorf("printed: %s", out)
		}
	}
}
