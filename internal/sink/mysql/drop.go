package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// mySide is a MySQL/MariaDB server: a MySQL target's state (database
// sluice), or a forward stream's source (its cut-over record, the way
// back's state).
type mySide struct {
	db    *sql.DB
	where string
}

// DropName is the redacted URL (target.Dropper).
func (e engine) DropName() string { return e.cfg.Redacted() }

// ConnectDrop connects to the server whose sluice state `sluice drop`
// lists and removes (target.Dropper).
func (e engine) ConnectDrop(ctx context.Context, where string) (target.DropSide, error) {
	db, err := e.cfg.OpenDB()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: cannot connect: %w", where, err)
	}
	return &mySide{db: db, where: where}, nil
}

func (s *mySide) Close() { s.db.Close() }

// stateTables are the tables of database sluice with a stream column (and
// whether they have a reverse_stream column too).
func (s *mySide) stateTables(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.TABLE_NAME, c.COLUMN_NAME FROM information_schema.COLUMNS c
		JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
		WHERE c.TABLE_SCHEMA = 'sluice' AND t.TABLE_TYPE = 'BASE TABLE' AND c.COLUMN_NAME IN ('stream', 'reverse_stream')`)
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
		out[table] = out[table] || strings.EqualFold(col, "reverse_stream")
	}
	return out, rows.Err()
}

func (s *mySide) Streams(ctx context.Context) ([]string, error) {
	tables, err := s.stateTables(ctx)
	if err != nil || len(tables) == 0 {
		return nil, err
	}
	var parts []string
	for t := range tables {
		parts = append(parts, "SELECT CONVERT(stream USING utf8mb4) FROM sluice."+schema.QuoteMySQL(t))
	}
	rows, err := s.db.QueryContext(ctx, strings.Join(parts, " UNION "))
	if err != nil {
		return nil, fmt.Errorf("%s: list the streams: %w", s.where, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (s *mySide) ReverseStream(ctx context.Context, stream string) (string, error) {
	b, err := mysqlstate.LoadCutover(ctx, s.db, stream)
	if b == nil {
		return "", err
	}
	return b.ReverseStream, err
}

func (s *mySide) Running(ctx context.Context, streams []string) (string, error) {
	for _, n := range streams {
		who, err := Replicator(ctx, s.db, n)
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.where, err)
		}
		if who != "" {
			return fmt.Sprintf("stream %q is being replicated into the %s by the sluice on %s", n, s.where, who), nil
		}
	}
	return "", nil
}

func (s *mySide) Plan(ctx context.Context, streams []string) ([]target.DropItem, error) {
	tables, err := s.stateTables(ctx)
	if err != nil {
		return nil, err
	}
	args := make([]any, len(streams))
	marks := make([]string, len(streams))
	for i, n := range streams {
		args[i], marks[i] = n, "?"
	}
	in := "(" + strings.Join(marks, ", ") + ")"
	var items []target.DropItem
	for _, t := range slices.Sorted(maps.Keys(tables)) {
		where, targs := "stream IN "+in, args
		if tables[t] {
			where += " OR reverse_stream IN " + in
			targs = append(append([]any{}, args...), args...)
		}
		name := "sluice." + schema.QuoteMySQL(t)
		var n int64
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+name+" WHERE "+where, targs...).Scan(&n); err != nil {
			return nil, fmt.Errorf("%s: count the streams' rows in %s: %w", s.where, name, err)
		}
		if n == 0 {
			continue
		}
		items = append(items, target.DropItem{What: fmt.Sprintf("%s of sluice.%s", target.Plural(n, "row"), t),
			Remove: func(ctx context.Context) error {
				_, err := s.db.ExecContext(ctx, "DELETE FROM "+name+" WHERE "+where, targs...)
				return err
			}})
	}
	return items, nil
}
