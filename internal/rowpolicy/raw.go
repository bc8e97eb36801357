package rowpolicy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// Read is what a bulk read of one table applies (the snapshot's chunks,
// verify's source side): the condition as SQL for its WHERE, and the masks
// over rows of text-protocol values.
type Read struct {
	Where string // "" when the table has no filter
	// Masks names the masked columns of the read, as column=kind[:arg].
	Masks []string
	// Mask rewrites one row (values of the read's columns, in its order) in
	// place; nil when no copied column is masked.
	Mask func(raw [][]byte)
}

// ForRead resolves the policy for a read of t's columns cols (indexes into
// t.Columns); plain[i] says the read selects column cols[i] as itself
// (not through a conversion, whose text the masks would not see as the
// binlog gives it: such a masked column is refused).
func (p *Policy) ForRead(t *schema.Table, cols []int, plain []bool) (Read, error) {
	tp, err := p.For(t)
	if err != nil || tp == nil {
		return Read{}, err
	}
	var rd Read
	if tp.filter != nil {
		rd.Where = tp.filter.SQL()
	}
	type pos struct {
		at    int
		apply func(any) any
	}
	var ms []pos
	for _, m := range tp.masks {
		for i, c := range cols {
			if c != m.index {
				continue
			}
			if !plain[i] {
				return Read{}, exitcode.ConfigError(fmt.Errorf("--mask %s: the copy reads %s.%s through a conversion, which the mask cannot rewrite as it rewrites the binlog's values; "+
					"not supported yet for this column type", m.spec, t.TableID, t.Columns[c].Name))
			}
			ms = append(ms, pos{at: i, apply: m.apply})
			kind := strings.TrimPrefix(m.spec.String(), m.spec.Database+"."+m.spec.Table+"."+m.spec.Column+"=")
			rd.Masks = append(rd.Masks, t.Columns[c].Name+"="+kind+" (--mask "+m.spec.String()+")")
		}
	}
	if len(ms) > 0 {
		rd.Mask = func(raw [][]byte) {
			for _, m := range ms {
				if raw[m.at] == nil {
					continue
				}
				raw[m.at] = rawBytes(m.apply(raw[m.at]))
			}
		}
	}
	return rd, nil
}

// rawBytes is a mask's output in the text protocol's form.
func rawBytes(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return x
	case string:
		return []byte(x)
	case int64:
		return strconv.AppendInt(nil, x, 10)
	}
	return fmt.Append(nil, v)
}
