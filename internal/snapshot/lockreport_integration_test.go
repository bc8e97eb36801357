package snapshot

import (
	"bytes"
	"context"
	"strings"
	"testing"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReportNamesTheLockUsed: the report's "consistent read" line names the
// lock the method actually held on the source (it said "global read lock"
// for every method, the tables' read lock and no lock at all included).
func TestReportNamesTheLockUsed(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		cases := map[mysnap.Method]string{
			mysnap.MethodAuto:       "table-lock, 2 sessions, read lock of the tables in scope (LOCK TABLES … READ) held ",
			mysnap.MethodTableLock:  "table-lock, 2 sessions, read lock of the tables in scope (LOCK TABLES … READ) held ",
			mysnap.MethodGlobalLock: "global-read-lock, 2 sessions, global read lock (FLUSH TABLES WITH READ LOCK) held ",
		}
		if !env.IsMySQL() {
			cases[mysnap.MethodLockFree] = "lock-free, 2 sessions, no lock\n"
		}
		for method, want := range cases {
			t.Run(string(method), func(t *testing.T) {
				db := env.NewDatabase(t, "snap_lockrep")
				mustExec(t, env.MySQL(t, db), "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1), (2), (3)")
				opts := testOptions(t, env, db)
				opts.Method = method
				rep, err := Run(context.Background(), opts)
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := rep.WriteText(&out); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(out.String(), "consistent read: "+want) {
					t.Errorf("method %s: the report does not say %q:\n%s", method, want, out.String())
				}
				if method == mysnap.MethodLockFree && strings.Contains(out.String(), "held") {
					t.Errorf("a lock-free read reports a lock held:\n%s", out.String())
				}
			})
		}
	})
}
