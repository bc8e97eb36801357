package cutover_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestCutoverIdentifiersLower: a stream migrated with --identifiers lower
// (MySQL `Acct` with `ID`, `Name` becomes acct with id, name) is cut over
// with the same option: the slot is armed on acct, the unique key check
// reads name, the sequence of id moves past the copied rows. Before, the
// arming looked for "Acct" on PostgreSQL and the sequence step for "ID".
// Cut over without the option, the stream is refused as another naming.
func TestCutoverIdentifiersLower(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cut_lower")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE `Acct` (`ID` BIGINT AUTO_INCREMENT PRIMARY KEY, `Name` VARCHAR(40) NOT NULL, UNIQUE KEY `UQ_Name` (`Name`)); " +
		"INSERT INTO `Acct` (`Name`) VALUES ('a'), ('b'), ('c')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("cutl")
	rev := cutover.DefaultReverseStream(stream)
	pg := env.PG(t)
	t.Cleanup(func() {
		ctx := context.Background()
		if conn, err := pg.Acquire(ctx); err == nil {
			_ = logical.Disarm(ctx, conn.Conn(), rev)
			conn.Release()
		}
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "cutover", "stream_naming"} {
			_, _ = pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
		_, _ = my.Exec("DELETE FROM sluice.cutover WHERE stream = ?", stream)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-level", "warn"}
	if code, out, errOut := runCLI(ctx, append([]string{"migrate", "--until-caught-up", "--identifiers", "lower"}, args...)...); code != 0 {
		t.Fatalf("migrate: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut := runCLI(ctx, append([]string{"cutover", "--quiet-for", "1s"}, args...)...)
	if code != exitcode.Config || !strings.Contains(errOut, "--identifiers") {
		t.Fatalf("cutover under another naming: exit %d, want %d naming --identifiers\n%s", code, exitcode.Config, errOut)
	}
	if code, out, errOut := runCLI(ctx, append([]string{"cutover", "--quiet-for", "1s", "--identifiers", "lower"}, args...)...); code != 0 {
		t.Fatalf("cutover: exit %d\n%s\n%s", code, out, errOut)
	}
	var id int64
	if err := pg.QueryRow(ctx, "INSERT INTO "+db+".acct (name) VALUES ('after') RETURNING id").Scan(&id); err != nil || id != 4 {
		t.Errorf("first insert after the cut-over: id %d (%v), want 4", id, err)
	}
}
