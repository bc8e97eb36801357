package checkpoint_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The state tables of the sluice before opaque positions, with one stream
// mid-replication: a checkpoint, its schema history and applied rows above it.
const legacyState = `
CREATE SCHEMA sluice;
CREATE TABLE sluice.checkpoint (stream text PRIMARY KEY, binlog_file text NOT NULL, binlog_pos bigint NOT NULL,
	gtid_set text NOT NULL DEFAULT '', flavor text NOT NULL DEFAULT '', schema_version bigint NOT NULL DEFAULT 0,
	source_time timestamptz, updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE sluice.schema_history (stream text NOT NULL, version bigint NOT NULL, database text NOT NULL,
	table_name text NOT NULL, definition jsonb, ddl text NOT NULL DEFAULT '', binlog_file text NOT NULL DEFAULT '',
	binlog_pos bigint NOT NULL DEFAULT 0, gtid_set text NOT NULL DEFAULT '', recorded_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, version, database, table_name));
CREATE TABLE sluice.applied (stream text NOT NULL, binlog_file text NOT NULL, binlog_pos bigint NOT NULL,
	files text[] NOT NULL, positions bigint[] NOT NULL, start_file text NOT NULL DEFAULT '',
	start_pos bigint NOT NULL DEFAULT 0, recorded_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, binlog_file, binlog_pos));
INSERT INTO sluice.checkpoint (stream, binlog_file, binlog_pos, gtid_set, flavor, schema_version)
	VALUES ('s1', 'mysql-bin.000042', 1000, '0-1-77', 'mariadb', 3);
INSERT INTO sluice.schema_history (stream, version, database, table_name, definition, binlog_file, binlog_pos, gtid_set)
	VALUES ('s1', 3, 'shop', 'orders', '{"Database":"shop","Name":"orders"}', 'mysql-bin.000042', 900, '0-1-75');
INSERT INTO sluice.applied (stream, binlog_file, binlog_pos, files, positions, start_file, start_pos)
	VALUES ('s1', 'mysql-bin.000042', 1300, '{mysql-bin.000042,mysql-bin.000042}', '{1200,1300}', 'mysql-bin.000041', 4);`

func TestLegacyStateIsConvertedInPlace(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, env.NewPGDatabase(t, "legacy"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, legacyState); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run finds nothing to convert
		if err := checkpoint.Ensure(ctx, pool); err != nil {
			t.Fatal(err)
		}
		if err := checkpoint.EnsureApplied(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	st, err := checkpoint.Load(ctx, pool, "s1", binlogpos.Decode)
	if err != nil {
		t.Fatal(err)
	}
	want := binlogpos.Position{File: "mysql-bin.000042", Pos: 1000, GTIDSet: "0-1-77", Flavor: "mariadb"}
	if st == nil || st.Position != model.Position(want) || st.SchemaVersion != 3 {
		t.Fatalf("checkpoint after conversion: %+v, want %v version 3", st, want)
	}
	tables, err := checkpoint.LoadSchema(ctx, pool, "s1", 3)
	if err != nil || len(tables) != 1 {
		t.Fatalf("schema history after conversion: %v, %v", tables, err)
	}
	var hist string
	if err := pool.QueryRow(ctx, `SELECT position FROM sluice.schema_history`).Scan(&hist); err != nil {
		t.Fatal(err)
	}
	if p, err := binlogpos.Parse(hist); err != nil || p.File != "mysql-bin.000042" || p.Pos != 900 || p.GTIDSet != "0-1-75" {
		t.Fatalf("schema history position %q → %+v, %v", hist, p, err)
	}
	rows, err := checkpoint.LoadApplied(ctx, pool, "s1", binlogpos.Decode)
	if err != nil || len(rows) != 1 {
		t.Fatalf("applied rows after conversion: %+v, %v", rows, err)
	}
	r := rows[0]
	if r.Last.Key() != "mysql-bin.000042:1300" || len(r.Ends) != 2 || r.Ends[0].Key() != "mysql-bin.000042:1200" ||
		r.Ends[1].Key() != "mysql-bin.000042:1300" || r.Start == nil || r.Start.Key() != "mysql-bin.000041:4" {
		t.Fatalf("applied row after conversion: %+v", r)
	}
	// The converted tables take new writes.
	if err := checkpoint.DeleteAppliedRows(ctx, pool, "s1", []model.Position{r.Last}); err != nil {
		t.Fatal(err)
	}
	next := binlogpos.Position{File: "mysql-bin.000043", Pos: 4, Flavor: "mariadb"}
	if err := checkpoint.Save(ctx, pool, "s1", checkpoint.State{Position: next, SchemaVersion: 3}); err != nil {
		t.Fatal(err)
	}
	if st, err := checkpoint.Load(ctx, pool, "s1", binlogpos.Decode); err != nil || st.Position != model.Position(next) {
		t.Fatalf("after save: %+v, %v", st, err)
	}
}
