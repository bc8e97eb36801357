package alter

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// plan is what a copy run will do, computed without writing anything: the
// ALTER is tried on an empty temporary copy of the table.
type plan struct {
	oldDef, newDef *tableDef
	keyIndex       string
	keyCols        []string
	shared         []string
	dropped        []string
	rows, bytes    int64
	freeBytes      int64 // -1: the server does not tell
	shadowDDL      []string
}

func (r *runner) makePlan(ctx context.Context) (*plan, error) {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	p := &plan{freeBytes: -1}
	if p.oldDef, err = describe(ctx, conn, r.id.Database, r.id.Name); err != nil {
		return nil, err
	}
	tmp := schema.QuoteMySQL("_" + r.id.Name + "_dry")
	if _, err := conn.ExecContext(ctx, "CREATE TEMPORARY TABLE "+tmp+" LIKE "+r.quoted(r.id.Name)); err != nil {
		return nil, fmt.Errorf("alter: try the change on a temporary copy: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DROP TEMPORARY TABLE IF EXISTS "+tmp) //nolint:errcheck
	if _, err := conn.ExecContext(ctx, "ALTER TABLE "+tmp+" "+r.o.Alter); err != nil {
		return nil, refuse("the server refuses the change (tried on an empty temporary copy of %s): %v", r.id, err)
	}
	if p.newDef, err = describe(ctx, conn, r.id.Database, "_"+r.id.Name+"_dry"); err != nil {
		return nil, err
	}
	p.shared, p.dropped = sharedColumns(p.oldDef, p.newDef)
	p.keyIndex, p.keyCols = sharedKey(p.oldDef, p.newDef)
	p.shadowDDL = []string{
		"CREATE TABLE " + r.quoted(shadowName(r.id.Name)) + " LIKE " + r.quoted(r.id.Name),
		"ALTER TABLE " + r.quoted(shadowName(r.id.Name)) + " " + r.o.Alter,
	}
	var rows, data, index int64
	if err := r.db.QueryRowContext(ctx, `SELECT COALESCE(TABLE_ROWS,0), COALESCE(DATA_LENGTH,0), COALESCE(INDEX_LENGTH,0)
		FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, r.id.Database, r.id.Name).Scan(&rows, &data, &index); err != nil {
		return nil, fmt.Errorf("alter: size of %s: %w", r.id, err)
	}
	p.rows, p.bytes = rows, data+index
	var free int64
	// MariaDB with the DISKS plugin tells the free space; MySQL does not.
	if err := r.db.QueryRowContext(ctx, "SELECT MIN(Available)*1024 FROM information_schema.DISKS").Scan(&free); err == nil && free > 0 {
		p.freeBytes = free
	}
	return p, nil
}

// planProblems are the plan's reasons not to copy.
func (r *runner) planProblems(p *plan) []string {
	var bad []string
	if len(p.dropped) > 0 && !r.o.AllowDropColumn {
		bad = append(bad, fmt.Sprintf("the change drops column(s) %s of %s: their data is lost; pass --allow-drop-column to confirm",
			strings.Join(p.dropped, ", "), r.id))
	}
	if p.keyCols == nil {
		bad = append(bad, errNoKey.Error())
	}
	if p.freeBytes >= 0 && p.bytes*11/10 > p.freeBytes {
		bad = append(bad, fmt.Sprintf("not enough disk: the copy of %s needs about %d MB, the server reports %d MB free", r.id, p.bytes>>20, p.freeBytes>>20))
	}
	return bad
}

// chunkKey is the key the copy walks: the shared key on the old table's index.
func (r *runner) chunkKey(p *plan) (*consistent.Key, *keyCols, error) {
	t := *r.src
	t.PrimaryKey = p.keyCols
	k, err := consistent.NewKey(&t)
	if err != nil {
		return nil, nil, refuse("%v", err)
	}
	k.Index = p.keyIndex
	kc, err := newKeyCols(r.src, p.keyCols)
	if err != nil {
		return nil, nil, err
	}
	return k, kc, nil
}

func (r *runner) loadSource(ctx context.Context, withMarker bool) (*schema.Table, *schema.Table, error) {
	include := []string{r.id.Database + "." + r.id.Name}
	if withMarker {
		include = append(include, stateDB+".alter_marker")
	}
	f, err := schema.NewFilter(include, nil, "")
	if err != nil {
		return nil, nil, err
	}
	cat, err := schema.Load(ctx, r.db, f)
	if err != nil {
		return nil, nil, fmt.Errorf("alter: read the definition of %s: %w", r.id, err)
	}
	t, m := cat.Table(r.id), cat.Table(schema.TableID{Database: stateDB, Name: "alter_marker"})
	if t == nil || (withMarker && m == nil) {
		return nil, nil, fmt.Errorf("alter: %s or sluice.alter_marker not found", r.id)
	}
	return t, m, nil
}
