package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestVerifyCountsPolicyValuesNow: the stream's policy counts grow with
// every write that carries a zero date (a row updated again counts again), so "equal except N by policy" from those counts said more values
// than the table has. verify now counts the values the policy changes at
// the time of the comparison (3 rows hold a zero date), and keeps the
// stream's counts as the history.
func TestVerifyCountsPolicyValuesNow(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_polnow")
	my := env.MySQL(t, db)
	if _, err := my.Exec("SET SESSION sql_mode = ''; CREATE TABLE z (id INT PRIMARY KEY, d DATE NULL, n INT NOT NULL); " +
		"INSERT INTO z VALUES (1, '0000-00-00', 0), (2, '2024-00-10', 0), (3, '0000-00-00', 0), (4, '0000-00-00', 0), (5, '2024-01-01', 0)"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("polnow")
	forgetStream(t, env, stream)
	args := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-level", "error"}
	if code, _, errOut := runCLI(context.Background(), append([]string{"snapshot"}, args...)...); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, errOut)
	}
	for i := 0; i < 10; i++ {
		if _, err := my.Exec("SET SESSION sql_mode = ''; UPDATE z SET n = n + 1 WHERE id <= 4"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := my.Exec("UPDATE z SET d = '2024-02-02' WHERE id = 4"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code, _, errOut := runCLI(ctx, append([]string{"replicate", "--until-caught-up"}, args...)...); code != 0 {
		t.Fatalf("replicate: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(context.Background(), append([]string{"verify", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	var vr struct {
		Tables []struct {
			Result        string
			PolicyChanges []struct {
				Column, Policy, Phase string
				Count                 int64
				Now                   *int64
			} `json:"policy_changes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &vr); err != nil || len(vr.Tables) != 1 {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	var recorded int64
	for _, pc := range vr.Tables[0].PolicyChanges {
		recorded += pc.Count
		if pc.Column != "d" || pc.Now == nil || *pc.Now != 3 {
			t.Errorf("policy change %+v (now %v): want column d with 3 values now", pc, pc.Now)
		}
	}
	// The snapshot's 4 plus what the updates carried (grouped apply
	// converts a backlog's net rows, so fewer than 4 × 10).
	if vr.Tables[0].Result != "equal" || recorded <= 4 {
		t.Errorf("verify: %s with %d values recorded by the stream, want equal and more than the snapshot's 4", vr.Tables[0].Result, recorded)
	}
	t.Logf("the stream recorded %d changed values; 3 now", recorded)
	code, out, _ = runCLI(context.Background(), append([]string{"verify"}, args...)...)
	if code != 0 || !strings.Contains(out, "equal except 3 by policy") || !strings.Contains(out, ", 3 now") {
		t.Errorf("verify text (exit %d), want \"equal except 3 by policy\" and the stream's counts with \", 3 now\":\n%s", code, out)
	}
}
