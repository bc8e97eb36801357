package cutover_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCutoverCloudUser: cutover as a user with only a managed service's
// privileges (testenv.CloudUser) is refused, exit 2, naming the grant on the
// source's sluice database (where it records the boundary for the way
// back), before anything is armed; with that grant (which a managed
// service allows) it switches, verify included; --lock (RELOAD) is refused.
func TestCutoverCloudUser(t *testing.T) { testenv.Flavors(t, testCutoverCloudUser) }

func testCutoverCloudUser(t *testing.T, env *testenv.Env) {
	f := migrated(t, env, "cut_cloud")
	f.sourceExecutes("INSERT INTO acct (name, balance) VALUES ('late1', 1)")
	admin := env.MySQL(t, f.db)
	global, extra := env.CloudGrants()
	user, cloud := env.CloudUser(t, admin, f.db, global, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"cutover", "--source", cloud, "--target", env.TargetURL(), "--stream", f.stream, "--quiet-for", "1s", "--log-level", "warn"}
	code, out, errOut := runCLI(ctx, args...)
	fix := "GRANT SELECT, INSERT, DELETE, CREATE, ALTER ON `sluice`.* TO '" + user + "'"
	if code != 2 || !strings.Contains(errOut, fix) {
		t.Fatalf("cutover without privileges on the source's sluice database: want exit 2 naming %q, got %d\n%s\n%s", fix, code, out, errOut)
	}
	f.nothingLeft(t)
	if _, err := admin.Exec("GRANT SELECT, INSERT, DELETE, CREATE, ALTER ON `sluice`.* TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	// --lock needs RELOAD, which no managed service grants.
	code, out, errOut = runCLI(ctx, append(args, "--lock")...)
	if code != 2 || !strings.Contains(errOut, "run without --lock") || !strings.Contains(errOut, "lacks RELOAD") {
		t.Fatalf("cutover --lock without RELOAD: want exit 2 naming the way without --lock, got %d\n%s\n%s", code, out, errOut)
	}
	f.nothingLeft(t)
	if code, out, errOut := runCLI(ctx, args...); code != 0 || !strings.Contains(out, "switched") {
		t.Fatalf("cutover as a cloud user with the grant: exit %d\n%s\n%s", code, out, errOut)
	}
	var recs int
	if err := admin.QueryRow("SELECT count(*) FROM sluice.cutover WHERE stream = ?", f.stream).Scan(&recs); err != nil || recs != 1 {
		t.Errorf("the source's boundary records of %s: %d (%v), want 1", f.stream, recs, err)
	}
}
