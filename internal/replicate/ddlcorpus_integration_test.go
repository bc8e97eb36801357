package replicate

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify"
)

// The DDL corpus (internal/ddl/testdata/corpus: statements from gh-ost's,
// Debezium's, Vitess's and MariaDB's test suites, each accepted by MariaDB)
// is replayed on the source while replicate runs into PostgreSQL. After each
// statement the test waits for the target, writes rows into the tables the
// statement names (inserts with values and NULLs, an update, a delete),
// waits again and compares those tables with verify. Every statement the
// source accepts counts once:
//
//   - applied: replication went on and the tables are equal afterwards;
//   - refused: replication stopped naming the statement and --skip-ddl (the
//     run resumes with it skipped, and the group's tables are dropped);
//   - wrong: the target differs while sluice said nothing;
//   - stopped: replication stopped without --skip-ddl guidance (the rest of
//     that stream's statements are not reached).
//
// It fails on any wrong or stopped statement and when fewer than
// corpusAppliedGoal of the accepted statements were applied.
const corpusAppliedGoal = 0.985

// corpusMark is the table each group's database keeps to know when the
// target has caught up: the test bumps its counter and waits for it there.
const corpusMark = "zz_corpus_mark"

// corpusBatchStatements bounds the statements replayed by one stream; a
// file's groups are packed into batches of about this size.
const corpusBatchStatements = 120

type corpusGroup struct {
	name, origin string
	stmts        []string
}

type corpusCounts struct {
	accepted, rejected, applied, refused, wrong, stops int
	notReached                                         int
}

// corpusTotal sums the batches' counts and notes.
type corpusTotal struct {
	mu sync.Mutex
	corpusCounts
	notes []string
}

func (c *corpusTotal) add(o corpusCounts, notes []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.accepted += o.accepted
	c.rejected += o.rejected
	c.applied += o.applied
	c.refused += o.refused
	c.wrong += o.wrong
	c.stops += o.stops
	c.notReached += o.notReached
	c.notes = append(c.notes, notes...)
}

func TestDDLCorpusIntoPostgres(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	runCorpus(t, "PostgreSQL", func(t *testing.T, batch []corpusGroup) *corpusRun { return newPGCorpusRun(t, env, batch) })
}

// TestDDLCorpusIntoMySQLTarget replays the corpus into the sandbox's
// MariaDB target, which runs the source's statements itself.
func TestDDLCorpusIntoMySQLTarget(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MariaDB)
	runCorpus(t, "a MariaDB target", func(t *testing.T, batch []corpusGroup) *corpusRun { return newMyCorpusRun(t, env, batch) })
}

// runCorpus replays every corpus file, its batches in parallel, and checks
// the counts.
func runCorpus(t *testing.T, into string, newRun func(*testing.T, []corpusGroup) *corpusRun) {
	files, err := filepath.Glob("../ddl/testdata/corpus/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var total corpusTotal
	start := time.Now()
	t.Run("batches", func(t *testing.T) {
		for _, f := range files {
			for i, batch := range corpusBatches(readCorpus(t, f)) {
				name := fmt.Sprintf("%s/%d", strings.TrimSuffix(filepath.Base(f), ".sql"), i+1)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					r := newRun(t, batch)
					start := time.Now()
					r.replay()
					t.Logf("%d statements in %s, %s of it waiting for the target", r.counts.accepted+r.counts.rejected,
						time.Since(start).Round(time.Millisecond), r.waited.Round(time.Millisecond))
					total.add(r.counts, r.notes)
				})
			}
		}
	})
	sort.Strings(total.notes)
	for _, n := range total.notes {
		t.Log(n)
	}
	ratio := float64(total.applied) / float64(max(total.accepted, 1))
	t.Logf("DDL corpus into %s in %s: %d statements the source accepted (%d it rejected): "+
		"applied %d (%.2f%%), refused with --skip-ddl guidance %d, wrong %d, stopped %d, not reached %d",
		into, time.Since(start).Round(time.Second), total.accepted, total.rejected, total.applied, 100*ratio,
		total.refused, total.wrong, total.stops, total.notReached)
	if total.wrong > 0 || total.stops > 0 {
		t.Errorf("%d wrong, %d stopped: want none", total.wrong, total.stops)
	}
	if ratio < corpusAppliedGoal {
		t.Errorf("applied %.2f%% of the accepted statements, want at least %.1f%%", 100*ratio, 100*corpusAppliedGoal)
	}
}

