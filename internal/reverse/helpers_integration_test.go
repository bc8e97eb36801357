package reverse

import (
	"context"
	"database/sql"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// rig is a MySQL database copied into PostgreSQL by sluice snapshot (the
// forward migration), and the reverse stream of it back into the same
// MySQL database.
type rig struct {
	t      *testing.T
	env    *testenv.Env
	db     string
	my     *sql.DB
	pg     *pgxpool.Pool
	stream string
	// filter adapts the SQL a test writes to the flavor (nil: as it is).
	filter func(string) string
	// schema is the PostgreSQL schema of the copy ("" = the database's name).
	schema string
	// naming are the forward stream's --identifiers and --rename.
	naming schema.NamingOptions
}

func (g *rig) pgSchema() string {
	if g.schema != "" {
		return g.schema
	}
	return g.db
}

func newRig(t *testing.T, prefix string, ddl ...string) *rig {
	t.Helper()
	return newRigOn(t, testenv.Get(t), prefix, ddl...)
}

// newRigOn is newRig on a given source flavor (MariaDB or MySQL 9.7).
func newRigOn(t *testing.T, env *testenv.Env, prefix string, ddl ...string) *rig {
	t.Helper()
	db := env.NewDatabase(t, prefix)
	g := &rig{t: t, env: env, db: db, my: env.MySQL(t, db), pg: env.PG(t), stream: testenv.UniqueName("rv")}
	g.mysql(ddl...)
	t.Cleanup(func() {
		ctx := context.Background()
		if c, err := pgx.Connect(ctx, env.PGAdminURL()); err == nil {
			_ = logical.Disarm(ctx, c, g.stream)
			_ = c.Close(ctx)
		}
		_ = mysqlstate.Delete(ctx, g.my, g.stream)
		_, _ = g.my.Exec("DELETE FROM sluice.applied WHERE stream = ?", g.stream)
		_, _ = g.my.Exec("DELETE FROM sluice.schema_history WHERE stream = ?", g.stream)
	})
	return g
}

func (g *rig) mysql(stmts ...string) {
	g.t.Helper()
	for _, s := range stmts {
		if g.filter != nil {
			s = g.filter(s)
		}
		if _, err := g.my.Exec(s); err != nil {
			g.t.Fatalf("MySQL %s: %v", s, err)
		}
	}
}

func (g *rig) postgres(stmts ...string) {
	g.t.Helper()
	ctx := context.Background()
	for _, s := range stmts {
		if g.filter != nil {
			s = g.filter(s)
		}
		if _, err := g.pg.Exec(ctx, "SET search_path = "+pgx.Identifier{g.pgSchema()}.Sanitize()+"; "+s); err != nil {
			g.t.Fatalf("PostgreSQL %s: %v", s, err)
		}
	}
}

// snapshot is the forward migration MySQL → PostgreSQL.
func (g *rig) snapshot() {
	g.t.Helper()
	src, err := config.ParseSource(g.env.SourceURL(g.db))
	if err != nil {
		g.t.Fatal(err)
	}
	dst, err := config.ParseTarget(g.env.TargetURL())
	if err != nil {
		g.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	so := snapshot.Options{Source: src, Target: pgsink.NewEngine(dst), Include: []string{g.db},
		Stream: g.stream + "_fwd", Workers: 2, Log: testenv.Logger()}
	if g.schema != "" {
		so.SchemaMap = []string{g.db + "=" + g.schema}
	}
	so.Identifiers, so.Renames = g.naming.Identifiers, g.naming.Renames
	if _, err := snapshot.Run(ctx, so); err != nil {
		g.t.Fatalf("snapshot: %v", err)
	}
	g.t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied"} {
			_, _ = g.pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", g.stream+"_fwd")
		}
	})
}

func (g *rig) options() Options {
	g.t.Helper()
	src, err := config.ParseTarget(g.env.TargetURL())
	if err != nil {
		g.t.Fatal(err)
	}
	dst, err := config.ParseSource(g.env.MySQLAdminURL(g.db))
	if err != nil {
		g.t.Fatal(err)
	}
	naming, err := schema.NewNamingOptions(g.naming)
	if err != nil {
		g.t.Fatal(err)
	}
	// No cut-over armed a slot: the first run creates it at the current LSN.
	return Options{Source: src, Target: dst, Schema: g.schema, Naming: naming, Stream: g.stream, Workers: 4, UntilCaughtUp: true, StartAtCurrentLSN: true,
		StatusEvery: time.Second, Log: testenv.Logger()}
}

// run runs the reverse stream until it has caught up.
func (g *rig) run(o Options) error {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	err := Run(ctx, o)
	if ctx.Err() != nil {
		g.t.Fatalf("reverse did not catch up in time (%v)", err)
	}
	return err
}

func (g *rig) catchUp() {
	g.t.Helper()
	if err := g.run(g.options()); err != nil {
		g.t.Fatalf("reverse: %v", err)
	}
}

// rows reads a table as hex text per column, ordered.
func (g *rig) rows(table string, cols []string, order string) []string {
	g.t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = fmt.Sprintf("COALESCE(HEX(CAST(`%s` AS BINARY)), 'NULL')", c)
	}
	q := "SELECT CONCAT_WS('|', " + strings.Join(exprs, ", ") + ") FROM `" + table + "` ORDER BY " + order
	var out []string
	for _, r := range testenv.MySQLTexts(g.t, g.my, q) {
		out = append(out, r[0].String)
	}
	return out
}
