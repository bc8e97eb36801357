package fileengine

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestFileEngineSnapshotReplicateKill9AndStatus is the proof that an
// engine is added in its own package: the sluice binary, built with the
// one registry line (-tags sluicetest), snapshots into testfile:// and is
// killed with SIGKILL mid-copy and run again (it resumes), then replicates
// while a write load runs, is killed with SIGKILL twice and resumed,
// catches up with --until-caught-up, and `sluice status` reads the
// checkpoint; the directory then holds exactly the source's rows (none
// missing, none twice, every value equal).
func TestFileEngineSnapshotReplicateKill9AndStatus(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "fileeng")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40), p VARCHAR(600))")
	fill(t, my, 4000)
	bin := buildWithTestEngine(t)
	dir := t.TempDir()
	stream := testenv.UniqueName("fe")
	logPath := filepath.Join(dir, "sluice.log")
	common := []string{"--source", env.SourceURL(db), "--target", "testfile://" + dir, "--stream", stream}
	snapshot := append([]string{"snapshot", "--include", db + ".t", "--chunk-rows", "100", "--workers", "1",
		"--max-rate", "256KB", "--snapshot-method", "lock-free"}, common...)
	if env.IsMySQL() {
		snapshot[len(snapshot)-len(common)-1] = "table-lock" // MySQL has no lock-free point
	}
	killSnapshotMidCopy(t, bin, logPath, dir, snapshot)
	if err := runWithin(sluiceCmd(bin, logPath, snapshot...), 3*time.Minute); err != nil {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("snapshot, resumed: %v\n%s", err, tail(string(b), 3000))
	}
	compareRows(t, my, dir, db+".t")

	replicate := append([]string{"replicate", "--include", db + ".t", "--workers", "2"}, common...)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	var loaded atomic.Bool
	wg.Add(1)
	go func() { defer wg.Done(); writeLoad(ctx, t, my, 600); loaded.Store(true) }()
	applied := 0 // rows of the load in the target
	for k := 1; k <= 2; k++ {
		cmd := sluiceCmd(bin, logPath, replicate...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The kill lands mid-load, once this run committed changes: the
		// next run resumes from what it left.
		before := applied
		deadline := time.Now().Add(time.Minute)
		for applied <= before+20 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			applied = loadRows(t, dir, db+".t")
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatalf("kill -9 sluice pid %d: %v", cmd.Process.Pid, err)
		}
		_ = cmd.Wait()
		if applied <= before {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("kill %d: the run applied nothing in a minute\n%s", k, tail(string(b), 3000))
		}
		t.Logf("kill %d: the target holds %d rows of the load", k, applied)
	}
	if loaded.Load() {
		t.Fatal("the load ended before the second kill: the kills did not land mid-load")
	}
	wg.Wait()
	cmd := sluiceCmd(bin, logPath, append(replicate, "--until-caught-up")...)
	if err := runWithin(cmd, 3*time.Minute); err != nil {
		b, _ := os.ReadFile(logPath)
		t.Fatalf("replicate --until-caught-up: %v\n%s", err, tail(string(b), 3000))
	}
	compareRows(t, my, dir, db+".t")

	out, err := sluiceCmd(bin, "", append([]string{"status", "--json"}, common...)...).Output()
	if err != nil {
		t.Fatalf("sluice status: %v\n%s", err, out)
	}
	var st struct {
		Stream        string
		Position      json.RawMessage
		SchemaVersion int64 `json:"schema_version"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	want, err := engine{dir: dir}.ReadStatus(context.Background(), stream)
	if err != nil || want.Checkpoint == nil {
		t.Fatalf("the engine's own status: %v %v", want, err)
	}
	wantPos, _ := json.Marshal(want.Checkpoint.Position)
	var gotPos bytes.Buffer
	_ = json.Compact(&gotPos, st.Position)
	if st.Stream != stream || st.SchemaVersion != 1 || gotPos.String() != string(wantPos) {
		t.Errorf("status: stream %q schema version %d position %s; want %q 1 %s", st.Stream, st.SchemaVersion, st.Position, stream, wantPos)
	}
}

// loadRows counts the target's rows the load inserted (ids above 10000).
func loadRows(t *testing.T, dir, table string) int {
	all, err := Rows(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range all[table] {
		if len(*row[0]) > 4 { // ids 10001…
			n++
		}
	}
	return n
}

// fill inserts rows 1..n with a 500-byte p, 500 rows a statement.
func fill(t *testing.T, my *sql.DB, n int) {
	t.Helper()
	for lo := 1; lo <= n; lo += 500 {
		var vals []string
		for i := lo; i < lo+500 && i <= n; i++ {
			vals = append(vals, fmt.Sprintf("(%d, 's%d', REPEAT('x', 500))", i, i))
		}
		mustExec(t, my, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	}
}

// killSnapshotMidCopy runs the snapshot (at --max-rate, so it takes
// seconds) and kills it with SIGKILL once a chunk is recorded done.
func killSnapshotMidCopy(t *testing.T, bin, logPath, dir string, args []string) {
	t.Helper()
	cmd := sluiceCmd(bin, logPath, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for {
		if rows, _ := Rows(dir); len(rows) > 0 {
			break
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("snapshot ended before a chunk was copied and it could be killed: %v\n%s", err, tail(string(b), 3000))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no chunk copied within a minute")
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill -9 sluice snapshot pid %d: %v", cmd.Process.Pid, err)
	}
	<-exited
	all, err := Rows(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range all {
		if len(tbl) == 0 || len(tbl) >= 4000 {
			t.Fatalf("snapshot killed with %d of 4000 rows copied: not mid-copy", len(tbl))
		}
		t.Logf("snapshot killed with %d of 4000 rows copied", len(tbl))
	}
}

// writeLoad runs n small transactions: an insert each (ids from 10001), an
// update of the row before it every third, a delete every fifth, some with
// a NULL, and an update of a snapshot row each.
func writeLoad(ctx context.Context, t *testing.T, my *sql.DB, n int) {
	for k := 1; k <= n && ctx.Err() == nil; k++ {
		i := 10000 + k
		tx, err := my.BeginTx(ctx, nil)
		if err != nil {
			t.Error(err)
			return
		}
		var v any = fmt.Sprintf("v%d", i)
		if i%7 == 0 {
			v = nil
		}
		stmts := []struct {
			q    string
			args []any
		}{{"INSERT INTO t (id, v) VALUES (?, ?)", []any{i, v}}, {"UPDATE t SET v = 'w' WHERE id = ?", []any{k * 7}}}
		if i%3 == 0 {
			stmts = append(stmts, struct {
				q    string
				args []any
			}{"UPDATE t SET v = CONCAT('u', id) WHERE id = ?", []any{i - 1}})
		}
		if i%5 == 0 {
			stmts = append(stmts, struct {
				q    string
				args []any
			}{"DELETE FROM t WHERE id = ?", []any{i - 2}})
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s.q, s.args...); err != nil {
				t.Error(err)
				_ = tx.Rollback()
				return
			}
		}
		if err := tx.Commit(); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// compareRows compares every row of the source table with the directory's.
func compareRows(t *testing.T, my *sql.DB, dir, table string) {
	t.Helper()
	all, err := Rows(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := all[table]
	rows, err := my.Query("SELECT id, v, p FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string][]*string{}
	for rows.Next() {
		var id string
		var v, p sql.NullString
		if err := rows.Scan(&id, &v, &p); err != nil {
			t.Fatal(err)
		}
		row := []*string{&id, nil, nil}
		for i, s := range []sql.NullString{v, p} {
			if s.Valid {
				row[i+1] = &s.String
			}
		}
		want[id] = row
	}
	if len(want) < 100 {
		t.Fatalf("the load left %d rows: too few to prove anything", len(want))
	}
	if len(got) != len(want) {
		t.Errorf("target holds %d rows of %s, the source %d", len(got), table, len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || show(g) != show(w) {
			t.Errorf("row %s: target %s, source %s", k, show(g), show(w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("row %s: in the target only", k)
		}
	}
}

func show(row []*string) string {
	var parts []string
	for _, v := range row {
		if v == nil {
			parts = append(parts, "NULL")
		} else {
			parts = append(parts, *v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// buildWithTestEngine builds sluice with the sluicetest tag: the registry
// line that adds this engine.
func buildWithTestEngine(t *testing.T) string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sluice")
	cmd := exec.Command("go", "build", "-tags", "sluicetest", "-o", bin, "./cmd/sluice")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags sluicetest: %v\n%s", err, out)
	}
	return bin
}

func sluiceCmd(bin, logPath string, args ...string) *exec.Cmd {
	cmd := testenv.SluiceCommand(bin, args...)
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			cmd.Stdout, cmd.Stderr = f, f
		}
	}
	return cmd
}

func runWithin(cmd *exec.Cmd, limit time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("no result after %s", limit)
	}
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
