package ddl_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

const planFixture = `
CREATE TABLE parent (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, code VARCHAR(20) NOT NULL,
  UNIQUE KEY code_uk (code)) AUTO_INCREMENT = 500;
CREATE TABLE child (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  parent_id INT UNSIGNED,
  qty INT NOT NULL DEFAULT 1,
  price DECIMAL(10,2) NOT NULL DEFAULT 0.00,
  total DECIMAL(20,2) AS (qty * price) STORED,
  half DECIMAL(20,4) AS (total / 2) VIRTUAL,
  label VARCHAR(40) AS (CONCAT(name, '#', qty)) VIRTUAL,
  weird INT AS (CRC32(name)) VIRTUAL,
  name VARCHAR(30) NOT NULL DEFAULT 'it''s',
  status ENUM('new','paid','it''s') NOT NULL DEFAULT 'new',
  flags SET('a','b','c') DEFAULT 'a,c',
  bits BIT(5) DEFAULT b'101',
  made DATE DEFAULT '0000-00-00',
  born DATE DEFAULT '2001-02-03',
  changed DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  stamped TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  dur TIME DEFAULT '-01:02:03',
  raw BINARY(3) DEFAULT 'ab',
  doc JSON,
  uid UUID DEFAULT uuid(),
  body TEXT,
  ` + "`Mixed Case`" + ` INT COMMENT 'it''s a comment',
  PRIMARY KEY (id),
  KEY prefix_ix (name(5), body(10)),
  UNIQUE KEY nullable_uk (parent_id, qty),
  KEY desc_ix (qty DESC, price),
  FULLTEXT KEY ft (body),
  CONSTRAINT child_parent_fk FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE,
  CONSTRAINT qty_pos CHECK (qty >= 0 AND qty < 1000000),
  CONSTRAINT weird_chk CHECK (CRC32(name) > 0)
) COMMENT 'child table';
INSERT INTO parent (code) VALUES ('a'), ('b');
`

func newMapper() *typemap.Mapper { return typemap.New(typemap.DefaultOptions(), nil) }

// TestCreateTablePlanRunsOnPostgres loads real tables from MariaDB, plans
// them and runs every phase on PostgreSQL, then checks the behaviour the plan
// promises: defaults, ENUM/SET checks, generated columns, ON UPDATE trigger
// (and its bypass for apply sessions), identity past AUTO_INCREMENT.
func TestCreateTablePlanRunsOnPostgres(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	c := createOnPostgres(t, env, "ddl_plan", planFixture, func(w string) { t.Logf("warning: %s", w) })
	dbName, n, pg, plans := c.db, c.naming, c.pg, c.plans
	run(t, pg, `INSERT INTO `+n.QTable(schema.TableID{Database: dbName, Name: "parent"})+` (id, code) VALUES (1, 'a'), (2, 'b')`)
	child := n.QTable(schema.TableID{Database: dbName, Name: "child"})
	run(t, pg, `INSERT INTO `+child+` (id, parent_id, qty, price, weird) VALUES (7, 1, 3, 2.50, 42)`)
	for _, p := range plans {
		for _, s := range append(append(p.PostData, p.ForeignKeys...), p.Finish...) {
			run(t, pg, s)
		}
	}
	checkChildRow(t, pg, child)
	checkPlanWarnings(t, plans)

	// Identity: next values continue past the copied max and the AUTO_INCREMENT.
	var id int64
	if err := pg.QueryRow(ctx, `INSERT INTO `+n.QTable(schema.TableID{Database: dbName, Name: "parent"})+
		` (code) VALUES ('c') RETURNING id`).Scan(&id); err != nil || id != 502 {
		t.Errorf("parent next id = %d, %v; want 502 (the source's next AUTO_INCREMENT: rows 500 and 501 exist there)", id, err)
	}
	var cid string
	if err := pg.QueryRow(ctx, `INSERT INTO `+child+` DEFAULT VALUES RETURNING id::text`).Scan(&cid); err != nil || cid != "8" {
		t.Errorf("child next id = %s, %v; want 8 (max + 1)", cid, err)
	}
	// Constraints: ENUM members, SET members, CHECK.
	for _, bad := range []string{
		`INSERT INTO ` + child + ` (status) VALUES ('nope')`,
		`INSERT INTO ` + child + ` (flags) VALUES ('a,x')`,
		`INSERT INTO ` + child + ` (qty) VALUES (-1)`,
		`INSERT INTO ` + child + ` (parent_id) VALUES (99)`,
	} {
		if _, err := pg.Exec(ctx, bad); err == nil {
			t.Errorf("%s: accepted, want a constraint violation", bad)
		}
	}
	checkOnUpdate(t, pg, child)
	checkExisting(t, pg, plans, n)
}

// created is a source database loaded by schema.Load and its tables
// created on PostgreSQL (CreateSchema and each plan's Create phase).
type created struct {
	db     string
	my     *sql.DB
	naming schema.Naming
	pg     *pgxpool.Pool
	plans  []*ddl.TablePlan
}

// createOnPostgres creates fixture in a new source database, loads it and
// runs the Create phase of its plans on PostgreSQL; each plan warning goes
// to warn.
func createOnPostgres(t *testing.T, env *testenv.Env, prefix, fixture string, warn func(string)) created {
	t.Helper()
	ctx := context.Background()
	c := created{db: env.NewDatabase(t, prefix)}
	c.my = env.MySQL(t, c.db)
	if _, err := c.my.ExecContext(ctx, fixture); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	f, _ := schema.NewFilter(nil, nil, c.db)
	cat, err := schema.Load(ctx, c.my, f)
	if err != nil {
		t.Fatal(err)
	}
	c.naming, _ = schema.NewNaming(nil)
	if c.plans, err = ddl.CreateTables(cat.Tables, newMapper(), c.naming); err != nil {
		t.Fatal(err)
	}
	c.pg = env.PG(t)
	run(t, c.pg, ddl.CreateSchema(c.db, c.naming))
	for _, p := range c.plans {
		for _, w := range p.Warnings {
			warn(w)
		}
		for _, s := range p.Create {
			t.Log(s)
			run(t, c.pg, s)
		}
	}
	return c
}

