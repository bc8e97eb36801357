package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// repairBatch is how many keys one fresh source read looks up.
const repairBatch = 200

func (e *engine) repair(ctx context.Context, p *verifydb.Plan, diffs []verifydb.RowDiff) error {
	var stmts []verifydb.Stmt
	var srcKeys [][]string
	for _, d := range diffs {
		if d.Kind == verifydb.OnlyInTarget {
			del, err := e.tgt.DeleteTargetKey(p, d.Tgt.Key)
			if err != nil {
				return err
			}
			stmts = append(stmts, del)
			continue
		}
		srcKeys = append(srcKeys, d.Src.Key)
	}
	for i := 0; i < len(srcKeys); i += repairBatch {
		batch := srcKeys[i:min(i+repairBatch, len(srcKeys))]
		up, err := e.freshUpserts(ctx, p, batch)
		if err != nil {
			return err
		}
		stmts = append(stmts, up...)
	}
	return e.runRepair(ctx, p, stmts)
}

// runRepair writes a table's repair statements to --repair-sql, or runs
// them in one target transaction (verifydb.Target.Apply).
func (e *engine) runRepair(ctx context.Context, p *verifydb.Plan, stmts []verifydb.Stmt) error {
	if e.o.RepairSQL != nil {
		e.collectSQL(p, stmts) // written in foreign key order at the end
		return nil
	}
	return e.tgt.Apply(ctx, p, stmts)
}

// freshUpserts reads the rows of the given source keys again and returns
// their upserts, and deletes for keys the source no longer has.
func (e *engine) freshUpserts(ctx context.Context, p *verifydb.Plan, keys [][]string) ([]verifydb.Stmt, error) {
	sel := make([]string, len(p.Cols))
	for i := range p.Convs {
		sel[i] = verifydb.SelectExprOf(p, i)
	}
	var ors []string
	var args []any
	for _, key := range keys {
		ands := make([]string, len(p.Key))
		for k, i := range p.Key {
			ands[k] = schema.QuoteMySQL(p.Cols[i].Name) + " = " + p.MyPlaceholder(k)
			v, err := p.MyArg(k, []byte(key[k]))
			if err != nil {
				return nil, err
			}
			args = append(args, v)
		}
		ors = append(ors, "("+strings.Join(ands, " AND ")+")")
	}
	sel = append(sel, p.MyKeySel...)
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.MyTable + " WHERE " + strings.Join(ors, " OR ")
	rows, err := e.src.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
	}
	src := verifydb.SQLRows{Rows: rows}
	defer src.Close()
	found := map[string]bool{}
	var out []verifydb.Stmt
	for src.Next() {
		vals, err := src.Values(len(sel))
		if err != nil {
			return nil, err
		}
		up, err := e.tgt.UpsertRow(p, vals[:len(p.Cols)])
		if err != nil {
			return nil, err
		}
		found[verifydb.RawKey(vals[len(p.Cols):])] = true
		out = append(out, up)
	}
	if err := src.Err(); err != nil {
		return nil, fmt.Errorf("repair: read %s: %w", p.Name, err)
	}
	for _, key := range keys {
		raw := make([][]byte, len(key))
		for k := range key {
			raw[k] = []byte(key[k])
		}
		if found[verifydb.RawKey(raw)] {
			continue
		}
		del, err := e.tgt.DeleteSourceKey(p, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, del)
	}
	return out, nil
}
