package ddl_test

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/**/expected.sql, *.golden)")

// A corpus case is a folder testdata/ddl/<case>/ with input.sql: MySQL
// statements separated by lines ending in ";". Statements before a line
// "-- test" set up the tables; the ones after it are translated and their
// results written to expected.sql. {db} and {db2} stand for the two source
// databases ("src" and "other" here, fresh databases in the integration test).

type corpusCase struct {
	name         string
	dir          string
	setup, tests []string
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	dirs, err := filepath.Glob("testdata/ddl/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no corpus cases in testdata/ddl: %v", err)
	}
	var cases []corpusCase
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "input.sql"))
		if err != nil {
			t.Fatal(err)
		}
		c := corpusCase{name: filepath.Base(dir), dir: dir}
		setup, tests, found := strings.Cut(string(b), "\n-- test\n")
		if !found {
			setup, tests = "", string(b)
		}
		c.setup, c.tests = splitSQL(setup), splitSQL(tests)
		cases = append(cases, c)
	}
	return cases
}

// splitSQL splits at lines ending in ";" and drops comment-only lines.
func splitSQL(s string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(cur) == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "-- ")) {
			continue
		}
		cur = append(cur, line)
		if strings.HasSuffix(trimmed, ";") {
			stmt := strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";")
			out = append(out, stmt)
			cur = nil
		}
	}
	return out
}

// corpusTime is when the corpus statements "ran" on the source: the value
// MySQL gives existing rows when a change fills them with the current time.
var corpusTime = time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)

func expand(stmt, db, db2 string) string {
	return strings.NewReplacer("{db}", db, "{db2}", db2).Replace(stmt)
}

// pureCatalog describes a MariaDB 10.11 server with databases src (utf8mb4)
// and other (latin1), without a server.
func pureCatalog() *schema.Catalog {
	return &schema.Catalog{
		Flavor: "mariadb", ExplicitDefaultsForTimestamp: true,
		Server: schema.Database{Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
		Databases: []schema.Database{
			{Name: "src", Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
			{Name: "other", Charset: "latin1", Collation: "latin1_swedish_ci"},
		},
		Collations: map[string]string{"utf8mb4": "utf8mb4_general_ci", "utf8mb3": "utf8mb3_general_ci",
			"latin1": "latin1_swedish_ci", "ascii": "ascii_general_ci", "binary": "binary", "ucs2": "ucs2_general_ci"},
	}
}

func corpusTranslator(t *testing.T, cat *schema.Catalog, db, db2 string) *ddl.Translator {
	t.Helper()
	f, err := schema.NewFilter([]string{db, db2 + ".*", "newdb*"}, []string{db + ".skip_*"}, "")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := schema.NewNaming(nil)
	return ddl.NewTranslator(cat, typemap.New(typemap.DefaultOptions(), nil), n, f)
}

func TestDDLCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			tr := corpusTranslator(t, pureCatalog(), "src", "other")
			cur := ddl.Tables{}
			for _, s := range c.setup {
				res, err := tr.TranslateAt(cur, expand(s, "src", "other"), "src", corpusTime)
				if err != nil {
					t.Fatalf("setup %s: %v", s, err)
				}
				applyResult(cur, res)
			}
			var out strings.Builder
			for _, s := range c.tests {
				res, err := tr.TranslateAt(cur, expand(s, "src", "other"), "src", corpusTime)
				describe(&out, s, res, err)
				if err == nil {
					applyResult(cur, res)
				}
			}
			golden(t, filepath.Join(c.dir, "expected.sql"), out.String())
		})
	}
}

// applyResult moves tracked tables to the state after a result.
func applyResult(cur ddl.Tables, res *ddl.Result) {
	for _, id := range res.Dropped {
		delete(cur, id)
	}
	for _, t := range res.Tables {
		cur[t.TableID] = t
	}
}

