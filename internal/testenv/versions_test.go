package testenv

import (
	"strings"
	"testing"
)

func TestApplyVersions(t *testing.T) {
	base := envVars{mysqlAdmin: "mysql://root:root@127.0.0.1:13306/", source: "mysql://sluice:sluice@127.0.0.1:13306/sbtest",
		pgAdmin: "postgres://postgres:postgres@127.0.0.1:15432/sluice", target: "postgres://sluice:sluice@127.0.0.1:15432/sluice",
		mysqlTargetAdmin: "mysql://root:root@127.0.0.1:13308/"}
	urls := map[string]string{
		"SLUICE_TEST_MARIADB11_ADMIN":        "mysql://root:root@127.0.0.1:13318/",
		"SLUICE_TEST_MARIADB11_TARGET_ADMIN": "mysql://root:root@127.0.0.1:13319/",
		"SLUICE_TEST_PG18_ADMIN":             "postgres://postgres:postgres@127.0.0.1:15418/sluice",
	}
	lookup := func(n string) string { return urls[n] }

	t.Run("default pair unchanged", func(t *testing.T) {
		for _, n := range []string{"SLUICE_TEST_MARIADB", "SLUICE_TEST_PG", "SLUICE_TEST_MARIADB_TARGET"} {
			t.Setenv(n, "")
		}
		t.Setenv("SLUICE_TEST_PG", "15")
		got, err := applyVersions(base, lookup)
		if err != nil || got != base {
			t.Fatalf("applyVersions = %+v, %v; want %+v unchanged", got, err, base)
		}
	})
	t.Run("newer servers", func(t *testing.T) {
		t.Setenv("SLUICE_TEST_MARIADB", "11.8")
		t.Setenv("SLUICE_TEST_PG", "18")
		t.Setenv("SLUICE_TEST_MARIADB_TARGET", "11.8")
		got, err := applyVersions(base, lookup)
		if err != nil {
			t.Fatal(err)
		}
		want := envVars{mysqlAdmin: urls["SLUICE_TEST_MARIADB11_ADMIN"], pgAdmin: urls["SLUICE_TEST_PG18_ADMIN"],
			mysqlTargetAdmin: urls["SLUICE_TEST_MARIADB11_TARGET_ADMIN"]}
		if got != want {
			t.Fatalf("applyVersions = %+v, want %+v", got, want)
		}
		sw, err := sandboxSwitches()
		if err != nil || strings.Join(sw, " ") != "SLUICE_SANDBOX_MARIADB11=1 SLUICE_SANDBOX_PG18=1 SLUICE_SANDBOX_MARIADB11=1" {
			t.Fatalf("sandboxSwitches = %v, %v", sw, err)
		}
	})
	t.Run("misuse", func(t *testing.T) {
		t.Setenv("SLUICE_TEST_MARIADB", "")
		t.Setenv("SLUICE_TEST_MARIADB_TARGET", "")
		t.Setenv("SLUICE_TEST_PG", "16")
		if _, err := applyVersions(base, lookup); err == nil || !strings.Contains(err.Error(), "SLUICE_TEST_PG=16: want one of 15") {
			t.Fatalf("unknown version: err = %v", err)
		}
		t.Setenv("SLUICE_TEST_PG", "17")
		if _, err := applyVersions(base, lookup); err == nil || !strings.Contains(err.Error(), "SLUICE_SANDBOX_PG17=1 bash scripts/sandbox start") {
			t.Fatalf("missing URL: err = %v", err)
		}
	})
}
