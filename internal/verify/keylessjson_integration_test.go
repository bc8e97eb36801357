package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// keylessJSONFixture is a keyless table with two JSON columns, duplicate
// rows and NULL documents.
const keylessJSONFixture = `
CREATE TABLE nj (a INT, j JSON, k JSON);
INSERT INTO nj VALUES
  (1, '{"x": 1, "y": [2, "é"]}', NULL), (1, '{"x": 1, "y": [2, "é"]}', NULL),
  (2, '[1, 2.5, null]', '{"b": true}'), (3, NULL, NULL), (4, '"text"', '{"a": {"b": [1]}}'),
  (5, '{"x": 1}', '{}'), (5, '{"x": 1}', '{}'), (5, '{"x": 1}', '{}');`

// damageKeylessJSON damages the target copy of nj through run (one SQL
// statement per call): a missing copy of a duplicated row, an extra copy
// of a row the source has three of, a changed document, a NULL turned
// into a document, and a row the source does not have.
func damageKeylessJSON(run func(string), table string, deleteOne func(where string) string) {
	run(deleteOne("a = 1"))
	run("INSERT INTO " + table + " VALUES (5, '{\"x\": 1}', '{}')")
	run("UPDATE " + table + " SET j = '[1, 2.5, 7]' WHERE a = 2")
	run("UPDATE " + table + " SET j = '{}' WHERE a = 3")
	run("INSERT INTO " + table + " VALUES (9, '{\"extra\": 1}', NULL)")
}

// TestVerifyRepairKeylessJSON: damaged rows of a keyless table with JSON
// columns are found and repaired (rows selected by their stored JSON text):
// duplicates come back to their counts, one of two identical rows is
// deleted, and the target then holds the source's documents row for row,
// by --repair and by a --repair-sql script run with psql semantics.
func TestVerifyRepairKeylessJSON(t *testing.T) { testenv.Flavors(t, testVerifyRepairKeylessJSON) }

func testVerifyRepairKeylessJSON(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_kjson")
	s.mustMy(t, keylessJSONFixture)
	nj := loadTable(t, s.my, s.db, "nj")
	s.snapshot(t, typemap.DefaultOptions(), "nj")
	tables := []*schema.Table{nj}
	wantResult(t, "fresh copy", s.runVerify(t, tables, nil), ResultEqual)
	table := verifydb.QuotePG(s.pgSchm) + ".nj"
	damage := func() {
		damageKeylessJSON(func(q string) { s.mustPG(t, q) }, table, func(where string) string {
			return "DELETE FROM " + table + " WHERE ctid = (SELECT ctid FROM " + table + " WHERE " + where + " LIMIT 1)"
		})
	}
	damage()
	rep := s.runVerify(t, tables, nil)
	if tr := rep.Tables[0]; tr.OnlyInSource != 3 || tr.OnlyInTarget != 4 {
		t.Fatalf("damaged: %d only in source, %d only in target; want 3 and 4", tr.OnlyInSource, tr.OnlyInTarget)
	}
	rep = s.runVerify(t, tables, func(o *Options) { o.Repair = true })
	wantResult(t, "repair", rep, ResultEqual)
	if rep.Tables[0].Repaired != 7 {
		t.Errorf("repaired %d rows, want 7", rep.Tables[0].Repaired)
	}
	wantResult(t, "after repair", s.runVerify(t, tables, nil), ResultEqual)
	s.sameJSONRows(t, table)

	damage()
	var script bytes.Buffer
	wantResult(t, "repair-sql", s.runVerify(t, tables, func(o *Options) { o.RepairSQL = &script }), ResultDifferences)
	if _, err := s.pg.Exec(context.Background(), script.String()); err != nil {
		t.Fatalf("repair script: %v\n%s", err, script.String())
	}
	wantResult(t, "after the script", s.runVerify(t, tables, nil), ResultEqual)
	s.sameJSONRows(t, table)
}

// sameJSONRows compares the rows of nj on both sides, documents parsed.
func (s *side) sameJSONRows(t *testing.T, pgTable string) {
	t.Helper()
	var src, tgt []string
	rows, err := s.my.Query("SELECT a, j, k FROM nj")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a int
		var j, k *string
		if err := rows.Scan(&a, &j, &k); err != nil {
			t.Fatal(err)
		}
		src = append(src, jsonRowLine(t, a, j, k))
	}
	rows.Close()
	prow, err := s.pg.Query(context.Background(), "SELECT a, j::text, k::text FROM "+pgTable)
	if err != nil {
		t.Fatal(err)
	}
	for prow.Next() {
		var a int
		var j, k *string
		if err := prow.Scan(&a, &j, &k); err != nil {
			t.Fatal(err)
		}
		tgt = append(tgt, jsonRowLine(t, a, j, k))
	}
	prow.Close()
	sort.Strings(src)
	sort.Strings(tgt)
	if strings.Join(src, "\n") != strings.Join(tgt, "\n") {
		t.Errorf("rows differ:\nsource:\n  %s\ntarget:\n  %s", strings.Join(src, "\n  "), strings.Join(tgt, "\n  "))
	}
}

// jsonRowLine prints a row with its documents re-encoded (key order and
// spacing as encoding/json writes them).
func jsonRowLine(t *testing.T, a int, docs ...*string) string {
	t.Helper()
	out := fmt.Sprint(a)
	for _, d := range docs {
		if d == nil {
			out += " NULL"
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(*d), &v); err != nil {
			t.Fatalf("document %q: %v", *d, err)
		}
		b, _ := json.Marshal(v)
		out += " " + string(b)
	}
	return out
}

// TestMySQLTargetRepairKeylessJSON: the same repair into a MySQL/MariaDB
// target, where the rows are selected by their JSON bytes; the target then
// holds the source's bytes.
func TestMySQLTargetRepairKeylessJSON(t *testing.T) {
	s := newMySide(t, testenv.Get(t), "vmy_kjson")
	s.both(t, keylessJSONFixture)
	tables := s.tables(t, "nj")
	wantResult(t, "equal tables", s.verify(t, tables, nil), ResultEqual)
	damage := func() {
		damageKeylessJSON(func(q string) { s.mustTgt(t, q) }, "nj", func(where string) string {
			return "DELETE FROM nj WHERE " + where + " LIMIT 1"
		})
	}
	damage()
	rep := s.verify(t, tables, nil)
	if tr := rep.Tables[0]; tr.OnlyInSource != 3 || tr.OnlyInTarget != 4 {
		t.Fatalf("damaged: %d only in source, %d only in target; want 3 and 4", tr.OnlyInSource, tr.OnlyInTarget)
	}
	wantResult(t, "repair", s.verify(t, tables, func(o *Options) { o.Repair = true }), ResultEqual)
	wantResult(t, "after repair", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)

	damage()
	var script bytes.Buffer
	wantResult(t, "repair-sql", s.verify(t, tables, func(o *Options) { o.RepairSQL = &script }), ResultDifferences)
	s.mustTgt(t, script.String())
	wantResult(t, "after the script", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)
}
