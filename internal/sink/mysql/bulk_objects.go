package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// A MySQL target speaks the source's dialect, so the snapshot copies the
// objects that only read or are called (views, procedures, functions) as
// the source defines them. Triggers and events are not created: on a
// replica they would fire on the replicated rows (or on a schedule) and
// change data a second time; they belong to the cut-over.

// definerClause matches DEFINER=`user`@`host` (or CURRENT_USER): the
// source's account may not exist on the target, so the object is created
// with the target user as its definer.
var definerClause = regexp.MustCompile("(?i)\\s+DEFINER\\s*=\\s*(`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\\s@]+)(@(`(?:[^`]|``)*`|'(?:[^']|'')*'|[^\\s]+))?")

// copyObjects creates the source's views and routines in the target
// database, views in dependency order (a view that fails is tried again
// after the others, so a view on a view works). What it creates leaves the
// report's not-migrated list; what fails stays there with the target's error.
func (r *myWriter) copyObjects(ctx context.Context) error {
	var want, left []schema.Object
	for _, o := range r.Cat.NotMigrated {
		switch o.Kind {
		case "view", "procedure", "function":
			want = append(want, o)
		default:
			left = append(left, o)
		}
	}
	if len(want) == 0 {
		return nil
	}
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer conn.Close()
	// The definitions are the source's text (utf8mb4) and unqualified names
	// must land in the target database.
	for _, q := range []string{"SET NAMES utf8mb4", "USE " + schema.QuoteMySQL(r.dbName)} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("target: %s: %w", q, err)
		}
	}
	failed := map[schema.Object]error{}
	for pending := want; len(pending) > 0; {
		var again []schema.Object
		for _, o := range pending {
			stmt, err := r.sourceDefinition(ctx, o)
			if err == nil {
				// Replaced when it exists (a resumed run made it already): the
				// target database's copy follows the source.
				_, err = conn.ExecContext(ctx, "DROP "+strings.ToUpper(o.Kind)+" IF EXISTS "+schema.QuoteMySQL(o.Name))
			}
			if err == nil {
				_, err = conn.ExecContext(ctx, stmt)
			}
			if err != nil {
				failed[o] = err
				again = append(again, o)
				continue
			}
			delete(failed, o)
			*r.Report.Created = append(*r.Report.Created, fmt.Sprintf("%s %s.%s", o.Kind, r.dbName, o.Name))
			r.Log.Info("snapshot: created on the target", "object", o.String(), "as", r.dbName+"."+o.Name)
		}
		if len(again) == len(pending) {
			break // no progress: what is left fails for a reason of its own
		}
		pending = again
	}
	*r.Report.NotMigrated = (*r.Report.NotMigrated)[:0]
	for _, o := range left {
		why := "not created on a replica: it would fire on the replicated rows; create it at the cut-over"
		if o.Kind == "event" {
			why = "not created on a replica: it would run there on its schedule; create it (or enable it) at the cut-over"
		}
		*r.Report.NotMigrated = append(*r.Report.NotMigrated, o.String()+" ("+why+")")
	}
	for _, o := range want {
		if err, ok := failed[o]; ok {
			r.Log.Warn("snapshot: could not create on the target", "object", o.String(), "err", err)
			*r.Report.NotMigrated = append(*r.Report.NotMigrated, fmt.Sprintf("%s (the target refused it: %v)", o, err))
		}
	}
	return nil
}

// sourceDefinition is the object's CREATE statement from the source, for
// the target: no DEFINER, database qualifiers naming the source database
// rewritten to the target's.
func (r *myWriter) sourceDefinition(ctx context.Context, o schema.Object) (string, error) {
	kind := strings.ToUpper(o.Kind)
	name := schema.QuoteMySQL(o.Database) + "." + schema.QuoteMySQL(o.Name)
	rows, err := r.Src.DB.QueryContext(ctx, "SHOW CREATE "+kind+" "+name)
	if err != nil {
		return "", fmt.Errorf("source: SHOW CREATE %s %s: %w", kind, name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	if !rows.Next() {
		return "", fmt.Errorf("source: SHOW CREATE %s %s: no row", kind, name)
	}
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return "", err
	}
	var def string
	for i, c := range cols {
		if strings.EqualFold(c, "Create "+o.Kind) {
			def = vals[i].String
		}
	}
	if def == "" {
		// A routine's body is NULL to a user who is not its definer and lacks
		// SELECT on mysql.proc / SHOW_ROUTINE.
		return "", fmt.Errorf("source: SHOW CREATE %s %s shows no definition (the source user may lack the privilege to read it)", kind, name)
	}
	def = definerClause.ReplaceAllString(def, "")
	return RetargetQualifiers(def, o.Database, r.dbName), nil
}
