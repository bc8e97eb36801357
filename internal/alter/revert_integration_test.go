package alter

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// waitWindowOpen waits until the swap of a --revert-window run is done
// (t has the new layout, t_old exists, the window's state is open).
func waitWindowOpen(t *testing.T, db *sql.DB, name, newColumn string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("the --revert-window run ended before its window was open: %v", err)
		default:
		}
		var n int
		_ = db.QueryRow(`SELECT (SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't_old')
			+ (SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND COLUMN_NAME = ?)
			+ (SELECT COUNT(*) FROM sluice.alter_windows WHERE db = ? AND state = 'open')`, name, name, newColumn, name).Scan(&n)
		if newColumn == "" {
			n++
		}
		if n == 3 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the revert window did not open within 120s")
}

// checkReverted checks t is back in the old layout, its untouched column
// c carried (seeded as id % 13, never written by the load), and nothing
// of the window is left.
func checkReverted(t *testing.T, db *sql.DB, name, gone string) {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND COLUMN_NAME = ?`, name, gone).Scan(&n); err != nil || n != 0 {
		t.Errorf("after the revert t still has column %s (%d, %v)", gone, n, err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN ('t_old', '_t_reverted', 't_new', '_t_old')`, name).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d tables of the window left (%v)", n, err)
	}
	var state string
	if err := db.QueryRow("SELECT state FROM sluice.alter_windows WHERE db = ?", name).Scan(&state); err != nil || state != windowReverted {
		t.Errorf("window state %q (%v), want reverted", state, err)
	}
	// Seeded rows keep c, also when the change dropped it: the apply
	// updates the old table's rows in place.
	var wrong int
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE id <= ? AND NOT (c <=> id % 13)", seedRows).Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("%d seeded rows lost their value of c (%v)", wrong, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE id > ? AND id < ? AND c IS NOT NULL", seedRows+500, 1<<40).Scan(&wrong); err != nil {
		t.Error(err)
	}
	t.Logf("rows above the seed with a value of c (moved seed rows keep theirs): %d", wrong)
}

// TestAlterRevertWindow alters t under four writers with a revert window,
// lets them write to the new layout, reverts, and compares every row with
// the writers' model: the writes made after the first swap are in the old
// table that is t again, with 0 client errors. Two changes: a column and an
// index added (the column dropped on the way back), and a nullable column
// dropped (kept in the old table's rows that existed).
func TestAlterRevertWindow(t *testing.T) {
	cases := []struct {
		name, alter, gone string
		kept              bool // stop the writers and check the kept old table first
	}{
		{"add", "ADD COLUMN d INT NOT NULL DEFAULT 5, ADD INDEX ib (b)", "d", false},
		{"drop", "DROP COLUMN c", "", false},
		{"kept", "ADD COLUMN d INT, MODIFY a SMALLINT NOT NULL DEFAULT 0", "d", true},
	}
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				name := env.NewDatabase(t, "alter_revert")
				db := env.MySQL(t, name)
				rows := seed(t, db, baseTable)
				l := startLoad(t, db, rows, 4)
				o := alterOptions(t, env, name, tc.alter)
				o.RevertWindow, o.AllowDropColumn = 10*time.Minute, true
				done := make(chan error, 1)
				go func() { _, err := Run(context.Background(), o); done <- err }()
				waitWindowOpen(t, db, name, tc.gone, done)
				swapPos := windowPos(t, db, name)
				time.Sleep(2 * time.Second) // writes to the new layout, kept in the old one
				if tc.kept {
					// The process keeping the window has every write in t_old
					// (the writers stopped: the other cases revert under them),
					// and has moved the position it is replayed from.
					l.finish()
					waitSameRows(t, db, "t", "t_old")
					l.table = "t_old"
					l.compare(db)
					l.table = "t"
					time.Sleep(checkpointEvery + time.Second)
					if windowPos(t, db, name) == swapPos {
						t.Errorf("the window's replay position is still the swap's %s after %s", swapPos, checkpointEvery+time.Second)
					}
				}
				t.Logf("replayed from the swap's position: %v", windowPos(t, db, name) == swapPos)
				ro := alterOptions(t, env, name, "")
				ro.Revert = true
				start := time.Now()
				rep, err := Run(context.Background(), ro)
				if err != nil {
					l.finish()
					t.Fatalf("revert: %v", err)
				}
				if err := <-done; err != nil {
					t.Errorf("the window's run after the hand-over: %v", err)
				}
				time.Sleep(300 * time.Millisecond)
				if !tc.kept {
					l.finish()
				}
				t.Logf("revert took %s: %d keys applied, writes blocked %s at the swap back", time.Since(start).Round(time.Millisecond), rep.Keys, rep.CutoverLock)
				if rep.CutoverLock > 2*time.Second || (rep.Keys == 0 && !tc.kept) {
					t.Errorf("revert: writes blocked %s, %d keys applied", rep.CutoverLock, rep.Keys)
				}
				l.compare(db)
				gone := tc.gone
				if gone == "" {
					gone = "none"
				}
				checkReverted(t, db, name, gone)
				// Reverted already: refused, exit 2.
				if _, err := Run(context.Background(), ro); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "already reverted") {
					t.Errorf("second revert: want exit 2 (already reverted), got %v", err)
				}
			})
		}
	})
}

