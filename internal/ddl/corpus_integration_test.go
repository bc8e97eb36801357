package ddl_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// corpusOnServersSkip are cases with statements that would touch the shared
// servers outside the test's own databases (CREATE DATABASE).
var corpusOnServersSkip = map[string]bool{"databases": true}

// TestDDLCorpusOnServers replays every corpus case on MariaDB and, through
// Translate, on PostgreSQL. Afterwards the tracked schema must equal what
// information_schema says (field by field), and each PostgreSQL table must
// have exactly the columns, types and indexes a fresh snapshot
// (CreateTable) of the tracked table would create.
func TestDDLCorpusOnServers(t *testing.T) {
	env := testenv.Get(t)
	for _, c := range loadCorpus(t) {
		if corpusOnServersSkip[c.name] {
			continue
		}
		t.Run(c.name, func(t *testing.T) { replayCase(t, env, c) })
	}
}

func replayCase(t *testing.T, env *testenv.Env, c corpusCase) {
	ctx := context.Background()
	db, db2 := env.NewDatabase(t, "ddlc"), env.NewDatabase(t, "ddlc2")
	my := env.MySQL(t, db)
	if _, err := my.ExecContext(ctx, "ALTER DATABASE `"+db2+"` CHARACTER SET latin1"); err != nil {
		t.Fatal(err)
	}
	f, _ := schema.NewFilter([]string{db, db2 + ".*"}, []string{db + ".skip_*"}, "")
	cat, err := schema.Load(ctx, my, f)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := schema.NewNaming(nil)
	m := typemap.New(typemap.DefaultOptions(), nil)
	tr := ddl.NewTranslator(cat, m, n, f)
	pg := env.PG(t)
	cur := ddl.Tables{}
	for _, raw := range append(append([]string{}, c.setup...), c.tests...) {
		stmt := expand(raw, db, db2)
		res, err := tr.TranslateAt(cur, stmt, db, time.Now())
		var unsup *ddl.UnsupportedError
		switch {
		case errors.As(err, &unsup):
			continue // as with --skip-ddl: the source does not run it either
		case err != nil:
			t.Fatalf("%s: %v", stmt, err)
		case res.Ignored && !runIgnored(res.Reason):
			continue // GRANT, CREATE USER ...: not on the shared server
		}
		if _, err := my.ExecContext(ctx, stmt); err != nil {
			t.Logf("MariaDB rejects %s: %v (not in a binlog, not applied)", stmt, err)
			continue
		}
		if res.Ignored {
			continue
		}
		applyOnPG(t, pg, stmt, res.PG)
		applyResult(cur, res)
	}
	loaded, err := schema.Load(ctx, my, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Tables) != len(cur) {
		t.Errorf("MariaDB has %d tables in scope, the tracked schema %d", len(loaded.Tables), len(cur))
	}
	for _, lt := range loaded.Tables {
		tt := cur[lt.TableID]
		if tt == nil {
			t.Errorf("table %s exists on MariaDB but not in the tracked schema", lt.TableID)
			continue
		}
		compareTables(t, "tracked", lt, tt)
		checkTarget(t, pg, tt, m, n)
	}
}

// runIgnored reports ignored statements that are safe to run on the
// shared MariaDB (they only touch the test's databases).
func runIgnored(reason string) bool {
	for _, s := range []string{"not in scope", "already exists", "changes nothing", "no table in scope"} {
		if strings.Contains(reason, s) {
			return true
		}
	}
	return false
}

func applyOnPG(t *testing.T, pg *pgxpool.Pool, stmt string, stmts []string) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pg, func(tx pgx.Tx) error {
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return errors.New(s + "\n→ " + err.Error())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("PostgreSQL rejects the translation of %s:\n%v", stmt, err)
	}
}

// checkTarget compares a PostgreSQL table with a fresh plan of the tracked
// table: same columns (by name: PostgreSQL keeps its own order), types,
// generated-ness and indexes.
func checkTarget(t *testing.T, pg *pgxpool.Pool, tt *schema.Table, m *typemap.Mapper, n schema.Naming) {
	t.Helper()
	ctx := context.Background()
	plan, err := ddl.CreateTable(tt, m, n)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pg.Query(ctx, `SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.attgenerated = 's', a.attnotnull
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`, n.Schema(tt.Database), tt.Name)
	if err != nil {
		t.Fatal(err)
	}
	type pgCol struct {
		typ          string
		gen, notNull bool
	}
	have := map[string]pgCol{}
	for rows.Next() {
		var name string
		var c pgCol
		if err := rows.Scan(&name, &c.typ, &c.gen, &c.notNull); err != nil {
			t.Fatal(err)
		}
		have[name] = c
	}
	rows.Close()
	if len(have) != len(plan.Columns) {
		t.Errorf("%s: PostgreSQL has %d columns, the plan %d", tt, len(have), len(plan.Columns))
	}
	for i, pc := range plan.Columns {
		h, ok := have[pc.Name]
		switch {
		case !ok:
			t.Errorf("%s: column %s missing on PostgreSQL", tt, pc.Name)
		case ddl.NormalizeType(h.typ) != ddl.NormalizeType(pc.PGType):
			t.Errorf("%s.%s: PostgreSQL type %s, plan %s", tt, pc.Name, h.typ, pc.PGType)
		case h.gen != pc.Generated:
			t.Errorf("%s.%s: generated on PostgreSQL %v, in the plan %v", tt, pc.Name, h.gen, pc.Generated)
		case h.notNull != !tt.Columns[i].Nullable:
			t.Errorf("%s.%s: NOT NULL on PostgreSQL %v, MySQL nullable %v", tt, pc.Name, h.notNull, tt.Columns[i].Nullable)
		}
	}
	var got []string
	rows, err = pg.Query(ctx, `SELECT i.relname::text FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
		JOIN pg_class c ON c.oid = x.indrelid JOIN pg_namespace s ON s.oid = c.relnamespace
		WHERE s.nspname = $1 AND c.relname = $2`, n.Schema(tt.Database), tt.Name)
	if err != nil {
		t.Fatal(err)
	}
	got, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if len(tt.PrimaryKey) > 0 {
		want = append(want, ddl.PrimaryKeyName(tt.Name))
	}
	for _, s := range plan.PostData {
		if name, ok := indexNameOf(s); ok {
			want = append(want, name)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s: PostgreSQL indexes %v, a fresh plan creates %v", tt, got, want)
	}
}

// indexNameOf extracts the index name from a planned CREATE INDEX statement.
func indexNameOf(stmt string) (string, bool) {
	const marker = "INDEX IF NOT EXISTS \""
	i := strings.Index(stmt, marker)
	if i < 0 {
		return "", false
	}
	rest := stmt[i+len(marker):]
	var b strings.Builder
	for j := 0; j < len(rest); j++ {
		if rest[j] == '"' {
			if j+1 < len(rest) && rest[j+1] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			return b.String(), true
		}
		b.WriteByte(rest[j])
	}
	return "", false
}
