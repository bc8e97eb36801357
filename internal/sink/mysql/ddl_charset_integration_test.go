package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// TestDDLTextInItsClientCharset: a replayed schema change's string literals
// are read in the source session's character_set_client, not as binary
// (found by the shop scenario into a MySQL target: ADD COLUMN ... latin1
// DEFAULT 'Café €5' filled the existing rows with "CafÃ© â‚¬5"). The apply
// session is binary again afterwards. A non-ASCII statement whose charset
// the binlog does not give is refused.
func TestDDLTextInItsClientCharset(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY)")
	f.exec("INSERT INTO `" + f.name + "`.t VALUES (1)")
	sess := f.ddlSession(ctx)

	ddl := func(pos uint32, version int64, collation uint16, q string, cols ...string) error {
		p := binlogpos.Position{File: "bin.000001", Pos: pos}
		return sess.ApplyDDL(ctx, &model.Txn{End: p, DDL: &model.DDL{Database: "app", Statement: q, ClientCollation: collation,
			PG: []string{q}, Version: version, Tables: []*schema.Table{table(cols...)}}}, checkpoint.State{Position: p, SchemaVersion: version})
	}
	// utf8mb4_general_ci (45), as the Go driver and the mysql client write.
	if err := ddl(200, 2, 45, "ALTER TABLE t ADD COLUMN l VARCHAR(20) CHARACTER SET latin1 DEFAULT 'Café €5', "+
		"ADD COLUMN u VARCHAR(20) CHARACTER SET utf8mb4 DEFAULT 'Ελλάδα 😀'", "id", "l", "u"); err != nil {
		t.Fatal(err)
	}
	// MySQL 8's utf8mb4_0900_ai_ci (255), unknown to MariaDB.
	if err := ddl(300, 3, 255, "ALTER TABLE t ADD COLUMN m VARCHAR(20) CHARACTER SET latin1 DEFAULT 'Straße'", "id", "l", "u", "m"); err != nil {
		t.Fatal(err)
	}
	var l, u, m string
	if err := f.admin.QueryRow("SELECT HEX(l), HEX(u), HEX(m) FROM `"+f.name+"`.t WHERE id = 1").Scan(&l, &u, &m); err != nil {
		t.Fatal(err)
	}
	if want := "436166E9208035"; l != want { // latin1 (cp1252): é E9, € 80
		t.Errorf("latin1 default: %s, want %s", l, want)
	}
	if want := strings.ToUpper("ce95cebbcebbceacceb4ceb120f09f9880"); u != want {
		t.Errorf("utf8mb4 default: %s, want %s", u, want)
	}
	if want := "53747261DF65"; m != want {
		t.Errorf("latin1 default from a MySQL 8 session: %s, want %s", m, want)
	}
	// ASCII expressions run as text too (found by the Nextcloud scenario's
	// quirks table): in the binary session a table copy filled the existing
	// rows with LOWER('ALL') = 'ALL'. Without the source's charset, ASCII
	// runs in utf8mb4.
	if err := ddl(350, 4, 45, "ALTER TABLE t ADD COLUMN g VARCHAR(20) NOT NULL DEFAULT (LOWER('ALL')), ALGORITHM=COPY", "id", "l", "u", "m", "g"); err != nil {
		t.Fatal(err)
	}
	if err := ddl(360, 5, 0, "ALTER TABLE t ADD COLUMN h VARCHAR(20) NOT NULL DEFAULT (CONCAT(LOWER('AB'), 'c')), ALGORITHM=COPY", "id", "l", "u", "m", "g", "h"); err != nil {
		t.Fatal(err)
	}
	var g, h string
	if err := f.admin.QueryRow("SELECT g, h FROM `"+f.name+"`.t WHERE id = 1").Scan(&g, &h); err != nil || g != "all" || h != "abc" {
		t.Errorf("expression defaults of the existing row: %q, %q (%v), want \"all\", \"abc\"", g, h, err)
	}
	var cs string
	if err := sess.conn.QueryRowContext(ctx, "SELECT @@character_set_client").Scan(&cs); err != nil || cs != "binary" {
		t.Errorf("apply session after the schema change: character_set_client %q (%v), want binary", cs, err)
	}
	// Unknown charset: refused, not guessed.
	if err := ddl(400, 6, 0, "ALTER TABLE t ADD COLUMN n VARCHAR(20) DEFAULT 'é'", "id", "l", "u", "m", "g", "h", "n"); err == nil ||
		!strings.Contains(err.Error(), "--skip-ddl") {
		t.Errorf("a non-ASCII schema change without its charset: %v, want a refusal naming --skip-ddl", err)
	}
	// MariaDB 11's default utf8mb4_uca1400_ai_ci (2304): the client collation of every session
	// of an 11.8 source (found by the fuzz test, MariaDB 11.8 into a MariaDB target). MariaDB
	// 10.10+ lists its id only in COLLATION_CHARACTER_SET_APPLICABILITY.
	if err := ddl(500, 6, 2304, "ALTER TABLE t ADD COLUMN o VARCHAR(20) CHARACTER SET latin1 DEFAULT 'Ünïcode'", "id", "l", "u", "m", "g", "h", "o"); err != nil {
		t.Fatalf("a schema change written in utf8mb4_uca1400_ai_ci: %v", err)
	}
	var o string
	if err := f.admin.QueryRow("SELECT HEX(o) FROM `" + f.name + "`.t WHERE id = 1").Scan(&o); err != nil || o != "DC6EEF636F6465" {
		t.Errorf("latin1 default from a MariaDB 11 session: %s (%v), want DC6EEF636F6465", o, err)
	}
}