// TestAlterRevertKill9Resume kills the sluice binary with SIGKILL in the
// middle of its revert window under a write load, resumes the window with
// the same command, reverts through the binary and compares every row.
func TestAlterRevertKill9Resume(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		bin := testenv.SluiceBinary(t)
		name := env.NewDatabase(t, "alter_revkill")
		db := env.MySQL(t, name)
		rows := seed(t, db, baseTable)
		l := startLoad(t, db, rows, 4)
		args := []string{"alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--alter", "ADD COLUMN d INT, ADD INDEX ib (b)",
			"--method", "copy", "--workers", "2", "--chunk-rows", "1000", "--revert-window", "10m", "--log-format", "json"}
		first := testenv.SluiceCommand(bin, args...)
		var out1 bytes.Buffer
		first.Stdout, first.Stderr = &out1, &out1
		if err := first.Start(); err != nil {
			l.finish()
			t.Fatal(err)
		}
		waitWindowOpen(t, db, name, "d", nil)
		time.Sleep(1500 * time.Millisecond)
		if err := first.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = first.Wait()
		time.Sleep(1500 * time.Millisecond) // writes no one keeps current: the resume replays them
		second := testenv.SluiceCommand(bin, args...)
		var out2 bytes.Buffer
		second.Stdout, second.Stderr = &out2, &out2
		if err := second.Start(); err != nil {
			l.finish()
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(out2.String(), "revert window open") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(out2.String(), "resuming the revert window") {
			t.Errorf("the second run did not resume the window:\n%s", out2.String())
		}
		time.Sleep(time.Second)
		out3, err := testenv.SluiceCommand(bin, "alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--revert").CombinedOutput()
		if err != nil {
			_ = second.Process.Kill()
			l.finish()
			t.Fatalf("revert: %v\n%s\nwindow:\n%s", err, out3, out2.String())
		}
		if err := second.Wait(); err != nil {
			t.Errorf("the resumed window after the hand-over: %v\n%s", err, out2.String())
		}
		time.Sleep(300 * time.Millisecond)
		l.finish()
		t.Logf("%s", bytes.TrimSpace(out3))
		l.compare(db)
		checkReverted(t, db, name, "d")
		// After the revert: refused through the binary, exit 2.
		out4, err := testenv.SluiceCommand(bin, "alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--revert").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("revert after the revert: want exit 2, got %v:\n%s", err, out4)
		}
	})
}