// describe writes one statement's translation in the golden format.
func describe(w *strings.Builder, stmt string, res *ddl.Result, err error) {
	fmt.Fprintf(w, "-- %s\n", strings.ReplaceAll(stmt, "\n", "\n-- "))
	var unsup *ddl.UnsupportedError
	switch {
	case errors.As(err, &unsup):
		fmt.Fprintf(w, "-- unsupported: %s\n\n", unsup.Reason)
		return
	case err != nil:
		fmt.Fprintf(w, "-- error: %v\n\n", err)
		return
	case res.Ignored:
		fmt.Fprintf(w, "-- ignored: %s\n\n", res.Reason)
		return
	}
	for _, s := range res.PG {
		fmt.Fprintf(w, "%s;\n", s)
	}
	for _, wn := range res.Warnings {
		fmt.Fprintf(w, "-- warning: %s\n", wn)
	}
	for _, m := range res.Moved {
		fmt.Fprintf(w, "-- moved: %s.%s %s (source: %s)\n", m.Table, m.Column, m.Place, strings.Join(m.SourceOrder, ", "))
	}
	for _, t := range res.Tables {
		fmt.Fprintf(w, "-- table %s\n", modelSummary(t))
	}
	for _, id := range res.Dropped {
		fmt.Fprintf(w, "-- dropped %s\n", id)
	}
	var renames []string
	for from, to := range res.Renamed {
		renames = append(renames, from.String()+" -> "+to.String())
	}
	sort.Strings(renames)
	for _, r := range renames {
		fmt.Fprintf(w, "-- renamed %s\n", r)
	}
	var dbs []string
	for name, d := range res.Databases {
		if d == nil {
			dbs = append(dbs, name+" dropped")
		} else {
			dbs = append(dbs, name+" "+d.Charset+"/"+d.Collation)
		}
	}
	sort.Strings(dbs)
	for _, d := range dbs {
		fmt.Fprintf(w, "-- database %s\n", d)
	}
	w.WriteString("\n")
}

// modelSummary prints a table model compactly, one line per part.
func modelSummary(t *schema.Table) string {
	var b strings.Builder
	b.WriteString(t.String())
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "\n--   %d %s %s", c.Ordinal, c.Name, c.ColumnType)
		if !c.Nullable {
			b.WriteString(" NOT NULL")
		}
		if c.Default != nil {
			b.WriteString(" DEFAULT " + *c.Default)
		}
		if c.AutoIncrement {
			b.WriteString(" AUTO_INCREMENT")
		}
		if c.GenerationExpr != "" {
			b.WriteString(" AS (" + c.GenerationExpr + ")")
		}
		if c.Charset != "" {
			b.WriteString(" " + c.Collation)
		}
		if c.IsJSON {
			b.WriteString(" JSON")
		}
		if c.OnUpdateCurrentTS {
			b.WriteString(" ON UPDATE")
		}
	}
	if len(t.PrimaryKey) > 0 {
		fmt.Fprintf(&b, "\n--   PRIMARY KEY (%s)", strings.Join(t.PrimaryKey, ", "))
	}
	for _, ix := range t.Indexes {
		var parts []string
		for _, p := range ix.Columns {
			s := p.Name + p.Expression
			if p.SubPart > 0 {
				s += fmt.Sprintf("(%d)", p.SubPart)
			}
			if p.Desc {
				s += " DESC"
			}
			parts = append(parts, s)
		}
		u := ""
		if ix.Unique {
			u = "UNIQUE "
		}
		fmt.Fprintf(&b, "\n--   %s%s %s (%s)", u, ix.Kind, ix.Name, strings.Join(parts, ", "))
	}
	for _, fk := range t.ForeignKeys {
		fmt.Fprintf(&b, "\n--   FK %s (%s) -> %s.%s (%s) ON DELETE %s ON UPDATE %s", fk.Name,
			strings.Join(fk.Columns, ", "), fk.RefDatabase, fk.RefTable, strings.Join(fk.RefColumns, ", "), fk.OnDelete, fk.OnUpdate)
	}
	for _, ck := range t.Checks {
		fmt.Fprintf(&b, "\n--   CHECK %s (%s)", ck.Name, ck.Expr)
	}
	return b.String()
}

// golden compares got with a golden file, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/ddl -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want: %s\n  got: %s", i+1, wl, gl)
		}
	}
	return ""
}