func run(t *testing.T, pg *pgxpool.Pool, stmt string) {
	t.Helper()
	if _, err := pg.Exec(context.Background(), stmt); err != nil {
		t.Fatalf("%s\n→ %v", stmt, err)
	}
}

func checkChildRow(t *testing.T, pg *pgxpool.Pool, child string) {
	t.Helper()
	var total, half, label, name, status, flags, bits, born, dur, raw string
	var made *string
	var uidSet bool
	err := pg.QueryRow(context.Background(), `SELECT total::text, half::text, label, name, status, flags, bits::text,
		made::text, born::text, dur::text, encode(raw, 'hex'), uid IS NOT NULL FROM `+child+` WHERE id = 7`).
		Scan(&total, &half, &label, &name, &status, &flags, &bits, &made, &born, &dur, &raw, &uidSet)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{total, half, label, name, status, flags, bits, born, dur, raw}
	want := []string{"7.50", "3.7500", "it's#3", "it's", "new", "a,c", "00101", "2001-02-03", "-01:02:03", "616200"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("child row = %q\nwant        %q", got, want)
	}
	if made != nil || !uidSet {
		t.Errorf("zero-date default should be dropped (got %v), uuid default set (got %v)", made, uidSet)
	}
}

func checkPlanWarnings(t *testing.T, plans []*ddl.TablePlan) {
	t.Helper()
	var all string
	for _, p := range plans {
		all += strings.Join(p.Warnings, "\n") + "\n"
	}
	for _, want := range []string{
		"child.weird: generated column expression crc32(`name`)", // untranslatable: plain column
		"child.half: VIRTUAL generated column becomes STORED",
		"child.made: default dropped: zero date",
		"index prefix_ix has prefix key parts (name(5), body(10))",
		"FULLTEXT index ft becomes GIN index",
		"CHECK constraint weird_chk",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings lack %q:\n%s", want, all)
		}
	}
}

// checkOnUpdate: an ordinary UPDATE moves the ON UPDATE columns; one that
// sets them keeps the given value; an apply session keeps everything.
func checkOnUpdate(t *testing.T, pg *pgxpool.Pool, child string) {
	t.Helper()
	ctx := context.Background()
	run(t, pg, `UPDATE `+child+` SET changed = '2000-01-01', stamped = '2000-01-01Z' WHERE id = 7`)
	var changed, stamped string
	read := func() {
		if err := pg.QueryRow(ctx, `SELECT changed::text, (stamped AT TIME ZONE 'UTC')::text FROM `+child+` WHERE id = 7`).
			Scan(&changed, &stamped); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if changed != "2000-01-01 00:00:00" || stamped != "2000-01-01 00:00:00" {
		t.Errorf("explicit set: changed=%s stamped=%s, want both 2000-01-01 00:00:00", changed, stamped)
	}
	run(t, pg, `UPDATE `+child+` SET qty = 4 WHERE id = 7`)
	read()
	if strings.HasPrefix(changed, "2000") || strings.HasPrefix(stamped, "2000") {
		t.Errorf("row change did not move ON UPDATE columns: changed=%s stamped=%s", changed, stamped)
	}
	tx, err := pg.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL "+ddl.ApplySetting+" = 'on'"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE `+child+` SET qty = 5, changed = '1999-01-01' WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE `+child+` SET qty = 6 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, `SELECT changed::text FROM `+child+` WHERE id = 7`).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	if changed != "1999-01-01 00:00:00" {
		t.Errorf("apply session: changed=%s, want the replicated 1999-01-01 00:00:00", changed)
	}
}

func checkExisting(t *testing.T, pg *pgxpool.Pool, plans []*ddl.TablePlan, n schema.Naming) {
	t.Helper()
	ctx := context.Background()
	p := plans[0]
	exists, err := ddl.CheckExisting(ctx, pg, p, n)
	if !exists || err != nil {
		t.Errorf("CheckExisting(same table) = %v, %v; want true, nil", exists, err)
	}
	other := *p
	other.Columns = append([]ddl.PlannedColumn{}, p.Columns...)
	other.Columns[len(other.Columns)-1].PGType = "bigint"
	exists, err = ddl.CheckExisting(ctx, pg, &other, n)
	if !exists || err == nil || !strings.Contains(err.Error(), "--drop-existing") {
		t.Errorf("CheckExisting(other columns) = %v, %v; want an error suggesting --drop-existing", exists, err)
	}
	for _, s := range ddl.DropTable(p.Table.TableID, n) {
		run(t, pg, s)
	}
	if exists, err := ddl.CheckExisting(ctx, pg, p, n); exists || err != nil {
		t.Errorf("CheckExisting(after drop) = %v, %v; want false, nil", exists, err)
	}
	var pgErr *pgconn.PgError
	_, err = pg.Exec(ctx, "SELECT 1 FROM "+p.QName)
	if !errors.As(err, &pgErr) || pgErr.Code != "42P01" {
		t.Errorf("table still there after DropTable: %v", err)
	}
	_ = pgx.Identifier{}
}