// TestAlterRevertRefused: a change that cannot be reverted exactly is
// named at the start (exit 2, nothing created); a revert after the window
// ended, after another change of the table, or of a table without a
// window: exit 2, nothing changed.
func TestAlterRevertRefused(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_revref")
		db := env.MySQL(t, name)
		if _, err := db.Exec("CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, a INT NOT NULL DEFAULT 0, b VARCHAR(100), c INT NULL, " +
			"e INT NOT NULL, UNIQUE KEY ue (e)) ENGINE=InnoDB"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("INSERT INTO t VALUES (1, 1, 'x', 1, 1), (2, 2, 'y', 2, 2)"); err != nil {
			t.Fatal(err)
		}
		ro := alterOptions(t, env, name, "")
		ro.Revert = true
		if _, err := Run(context.Background(), ro); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "no revert window") {
			t.Errorf("revert without a window: want exit 2, got %v", err)
		}
		o := alterOptions(t, env, name, "MODIFY a BIGINT NOT NULL DEFAULT 0, MODIFY b VARCHAR(200), MODIFY c INT NOT NULL DEFAULT 0, DROP COLUMN e, DROP INDEX ue")
		o.RevertWindow, o.AllowDropColumn = time.Minute, true
		_, err := Run(context.Background(), o)
		for _, want := range []string{"column a from int", "column b from varchar(100)", "drops column e, NOT NULL without a default", "drops unique key ue"} {
			if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), want) {
				t.Errorf("irreversible change: want exit 2 naming %q, got %v", want, err)
			}
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN ('t_new', 't_old')`, name).Scan(&n); err != nil || n != 0 {
			t.Errorf("the refused change created %d tables (%v)", n, err)
		}

		// A window that ends: the old table is dropped, a revert refused.
		o = alterOptions(t, env, name, "ADD COLUMN d INT")
		o.RevertWindow = 2 * time.Second
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatalf("alter with a 2s window: %v", err)
		}
		if _, err := Run(context.Background(), ro); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "the window ended at") {
			t.Errorf("revert after the window: want exit 2 (ended), got %v", err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't_old'`, name).Scan(&n); err != nil || n != 0 {
			t.Errorf("the ended window left t_old (%d, %v)", n, err)
		}

		// Another change of the table during the window: the window ends
		// (exit 1, the old table kept), a revert is refused.
		o = alterOptions(t, env, name, "ADD COLUMN f INT")
		o.RevertWindow = 10 * time.Minute
		done := make(chan error, 1)
		go func() { _, err := Run(context.Background(), o); done <- err }()
		waitWindowOpen(t, db, name, "f", done)
		if _, err := db.Exec("ALTER TABLE t ADD COLUMN g INT"); err != nil {
			t.Fatal(err)
		}
		if err := <-done; exitcode.Of(err) != exitcode.Failure || !errors.Is(err, errTableChanged) {
			t.Errorf("window after another change: want exit 1 (table changed), got %v", err)
		}
		if _, err := Run(context.Background(), ro); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "changed again") {
			t.Errorf("revert after another change: want exit 2, got %v", err)
		}
		// The same refusal from the definition alone (no keeper saw it):
		// reopen the window's state as a killed keeper leaves it.
		if _, err := db.Exec("UPDATE sluice.alter_windows SET state = 'open', why = '' WHERE db = ?", name); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(context.Background(), ro); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "was changed after the swap") {
			t.Errorf("revert of a changed table: want exit 2, got %v", err)
		}
	})
}

// waitSameRows waits (at most 30 s) until tables a and b hold the same
// (id, a, b) rows, by an order-independent hash.
func waitSameRows(t *testing.T, db *sql.DB, a, b string) {
	t.Helper()
	hash := func(table string) (n, sum int64) {
		_ = db.QueryRow("SELECT COUNT(*), COALESCE(SUM(CRC32(CONCAT_WS('|', id, a, b))), 0) FROM "+table).Scan(&n, &sum)
		return n, sum
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		na, sa := hash(a)
		nb, sb := hash(b)
		if na == nb && sa == sb {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (%d rows) and %s (%d rows) still differ after 30s", a, na, b, nb)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// windowPos is the position the table's window is replayed from.
func windowPos(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var pos string
	if err := db.QueryRow("SELECT start_pos FROM sluice.alter_windows WHERE db = ?", name).Scan(&pos); err != nil {
		t.Fatal(err)
	}
	return pos
}