// TestDDLSessionCharsetCollations: a MariaDB 11 session's CHARACTER SET utf8mb4 (no COLLATE)
// means its character_set_collations' utf8mb4_uca1400_ai_ci, which the binlog logs with the
// statement; replayed as written, a MariaDB 10.11 target gave the column its own default,
// utf8mb4_general_ci (the fuzz test, 11.8 into 10.11). The collation is written out.
func TestDDLSessionCharsetCollations(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.exec("CREATE TABLE `" + f.name + "`.t (id INT PRIMARY KEY)")
	sess := f.ddlSession(ctx)
	q := "ALTER TABLE t ADD COLUMN e ENUM('ü') CHARACTER SET utf8mb4, ADD COLUMN w VARCHAR(5) CHARACTER SET utf16, " +
		"ADD COLUMN b VARCHAR(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, ADD COLUMN l VARCHAR(5) CHARACTER SET latin1"
	p := binlogpos.Position{File: "bin.000001", Pos: 200}
	// As MariaDB 11.8 logged it: utf8mb3, ucs2, utf8mb4, utf16, utf32 to their uca1400_ai_ci.
	pairs := [][2]uint16{{33, 2048}, {35, 2560}, {45, 2304}, {54, 2816}, {60, 3072}}
	if err := sess.ApplyDDL(ctx, &model.Txn{End: p, DDL: &model.DDL{Database: "app", Statement: q, ClientCollation: 2304,
		CharsetCollations: pairs, PG: []string{q}, Version: 2, Tables: []*schema.Table{table("id", "e", "w", "b", "l")}}},
		checkpoint.State{Position: p, SchemaVersion: 2}); err != nil {
		t.Fatal(err)
	}
	rows, err := f.admin.Query("SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND COLUMN_NAME <> 'id' ORDER BY ORDINAL_POSITION", f.name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[string]string{"e": "utf8mb4_uca1400_ai_ci", "w": "utf16_uca1400_ai_ci", "b": "utf8mb4_bin", "l": "latin1_swedish_ci"}
	n := 0
	for rows.Next() {
		var c, coll string
		if err := rows.Scan(&c, &coll); err != nil {
			t.Fatal(err)
		}
		n++
		if coll != want[c] {
			t.Errorf("column %s: collation %s, want %s", c, coll, want[c])
		}
	}
	if n != len(want) {
		t.Errorf("%d columns, want %d", n, len(want))
	}
}

// ddlSession is an apply session of the fixture's stream at schema version 1 (table t: id) at
// bin.000001:100, for schema changes from there.
func (f *fixture) ddlSession(ctx context.Context) *session {
	t := f.t
	t.Helper()
	p0 := binlogpos.Position{File: "bin.000001", Pos: 100}
	if err := EnsureState(ctx, f.admin, ""); err != nil {
		t.Fatal(err)
	}
	if err := mysqlstate.SaveSchema(ctx, f.admin, f.stream, 1, p0, "", []*schema.Table{table("id")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := mysqlstate.Save(ctx, f.admin, f.stream, checkpoint.State{Position: p0, SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}
	return f.session(ctx)
}
