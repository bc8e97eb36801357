package verify

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Column order. PostgreSQL cannot reorder the columns of a table, so after
// ALTER TABLE ... ADD/CHANGE/MODIFY ... FIRST or AFTER on the source the
// target's order differs (the replicator writes by name, so the values are
// in the right columns; positional INSERT and SELECT * see another order).
// verify reports it per table, as a difference that is not a data
// difference: the table stays "equal" and the exit code 0, as for values
// changed by a policy; the report says "column order differs".

// noteColumnOrder compares the order of the columns both sides have.
func (e *engine) noteColumnOrder(ctx context.Context, r *tableRun) {
	p := r.plan
	tgt, err := e.tgt.ColumnOrder(ctx, p)
	if err != nil {
		e.o.Log.Warn("verify: cannot read the target's column order; the report leaves it out", "table", p.Name, "err", err)
		return
	}
	src := make([]string, len(p.Table.Columns))
	for i, c := range p.Table.Columns {
		src[i] = c.Name
	}
	r.rep.ColumnOrder = orderDiff(src, tgt)
}

// orderDiff is "source (a, b, c) target (a, c, b)" when the columns both
// lists have come in another order, else "". Matched case-insensitively,
// as MySQL names columns.
func orderDiff(src, tgt []string) string {
	has := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, n := range list {
			m[strings.ToLower(n)] = true
		}
		return m
	}
	inSrc, inTgt := has(src), has(tgt)
	var a, b []string
	for _, n := range src {
		if inTgt[strings.ToLower(n)] {
			a = append(a, n)
		}
	}
	for _, n := range tgt {
		if inSrc[strings.ToLower(n)] {
			b = append(b, n)
		}
	}
	if strings.EqualFold(strings.Join(a, ","), strings.Join(b, ",")) {
		return ""
	}
	return "source (" + strings.Join(a, ", ") + ") target (" + strings.Join(b, ", ") + ")"
}

// writeColumnOrders lists the tables whose column order differs.
func (r *Report) writeColumnOrders(w io.Writer) {
	for _, t := range r.Tables {
		if t.ColumnOrder != "" {
			fmt.Fprintf(w, "\n%s: column order differs: %s (not a data difference: values are compared and written by column name)\n",
				t.Table, t.ColumnOrder)
		}
	}
}
