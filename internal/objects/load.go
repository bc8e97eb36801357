package objects

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Each definition is read with one small query about one object (SHOW
// CREATE …, or information_schema filtered by schema and name): never a
// scan over every schema, which has crashed MariaDB's information_schema
// (issue 12).

// showCreate runs SHOW CREATE <what> `db`.`name` and returns the column
// named col. A NULL or missing column means the user may not read it.
func showCreate(ctx context.Context, db *sql.DB, what, dbName, name, col string) (string, error) {
	q := "SHOW CREATE " + what + " " + schema.QuoteMySQL(dbName) + "." + schema.QuoteMySQL(name)
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		return "", fmt.Errorf("%s: no row", q)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return "", fmt.Errorf("%s: %w", q, err)
	}
	for i, c := range cols {
		if strings.EqualFold(c, col) && vals[i].Valid {
			return vals[i].String, nil
		}
	}
	return "", nil
}

// viewDef is what a view's translation needs from the source.
type viewDef struct {
	obj         *Object
	definition  string // information_schema.VIEWS.VIEW_DEFINITION: a SELECT
	checkOption string
	security    string
	cols        []*sqlexpr.Column
}

func loadView(ctx context.Context, db *sql.DB, o *Object) (*viewDef, error) {
	v := &viewDef{obj: o}
	var err error
	if o.MySQL, err = showCreate(ctx, db, "VIEW", o.Database, o.Name, "Create View"); err != nil {
		return nil, err
	}
	err = db.QueryRowContext(ctx, `SELECT VIEW_DEFINITION, CHECK_OPTION, SECURITY_TYPE FROM information_schema.VIEWS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, o.Database, o.Name).Scan(&v.definition, &v.checkOption, &v.security)
	if errors.Is(err, sql.ErrNoRows) {
		return v, nil // dropped meanwhile: the translation says so
	}
	if err != nil {
		return nil, fmt.Errorf("read view %s.%s: %w", o.Database, o.Name, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, DATA_TYPE, NUMERIC_SCALE, COLLATION_NAME
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, o.Database, o.Name)
	if err != nil {
		return nil, fmt.Errorf("read columns of view %s.%s: %w", o.Database, o.Name, err)
	}
	defer rows.Close()
	m := typemap.New(typemap.DefaultOptions(), nil)
	for rows.Next() {
		var name, typ string
		var scale sql.NullInt64
		var coll sql.NullString
		if err := rows.Scan(&name, &typ, &scale, &coll); err != nil {
			return nil, fmt.Errorf("read columns of view %s.%s: %w", o.Database, o.Name, err)
		}
		c := schema.Column{Name: name, DataType: typ, Collation: coll.String}
		if scale.Valid {
			c.Scale = int(scale.Int64)
		}
		v.cols = append(v.cols, columnOf(&c, m))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read columns of view %s.%s: %w", o.Database, o.Name, err)
	}
	return v, nil
}

// triggerDef is one trigger as information_schema.TRIGGERS describes it.
type triggerDef struct {
	obj                  *Object
	table, timing, event string
	statement            string
	order                int
}

func loadTrigger(ctx context.Context, db *sql.DB, o *Object) (*triggerDef, error) {
	t := &triggerDef{obj: o}
	var err error
	if o.MySQL, err = showCreate(ctx, db, "TRIGGER", o.Database, o.Name, "SQL Original Statement"); err != nil {
		return nil, err
	}
	err = db.QueryRowContext(ctx, `SELECT EVENT_OBJECT_TABLE, ACTION_TIMING, EVENT_MANIPULATION, ACTION_STATEMENT, ACTION_ORDER
		FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?`, o.Database, o.Name).
		Scan(&t.table, &t.timing, &t.event, &t.statement, &t.order)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read trigger %s.%s: %w", o.Database, o.Name, err)
	}
	return t, nil
}

// showCreateColumn names the SHOW CREATE column holding each kind's text.
var showCreateColumn = map[string][2]string{
	KindProcedure: {"PROCEDURE", "Create Procedure"},
	KindFunction:  {"FUNCTION", "Create Function"},
	KindEvent:     {"EVENT", "Create Event"},
	KindSequence:  {"SEQUENCE", "Create Table"},
}

func loadText(ctx context.Context, db *sql.DB, o *Object) error {
	sc, ok := showCreateColumn[o.Kind]
	if !ok {
		return fmt.Errorf("unknown object kind %q", o.Kind)
	}
	var err error
	o.MySQL, err = showCreate(ctx, db, sc[0], o.Database, o.Name, sc[1])
	return err
}
