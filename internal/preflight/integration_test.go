package preflight_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/target"
	_ "github.com/sluice-db/sluice/internal/target/all"
	"github.com/sluice-db/sluice/internal/testenv"
)

func allNeeds() preflight.Needs {
	return preflight.Needs{Source: true, Binlog: true, Snapshot: true, ServerID: 4242, Target: true, TargetCreate: true}
}

func mustSource(t *testing.T, url string) config.MySQL {
	t.Helper()
	m, err := config.ParseSource(url)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mustTarget opens the target's engine, whose check pre-flight runs.
func mustTarget(t *testing.T, url string) preflight.TargetChecker {
	t.Helper()
	e, err := target.Open(url, target.Options{Tables: true})
	if err != nil {
		t.Fatal(err)
	}
	return e.(preflight.TargetChecker)
}

func TestSandboxPasses(t *testing.T) { testenv.Flavors(t, testSandboxPasses) }

func testSandboxPasses(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "pf_ok")
	rep := preflight.Check(context.Background(), mustSource(t, env.SourceURL(db)), mustTarget(t, env.TargetURL()), allNeeds())
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
	rep := preflight.Check(context.Background(), mustSource(t, admin), mustTarget(t, env.TargetURL()), allNeeds())
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
	rep := preflight.Check(context.Background(), src, mustTarget(t, env.TargetURL()), allNeeds())
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
	rep = preflight.Check(context.Background(), src, mustTarget(t, env.TargetURL()), allNeeds())
	msg = rep.Err().Error()
	if !strings.Contains(msg, "access denied for user") || strings.Contains(msg, "wrong-secret") {
		t.Errorf("wrong password: %s", msg)
	}
}

// TestTargetReplicaRolePrivilege: sessions that write replicated rows into
// PostgreSQL set session_replication_role = replica (the target's triggers
// must not fire on them). A user without the privilege is refused by
// pre-flight with exit code 2 and the exact GRANT; a read-only verify does
// not need it; once granted, pre-flight passes.
func TestTargetReplicaRolePrivilege(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	role := testenv.UniqueName("pfrr")
	if _, err := admin.Exec(ctx, `CREATE ROLE "`+role+`" LOGIN NOSUPERUSER PASSWORD 'pw'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), `REVOKE SET ON PARAMETER session_replication_role FROM "`+role+`"`)
		_, _ = admin.Exec(context.Background(), `DROP ROLE "`+role+`"`)
		_ = admin.Close(context.Background())
	})
	sandbox, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	dst := mustTarget(t, "postgres://"+role+":pw@"+sandbox.Addr()+"/"+sandbox.Database)
	needs := preflight.Needs{Target: true}
	err = preflight.Check(ctx, config.MySQL{}, dst, needs).Err()
	fix := `GRANT SET ON PARAMETER session_replication_role TO "` + role + `"`
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), fix) ||
		!strings.Contains(err.Error(), "session_replication_role = replica") {
		t.Fatalf("want a refusal with exit code 2 naming %q, got %v", fix, err)
	}
	if strings.Contains(err.Error(), "pw@") {
		t.Errorf("the refusal shows the password: %v", err)
	}
	if err := preflight.Check(ctx, config.MySQL{}, dst, preflight.Needs{Target: true, TargetReadOnly: true}).Err(); err != nil {
		t.Errorf("a read-only command does not set the role: %v", err)
	}
	if _, err := admin.Exec(ctx, fix); err != nil {
		t.Fatal(err)
	}
	if err := preflight.Check(ctx, config.MySQL{}, dst, needs).Err(); err != nil {
		t.Errorf("after %s: %v", fix, err)
	}
}
