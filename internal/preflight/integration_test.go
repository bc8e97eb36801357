package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

func allNeeds() Needs {
	return Needs{Source: true, Binlog: true, Snapshot: true, ServerID: 4242, Target: true, TargetCreate: true}
}

func mustSource(t *testing.T, url string) config.MySQL {
	t.Helper()
	m, err := config.ParseSource(url)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustTarget(t *testing.T, url string) config.Target {
	t.Helper()
	p, err := config.ParseAnyTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSandboxPasses(t *testing.T) { testenv.Flavors(t, testSandboxPasses) }

func testSandboxPasses(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "pf_ok")
	rep := Run(context.Background(), mustSource(t, env.SourceURL(db)), mustTarget(t, env.TargetURL()), allNeeds())
	if err := rep.Err(); err != nil {
		t.Fatalf("the sandbox must pass pre-flight: %v", err)
	}
	if rep.Source.Flavor != string(env.Flavor()) || rep.Source.ServerID == 0 || !rep.Source.GTID {
		t.Errorf("source info: %+v", rep.Source)
	}
	if rep.Target.WALLevel != "logical" || !strings.HasPrefix(rep.Target.Version, "15") {
		t.Errorf("target info: %+v", rep.Target)
	}
}

func TestStatementBinlogFormat(t *testing.T) {
	admin := testenv.StartMariaDB(t, "--binlog-format=STATEMENT")
	env := testenv.Get(t)
	rep := Run(context.Background(), mustSource(t, admin), mustTarget(t, env.TargetURL()), allNeeds())
	err := rep.Err()
	if err == nil {
		t.Fatal("binlog_format=STATEMENT must fail pre-flight")
	}
	msg := err.Error()
	for _, want := range []string{"binlog_format is STATEMENT, sluice needs ROW", "SET GLOBAL binlog_format = 'ROW'"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, ":root@") || strings.Contains(msg, "root:root") {
		t.Errorf("message shows credentials:\n%s", msg)
	}
}

func TestMissingPrivilegesAndWrongPassword(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "pf_priv")
	admin := env.MySQL(t, db)
	user := testenv.UniqueName("pfu")
	if len(user) > 32 {
		user = user[:32]
	}
	if _, err := admin.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER '" + user + "'@'%'") })

	src := mustSource(t, env.SourceURL(db))
	src.User, src.Password, src.Database = user, "pw", ""
	rep := Run(context.Background(), src, mustTarget(t, env.TargetURL()), allNeeds())
	msg := rep.Err().Error()
	for _, want := range []string{"lacks the SELECT privilege", "GRANT SELECT ON *.* TO '" + user + "'",
		"lacks REPLICATION SLAVE", "lacks REPLICATION CLIENT"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if len(rep.Warnings()) == 0 || !strings.Contains(rep.Warnings()[0].Cause, "RELOAD") {
		t.Errorf("missing RELOAD must be a warning: %+v", rep.Warnings())
	}

	src.Password = "wrong-secret"
	rep = Run(context.Background(), src, mustTarget(t, env.TargetURL()), allNeeds())
	msg = rep.Err().Error()
	if !strings.Contains(msg, "access denied for user") || strings.Contains(msg, "wrong-secret") {
		t.Errorf("wrong password: %s", msg)
	}
}