// readCorpus reads a corpus file: groups start at "-- group:" lines, each
// statement is one line ending in ";".
func readCorpus(t *testing.T, path string) []corpusGroup {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var groups []corpusGroup
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "-- group: "):
			groups = append(groups, corpusGroup{name: strings.TrimPrefix(line, "-- group: ")})
		case strings.HasPrefix(line, "-- origin: ") && len(groups) > 0:
			groups[len(groups)-1].origin = strings.TrimPrefix(line, "-- origin: ")
		case strings.HasPrefix(line, "--") || strings.TrimSpace(line) == "":
		case len(groups) > 0:
			g := &groups[len(groups)-1]
			g.stmts = append(g.stmts, strings.TrimSuffix(line, ";"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return groups
}

// corpusBatches packs groups into batches of about corpusBatchStatements.
func corpusBatches(groups []corpusGroup) [][]corpusGroup {
	var out [][]corpusGroup
	var cur []corpusGroup
	n := 0
	for _, g := range groups {
		if n > 0 && n+len(g.stmts) > corpusBatchStatements {
			out = append(out, cur)
			cur, n = nil, 0
		}
		cur = append(cur, g)
		n += len(g.stmts)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// corpusRun is one batch: its groups in turn in one source database (the
// tables of each dropped before the next), one stream.
type corpusRun struct {
	t      *testing.T
	groups []corpusGroup
	db     string
	my     *sql.DB // the source database, one connection
	target corpusTarget
	opts   Options
	bg     *background
	mark   int
	waited time.Duration // in sync
	counts corpusCounts
	notes  []string
}

// corpusTarget is the target side of a corpus run.
type corpusTarget interface {
	// mark reads the target's copy of the mark.
	mark(ctx context.Context) (int, error)
	// tables lists the target's tables but the mark.
	tables() ([]string, error)
	// differences compares the touched tables, "" when equal.
	differences(touched []string) string
}

// newCorpusDB creates the batch's source database with the mark.
func newCorpusDB(t *testing.T, my *sql.DB) {
	my.SetMaxOpenConns(1)
	for _, q := range []string{"CREATE TABLE " + corpusMark + " (id INT PRIMARY KEY, n INT NOT NULL)", "INSERT INTO " + corpusMark + " VALUES (1, 0)"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

func newPGCorpusRun(t *testing.T, env *testenv.Env, groups []corpusGroup) *corpusRun {
	db := env.NewDatabase(t, "ddlcorp")
	r := &corpusRun{t: t, groups: groups, db: db, my: env.MySQL(t, db)}
	newCorpusDB(t, r.my)
	src, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	stream := testenv.UniqueName("ddlcorp")
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "stream_naming"} {
			_, _ = pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := snapshot.Run(ctx, snapshot.Options{Source: src, Target: pgsink.NewEngine(dst), Include: []string{db}, Stream: stream,
		Workers: 1, Log: testenv.Logger()}); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	// One worker: the mark reaching the target then means that everything
	// before it did (parallel workers commit independent transactions out
	// of order).
	r.opts = Options{Source: src, Target: pgsink.NewEngine(dst), Include: []string{db}, Stream: stream, Workers: 1, Log: quietLogger(),
		StatusEvery: time.Minute, DrainTimeout: 20 * time.Second}
	r.target = &pgCorpusTarget{t: t, pg: pg, db: db, my: r.my, opts: &r.opts}
	r.bg = startBackground(t, r.opts)
	return r
}

func newMyCorpusRun(t *testing.T, env *testenv.Env, groups []corpusGroup) *corpusRun {
	// --target-engine InnoDB, as the refusal of a MyISAM table without it
	// says (TestMySQLTargetBadInputIsRefused): the corpus's MyISAM,
	// MEMORY and Aria tables are created as InnoDB, the rest as written.
	g := newMyRig(t, env, "ddlcorpm", "InnoDB")
	r := &corpusRun{t: t, groups: groups, db: g.db, my: g.my}
	newCorpusDB(t, r.my)
	r.opts = g.options()
	r.opts.Workers, r.opts.Log, r.opts.StatusEvery = 1, quietLogger(), time.Minute
	r.target = &myCorpusTarget{g: g}
	r.bg = startBackground(t, r.opts)
	return r
}

// replay runs every group of the batch in turn; a stop ends the batch (the
// stream cannot go past it).
func (r *corpusRun) replay() {
	for i, g := range r.groups {
		if !r.replayGroup(g) || !r.dropTables(g, "the group's end") {
			for _, rest := range r.groups[i+1:] {
				r.counts.notReached += len(rest.stmts)
			}
			return
		}
	}
}

// replayGroup returns false when the stream stopped.
func (r *corpusRun) replayGroup(g corpusGroup) bool {
	ctx := context.Background()
	rows := &corpusRows{db: r.my, n: 1}
	for i, stmt := range g.stmts {
		if _, err := r.my.ExecContext(ctx, stmt); err != nil {
			r.counts.rejected++
			continue
		}
		r.counts.accepted++
		if err := r.sync(); err != nil {
			if !r.refusal(g, stmt, err) {
				r.stop(g, stmt, err)
				r.counts.notReached += len(g.stmts) - i - 1
				return false
			}
			if !r.dropTables(g, stmt) {
				r.counts.notReached += len(g.stmts) - i - 1
				return false
			}
			continue
		}
		tables := corpusTouched(r.t, r.my, r.db, stmt)
		for _, tbl := range tables {
			rows.traffic(r.t, tbl)
		}
		if err := r.sync(); err != nil {
			r.stop(g, stmt, fmt.Errorf("rows after it: %w", err))
			r.counts.notReached += len(g.stmts) - i - 1
			return false
		}
		if d := r.compare(tables); d != "" {
			r.counts.wrong++
			r.notes = append(r.notes, fmt.Sprintf("WRONG %s: %s\n  %s", g.name, stmt, d))
			r.counts.notReached += len(g.stmts) - i - 1
			return true // the caller drops the tables; the stream goes on with the next group
		}
		r.counts.applied++
	}
	return true
}

func (r *corpusRun) stop(g corpusGroup, stmt string, err error) {
	r.counts.stops++
	r.notes = append(r.notes, fmt.Sprintf("STOPPED %s: %s\n  %v", g.name, stmt, err))
}

// refusal handles a stop that names the statement and --skip-ddl: the run
// resumes with the statement skipped (the caller drops the group's tables:
// their target tables no longer match). It returns false for any other stop.
func (r *corpusRun) refusal(g corpusGroup, stmt string, err error) bool {
	head := stmt[:min(len(stmt), 150)]
	if msg := err.Error(); !strings.Contains(msg, "--skip-ddl") ||
		(!strings.Contains(msg, "statement: "+head) && !strings.Contains(msg, "DDL "+head)) {
		return false
	}
	r.counts.refused++
	r.notes = append(r.notes, fmt.Sprintf("refused %s: %s\n  %s", g.name, stmt, firstLine(err.Error())))
	r.opts.SkipDDL = append(r.opts.SkipDDL, stmt)
	r.bg = startBackground(r.t, r.opts)
	return true
}

// dropTables drops the batch database's tables on the source: after a
// group, and after a refusal or a wrong statement (the target's copies no
// longer match); false when the stream stopped on the way.
func (r *corpusRun) dropTables(g corpusGroup, after string) bool {
	for _, q := range []string{"SET foreign_key_checks = 0", "SET foreign_key_checks = 1"} {
		if q == "SET foreign_key_checks = 1" {
			for _, tbl := range corpusTables(r.t, r.my, r.db) {
				if _, err := r.my.Exec("DROP TABLE " + quoteMy(tbl)); err != nil {
					r.t.Fatalf("drop %s: %v", tbl, err)
				}
			}
		}
		if _, err := r.my.Exec(q); err != nil {
			r.t.Fatal(err)
		}
	}
	if err := r.sync(); err != nil {
		r.stop(g, after, fmt.Errorf("dropping the group's tables after it: %w", err))
		return false
	}
	return true
}

// sync bumps the mark and waits until the target has it, or the run ends
// (its error).
func (r *corpusRun) sync() error {
	r.mark++
	defer func(start time.Time) { r.waited += time.Since(start) }(time.Now())
	if _, err := r.my.Exec("UPDATE "+corpusMark+" SET n = ? WHERE id = 1", r.mark); err != nil {
		r.t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-r.bg.done:
			r.bg.done <- err
			if err == nil {
				err = errors.New("replicate ended without an error")
			}
			return err
		default:
		}
		if n, err := r.target.mark(context.Background()); err == nil && n >= r.mark {
			return nil
		}
		time.Sleep(15 * time.Millisecond)
	}
	return fmt.Errorf("the target did not catch up within 90 s")
}

// compare checks that the database's tables exist on both sides alike and
// that the touched ones hold the same rows.
func (r *corpusRun) compare(touched []string) string {
	src := corpusTables(r.t, r.my, r.db)
	tgt, err := r.target.tables()
	if err != nil {
		return fmt.Sprintf("target tables: %v", err)
	}
	sort.Strings(src)
	sort.Strings(tgt)
	if strings.Join(src, ",") != strings.Join(tgt, ",") {
		return fmt.Sprintf("tables: source %v, target %v", src, tgt)
	}
	if len(touched) == 0 {
		return ""
	}
	return r.target.differences(touched)
}

// pgCorpusTarget is PostgreSQL: schema db, compared by verify.
type pgCorpusTarget struct {
	t    *testing.T
	pg   *pgxpool.Pool
	db   string
	my   *sql.DB
	opts *Options
}

func (p *pgCorpusTarget) mark(ctx context.Context) (int, error) {
	var n int
	err := p.pg.QueryRow(ctx, "SELECT n FROM "+pgx.Identifier{p.db, corpusMark}.Sanitize()).Scan(&n)
	return n, err
}

func (p *pgCorpusTarget) tables() ([]string, error) {
	rows, err := p.pg.Query(context.Background(), `SELECT tablename::text FROM pg_tables WHERE schemaname = $1 AND tablename <> $2`, p.db, corpusMark)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (p *pgCorpusTarget) differences(touched []string) string {
	var pats []string
	for _, tbl := range touched {
		pats = append(pats, p.db+".`"+strings.ReplaceAll(tbl, "`", "``")+"`")
	}
	f, err := schema.NewFilter(pats, nil, "")
	if err != nil {
		p.t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), p.my, f)
	if err != nil {
		return fmt.Sprintf("schema.Load: %v", err)
	}
	naming, _ := schema.NewNaming(nil)
	rep, err := verify.Run(context.Background(), verify.Options{Source: p.opts.Source, Engine: p.opts.Target, Tables: cat.Tables,
		Naming: naming, Mapper: typemap.New(typemap.DefaultOptions(), nil), Workers: 1, Online: verify.OnlineOff, Log: quietLogger()})
	if err != nil {
		return fmt.Sprintf("verify: %v", err)
	}
	if rep.Result != verify.ResultEqual {
		var b strings.Builder
		rep.WriteSummary(&b)
		return "verify: " + rep.Result + "\n" + b.String()
	}
	return ""
}

// myCorpusTarget is a MySQL/MariaDB target: every table compared byte for
// byte (myRig.differences).
type myCorpusTarget struct{ g *myRig }

func (m *myCorpusTarget) mark(ctx context.Context) (int, error) {
	var n int
	err := m.g.tgt.QueryRowContext(ctx, "SELECT n FROM "+quoteMy(m.g.tdb)+"."+corpusMark).Scan(&n)
	return n, err
}

func (m *myCorpusTarget) tables() ([]string, error) {
	return corpusTables(m.g.t, m.g.tgt, m.g.tdb), nil
}

func (m *myCorpusTarget) differences([]string) string { return strings.Join(m.g.differences(), "; ") }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
