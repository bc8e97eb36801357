package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/target"
)

// pgSide is a PostgreSQL server: a forward stream's target (schema sluice,
// the way back's slot) or a reverse stream's source (its slot).
type pgSide struct {
	conn  *pgx.Conn
	where string
}

// DropName is the redacted URL (target.Dropper).
func (e engine) DropName() string { return e.cfg.Redacted() }

// ConnectDrop connects to the server whose sluice state `sluice drop`
// lists and removes (target.Dropper).
func (e engine) ConnectDrop(ctx context.Context, where string) (target.DropSide, error) {
	conn, err := pgx.Connect(ctx, e.cfg.ConnString())
	if err != nil {
		return nil, fmt.Errorf("%s: cannot connect: %w", where, err)
	}
	return &pgSide{conn: conn, where: where}, nil
}

func (s *pgSide) Close() { s.conn.Close(context.Background()) }

// stateTables are sluice's tables with a stream column (and whether they
// have a reverse_stream column too), whatever sluice version made them.
func (s *pgSide) stateTables(ctx context.Context) (map[string]bool, error) {
	rows, err := s.conn.Query(ctx, `SELECT c.relname, a.attname FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attname IN ('stream', 'reverse_stream') AND NOT a.attisdropped`, checkpoint.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: list sluice's tables: %w", s.where, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			return nil, err
		}
		out[table] = out[table] || col == "reverse_stream"
	}
	return out, rows.Err()
}

func (s *pgSide) Streams(ctx context.Context) ([]string, error) {
	tables, err := s.stateTables(ctx)
	if err != nil {
		return nil, err
	}
	var parts []string
	for t := range tables {
		parts = append(parts, "SELECT stream::text FROM "+pgx.Identifier{checkpoint.Schema, t}.Sanitize())
	}
	parts = append(parts, `SELECT 'slot ' || slot_name FROM pg_replication_slots WHERE slot_name LIKE 'sluice\_%' AND database = current_database()`)
	rows, err := s.conn.Query(ctx, strings.Join(parts, " UNION "))
	if err != nil {
		return nil, fmt.Errorf("%s: list the streams: %w", s.where, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (s *pgSide) ReverseStream(ctx context.Context, stream string) (string, error) {
	b, err := checkpoint.LoadCutover(ctx, s.conn, stream)
	if b == nil {
		return "", err
	}
	return b.ReverseStream, err
}

func (s *pgSide) Running(ctx context.Context, streams []string) (string, error) {
	for _, n := range streams {
		hs, err := checkpoint.StreamHolders(ctx, s.conn, n)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.where, err)
		}
		if len(hs) > 0 {
			return fmt.Sprintf("stream %q is being replicated into the %s by %s", n, s.where, checkpoint.Describe(hs)), nil
		}
		var pid int32
		var client, app string
		err = s.conn.QueryRow(ctx, `SELECT s.active_pid, coalesce(a.client_addr::text, 'local'), coalesce(a.application_name, '')
			FROM pg_replication_slots s LEFT JOIN pg_stat_activity a ON a.pid = s.active_pid
			WHERE s.slot_name = $1 AND s.database = current_database() AND s.active`, logical.SlotName(n)).Scan(&pid, &client, &app)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("%s: read slot %s: %w", s.where, logical.SlotName(n), err)
		}
		return fmt.Sprintf("stream %q is running: its slot %s on the %s is in use by PostgreSQL backend %d from %s (%s)",
			n, logical.SlotName(n), s.where, pid, client, app), nil
	}
	return "", nil
}

func (s *pgSide) Plan(ctx context.Context, streams []string) ([]target.DropItem, error) {
	items, err := s.planRows(ctx, streams)
	if err != nil {
		return nil, err
	}
	for _, n := range streams {
		more, err := s.planLogical(ctx, n)
		if err != nil {
			return nil, err
		}
		items = append(items, more...)
	}
	return items, nil
}

// planRows lists the streams' rows in sluice's tables.
func (s *pgSide) planRows(ctx context.Context, streams []string) ([]target.DropItem, error) {
	tables, err := s.stateTables(ctx)
	if err != nil {
		return nil, err
	}
	var items []target.DropItem
	for _, t := range slices.Sorted(maps.Keys(tables)) {
		where := "stream = ANY($1)"
		if tables[t] {
			where += " OR reverse_stream = ANY($1)"
		}
		name := pgx.Identifier{checkpoint.Schema, t}.Sanitize()
		var n int64
		if err := s.conn.QueryRow(ctx, "SELECT count(*) FROM "+name+" WHERE "+where, streams).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: count the streams' rows in %s: %w", s.where, name, err)
		}
		if n == 0 {
			continue
		}
		items = append(items, target.DropItem{What: fmt.Sprintf("%s of %s.%s", target.Plural(n, "row"), checkpoint.Schema, t),
			Remove: func(ctx context.Context) error {
				_, err := s.conn.Exec(ctx, "DELETE FROM "+name+" WHERE "+where, streams)
				return err
			}})
	}
	return items, nil
}

// planLogical lists the stream's slot and publication in this database and
// the replication origins its forward apply sessions left.
func (s *pgSide) planLogical(ctx context.Context, stream string) ([]target.DropItem, error) {
	slot, pub := logical.SlotName(stream), logical.PublicationName(stream)
	var items []target.DropItem
	slots, err := logical.Slots(ctx, s.conn, []string{slot})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	for _, sl := range slots {
		what := "replication slot " + sl.Name
		if sl.RetainedBytes != nil {
			what += " (retains " + logical.HumanSize(*sl.RetainedBytes) + " of WAL)"
		}
		items = append(items, target.DropItem{What: what, Remove: func(ctx context.Context) error {
			_, err := s.conn.Exec(ctx, `SELECT pg_drop_replication_slot($1)`, slot)
			return err
		}})
	}
	var hasPub bool
	if err := s.conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_publication WHERE pubname = $1)`, pub).Scan(&hasPub); err != nil {
		return nil, fmt.Errorf("%s: read publication %s: %w", s.where, pub, err)
	}
	if hasPub {
		items = append(items, target.DropItem{What: "publication " + pub, Remove: func(ctx context.Context) error {
			_, err := s.conn.Exec(ctx, "DROP PUBLICATION IF EXISTS "+pgx.Identifier{pub}.Sanitize())
			return err
		}})
	}
	first := logical.ForwardOrigin(stream, 0)
	rows, err := s.conn.Query(ctx, `SELECT roname FROM pg_replication_origin WHERE roname = $1 OR starts_with(roname, $1 || '#') ORDER BY roname`, first)
	if err != nil {
		return nil, fmt.Errorf("%s: read the replication origins: %w", s.where, err)
	}
	origins, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("%s: read the replication origins: %w", s.where, err)
	}
	if len(origins) > 0 {
		items = append(items, target.DropItem{What: "replication origins " + strings.Join(origins, ", "), Remove: func(ctx context.Context) error {
			for _, o := range origins {
				if _, err := s.conn.Exec(ctx, `SELECT pg_replication_origin_drop($1)`, o); err != nil {
					return err
				}
			}
			return nil
		}})
	}
	return items, nil
}
