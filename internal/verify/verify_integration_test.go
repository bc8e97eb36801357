package verify

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// runVerify runs verify on the given source tables of the side's database.
func (s *side) runVerify(t *testing.T, tables []*schema.Table, mutate func(*Options)) *Report {
	t.Helper()
	naming, err := schema.NewNaming(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		Source: s.src, Engine: pgsink.NewEngine(s.tgt), Tables: tables, Naming: naming,
		Mapper: typemap.New(typemap.DefaultOptions(), nil), Workers: 2, Online: OnlineOff,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if testing.Verbose() {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if mutate != nil {
		mutate(&o)
	}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if testing.Verbose() {
		var b bytes.Buffer
		rep.WriteSummary(&b)
		t.Log("\n" + b.String())
	}
	return rep
}

// found lists the reported differences as "kind key column" lines, sorted.
func found(rep *Report) []string {
	var out []string
	for _, tr := range rep.Tables {
		for _, d := range tr.Diffs {
			key := d.keyString()
			if len(d.Columns) == 0 {
				out = append(out, fmt.Sprintf("%s %s %s", tr.Table[strings.IndexByte(tr.Table, '.')+1:], d.Kind, key))
			}
			for _, c := range d.Columns {
				out = append(out, fmt.Sprintf("%s %s %s %s", tr.Table[strings.IndexByte(tr.Table, '.')+1:], d.Kind, key, c.Column))
			}
		}
	}
	sort.Strings(out)
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n  %s\nwant:\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// jsonCase is the JSON column of the type table: values as MariaDB stores
// them, and one changed value per row that must be found.
var jsonValues = []string{`'{"b": {"c": null}, "a": [1, "ü😀"]}'`, `'[]'`, `'"\\u0000x"'`, `'{"n": 1.50, "s": "\\u00e9"}'`}

// createTypeTable creates and fills the table of every type on the source.
func (s *side) createTypeTable(t *testing.T, name string) *schema.Table {
	t.Helper()
	s.createEmptyTypeTable(t, name)
	s.fillTypeTable(t, name, 0)
	return loadTable(t, s.my, s.db, name)
}

// createEmptyTypeTable creates the table of every type.
func (s *side) createEmptyTypeTable(t *testing.T, name string) {
	t.Helper()
	var ddl strings.Builder
	fmt.Fprintf(&ddl, "CREATE TABLE `%s` (id INT PRIMARY KEY", name)
	for _, c := range corpusFor(s.env) {
		fmt.Fprintf(&ddl, ", `%s` %s", c.name, c.ddl)
	}
	ddl.WriteString(", j LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin CHECK (json_valid(j))) CHARACTER SET utf8mb4")
	s.mustMy(t, ddl.String())
}

// fillTypeTable inserts the corpus rows with ids from first on.
func (s *side) fillTypeTable(t *testing.T, name string, first int) {
	t.Helper()
	var ins strings.Builder
	fmt.Fprintf(&ins, "SET SESSION sql_mode = 'ALLOW_INVALID_DATES'; INSERT INTO `%s` VALUES ", name)
	for r := range corpusRows(corpusFor(s.env)) {
		if r > 0 {
			ins.WriteString(", ")
		}
		fmt.Fprintf(&ins, "(%d", first+r)
		for _, c := range corpusFor(s.env) {
			v := "NULL"
			if r < len(c.values) {
				v = c.values[r]
			}
			ins.WriteString(", " + v)
		}
		j := "NULL"
		if r < len(jsonValues) {
			j = jsonValues[r]
		}
		ins.WriteString(", " + j + ")")
	}
	s.mustMy(t, ins.String())
}

func (s *side) charsetOptions(t *testing.T) typemap.Options {
	t.Helper()
	cs, err := typemap.LoadCharsets(context.Background(), s.my)
	if err != nil {
		t.Fatal(err)
	}
	o := typemap.DefaultOptions()
	o.Charsets = cs
	return o
}

// TestVerifyFindsEveryDifference builds the target of the type table the
// way the snapshot does, requires verify to find it equal, then injects a
// missing row, an extra row, a changed value in every column (one ulp, one
// digit, one bit, one microsecond, one SET member, one JSON value, NULL
// becoming the empty string) and requires exactly those to be reported, repaired, and
// the table to verify equal afterwards.
func TestVerifyFindsEveryDifference(t *testing.T) { testenv.Flavors(t, testVerifyFindsEveryDifference) }

func testVerifyFindsEveryDifference(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_types")
	tb := s.createTypeTable(t, "types")
	opts := s.charsetOptions(t)
	s.snapshot(t, opts, "types")
	withOpts := func(chunk, fetch int) func(*Options) {
		return func(o *Options) {
			o.Mapper = typemap.New(opts, nil)
			o.ChunkRows, o.FetchRows = chunk, fetch
		}
	}

	rep := s.runVerify(t, []*schema.Table{tb}, withOpts(4, 2))
	if rep.Result != ResultEqual || rep.Tables[0].Rows != int64(corpusRows(corpusFor(s.env))) {
		t.Fatalf("fresh copy: result %s, rows %d (want equal, %d): %+v", rep.Result, rep.Tables[0].Rows, corpusRows(corpusFor(s.env)), rep.Tables[0])
	}

	tgt := verifydb.QuotePG(s.pgSchm) + ".types"
	want := []string{"types only_in_source id=1", "types only_in_target id=100"}
	s.mustPG(t, "DELETE FROM "+tgt+" WHERE id = 1")
	s.mustPG(t, "INSERT INTO "+tgt+" (id, dtn, tsn) VALUES (100, '2000-01-01', '2000-01-01 00:00:00+00')")
	for _, c := range corpusFor(s.env) {
		rows := make([]int, 0, len(c.near))
		for r := range c.near {
			if r != 1 {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		sort.Ints(rows)
		r := rows[0]
		s.mustPG(t, fmt.Sprintf("UPDATE %s SET %s = %s WHERE id = %d", tgt, verifydb.QuotePG(c.name), c.near[r], r))
		want = append(want, fmt.Sprintf("types differs id=%d %s", r, c.name))
	}
	s.mustPG(t, "UPDATE "+tgt+` SET j = '{"a": [1, "ü😀"], "b": {"c": false}}' WHERE id = 0`)
	s.mustPG(t, "UPDATE "+tgt+` SET j = '{"n": 1.5, "s": "e"}' WHERE id = 3`)
	want = append(want, "types differs id=0 j", "types differs id=3 j")

	for _, cf := range []struct{ chunk, fetch int }{{4, 2}, {1000, 1000}, {0, 0}} {
		rep = s.runVerify(t, []*schema.Table{tb}, withOpts(cf.chunk, cf.fetch))
		if rep.Result != ResultDifferences {
			t.Fatalf("chunk %d fetch %d: result %s, want differences", cf.chunk, cf.fetch, rep.Result)
		}
		sameLines(t, fmt.Sprintf("differences found (chunk %d, fetch %d)", cf.chunk, cf.fetch), found(rep), want)
	}

	// The report shows both values of a changed column.
	for _, d := range rep.Tables[0].Diffs {
		for _, c := range d.Columns {
			if c.Column == "dt6" && (c.Source != "2020-01-02 03:04:05.123456" || c.Target != "2020-01-02 03:04:05.123457") {
				t.Errorf("dt6 shown as %q vs %q", c.Source, c.Target)
			}
			if c.Column == "vc2" && (c.Source != "NULL" || c.Target != `""`) {
				t.Errorf("vc2 shown as %q vs %q", c.Source, c.Target)
			}
		}
	}

	rep = s.runVerify(t, []*schema.Table{tb}, func(o *Options) { withOpts(4, 2)(o); o.Repair = true })
	if tr := rep.Tables[0]; rep.Result != ResultEqual || tr.Result != ResultRepaired || tr.Repaired != tr.Differences() || tr.Repaired == 0 {
		t.Errorf("repair: result %s, table %s, repaired %d of %d: %v", rep.Result, tr.Result, tr.Repaired, tr.Differences(), found(rep))
	}
	rep = s.runVerify(t, []*schema.Table{tb}, withOpts(4, 2))
	if rep.Result != ResultEqual {
		t.Errorf("after repair: %s: %v", rep.Result, found(rep))
	}
}
