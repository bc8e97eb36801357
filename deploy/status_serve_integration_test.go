package deploy

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/board"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStatusServe: `sluice status --serve` shows what a PostgreSQL target
// (every stream it records) and a MySQL target (the --stream given) hold:
// the stream, its applied position as `sluice status` prints it, no
// replicator connected, its lag behind the source, in /api/status and on
// the page as Chromium draws it.
func TestStatusServe(t *testing.T) {
	br := newBrowser(t)
	env := testenv.Get(t)
	bin := testenv.SluiceBinary(t)
	db := env.NewDatabase(t, "serve")
	if _, err := env.MySQL(t, db).Exec(`CREATE TABLE t (id INT PRIMARY KEY, v INT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := env.MySQL(t, db).Exec(`INSERT INTO t VALUES (1, 1), (2, 2)`); err != nil {
		t.Fatal(err)
	}
	pg := testenv.StartPostgres(t)
	mt := env.MySQLTarget(t)
	tdb := db + "_r"
	mt.DropAtEnd(t, tdb)
	for _, c := range []struct {
		name, target string
		args         []string // status --serve's selection
	}{
		{"postgres", pg.URL(), nil},
		{"mysql", mt.URL(tdb), []string{"--stream"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stream := testenv.UniqueName("serve")
			if c.name == "mysql" {
				t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), mt.Admin(t), stream) })
			}
			src := env.SourceURL(db)
			if code, out := runSluice(t, bin, "migrate", "--source", src, "--target", c.target, "--stream", stream,
				"--until-caught-up", "--log-level", "warn"); code != 0 {
				t.Fatalf("migrate: exit %d\n%s", code, out)
			}
			code, out := runSluice(t, bin, "status", "--source", src, "--target", c.target, "--stream", stream, "--json", "--log-level", "error")
			var want struct {
				Position struct{ File string }
			}
			if code != 0 || json.Unmarshal([]byte(out), &want) != nil || want.Position.File == "" {
				t.Fatalf("status --json: exit %d\n%s", code, out)
			}
			addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
			args := []string{"status", "--source", src, "--target", c.target, "--serve", addr, "--log-level", "warn"}
			if c.args != nil {
				args = append(args, "--stream", stream)
			}
			p := startSluice(t, bin, "status --serve", args...)
			st := waitStatus(t, addr, "the stream on the page", 60*time.Second, p, func(st board.Status) bool {
				for _, s := range st.Streams {
					if s.Name == stream {
						return true
					}
				}
				return false
			})
			var s board.StreamStatus
			for _, s = range st.Streams {
				if s.Name == stream {
					break
				}
			}
			if s.Phase != board.PhaseStopped || !strings.HasPrefix(s.Applied, want.Position.File+":") ||
				s.LagSeconds == nil || *s.LagSeconds > 60 || s.LastError != nil || st.Command != "status" {
				t.Errorf("/api/status of %s: %+v (status --json position %+v)", stream, s, want.Position)
			}
			if c.args != nil && len(st.Streams) != 1 {
				t.Errorf("--stream %s: the page lists %d streams", stream, len(st.Streams))
			}
			page := pageOf{dom: br.dom(t, "http://"+addr+"/"), stream: stream}
			if ph := page.phase(t); ph != string(board.PhaseStopped) {
				t.Errorf("the page shows %s %q, want stopped", stream, ph)
			}
			// The shared source moves on with other tests' writes: the lag
			// is the time since the last applied transaction, seconds.
			if shown, v := page.lag(t); !strings.HasSuffix(shown, " s") || v == "" {
				t.Errorf("the page shows the lag %q (%q), want seconds", shown, v)
			}
			p.stop(t)
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("status --serve stopped by SIGINT: exit %d\n%s", code, p.out.String())
			}
		})
	}
}
