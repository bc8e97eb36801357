package kafka

import (
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// copyProgress is the state record's part while a chunked snapshot runs
// (stateRecord.Copy): which rows of each table are in Kafka. Its invariant,
// kept by every Kafka transaction that changes it: every copied row (a key
// at or below its table's Last, every row of a Done table) has in Kafka its
// "r" event and each change of it up to the state's Position, and no other
// row of the table has any event. A resume at a new consistent point first
// replays the binlog from Position to that point through the sink, which
// writes only the changes of copied rows (keep), then copies the rest.
type copyProgress struct {
	Tables map[string]*copyTable `json:"tables"`
}

// String says how far the snapshot got ("" when p is nil: none running).
func (p *copyProgress) String() string {
	if p == nil {
		return ""
	}
	done, started := 0, 0
	for _, t := range p.Tables {
		switch {
		case t.Done:
			done++
		case t.Last != nil:
			started++
		}
	}
	return fmt.Sprintf("%d of %d tables copied, %d in part", done, len(p.Tables), started)
}

// copyTable is one table's copy progress.
type copyTable struct {
	// Done: every row is copied.
	Done bool `json:"done,omitempty"`
	// Last is the key of the last copied row (a chunk's upper bound as
	// the source selected it); nil with !Done: nothing copied yet. Only a
	// key Go orders as MySQL does (GoOrdered) is copied in several chunks.
	Last consistent.Bound `json:"last,omitempty"`
}

// copyKey names a table in copyProgress.
func copyKey(id schema.TableID) string { return id.Database + "." + id.Name }

// GoOrdered reports whether every column of t's chunk key compares in Go
// (as numbers) exactly as MySQL orders it: integers and decimals. Only such
// a table's changes can be split at a copied key during a resume; any other
// table is copied in one Kafka transaction of its own (table granularity).
func (s *Sink) GoOrdered(t *schema.Table) bool {
	cols := t.KeyColumns()
	if len(cols) == 0 {
		return false
	}
	for _, name := range cols {
		c := t.Column(name)
		if c == nil {
			return false
		}
		cc, err := s.mapper.CompileColumn(t.TableID, *c)
		if err != nil {
			return false
		}
		switch cc.Kind {
		case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
		default:
			return false
		}
	}
	return true
}

// keep filters one binlog change while a snapshot is being resumed: the
// change as it is to be written (an update that moves a row into or out of
// the copied range becomes its create or its delete), or false when none
// of it concerns a copied row (that row is read later, at the new point).
func (s *Sink) keep(rc *model.RowChange) (*model.RowChange, bool, error) {
	if s.copying == nil || rc.Table == nil {
		return rc, true, nil
	}
	ct, ok := s.copying.Tables[copyKey(rc.Table.TableID)]
	switch {
	case !ok || ct.Done:
		return rc, true, nil // copied whole, or created after the snapshot's start
	case ct.Last == nil:
		return nil, false, nil
	}
	in := func(vals []any) (bool, error) {
		if vals == nil {
			return false, nil
		}
		c, err := s.compareKey(rc.Table, vals, ct.Last)
		return c <= 0, err
	}
	before, err := in(rc.Before)
	if err != nil {
		return nil, false, err
	}
	after, err := in(rc.After)
	if err != nil {
		return nil, false, err
	}
	switch {
	case rc.Op == model.Insert:
		return rc, after, nil
	case rc.Op == model.Delete:
		return rc, before, nil
	case before && after:
		return rc, true, nil
	case before: // moved out of the copied range: the new key is read later
		return &model.RowChange{Op: model.Delete, Table: rc.Table, Before: rc.Before}, true, nil
	case after: // moved into it from a range not read yet
		return &model.RowChange{Op: model.Insert, Table: rc.Table, After: rc.After}, true, nil
	}
	return nil, false, nil
}

// compareKey compares the chunk key of a binlog row image with a copied
// bound, column by column as numbers (GoOrdered keys only).
func (s *Sink) compareKey(t *schema.Table, vals []any, last consistent.Bound) (int, error) {
	tc, err := s.codec(t)
	if err != nil {
		return 0, err
	}
	cols := t.KeyColumns()
	if len(cols) != len(last) {
		return 0, fmt.Errorf("kafka: resume the snapshot of %s: the copied key has %d columns, the table's key %d", t.TableID, len(last), len(cols))
	}
	for i, name := range cols {
		ci := t.ColumnIndex(name)
		if ci < 0 || ci >= len(vals) {
			return 0, fmt.Errorf("kafka: resume the snapshot of %s: key column %s not in the row", t.TableID, name)
		}
		conv := tc.fields[ci].conv
		a, err := conv.FromBinlog(vals[ci])
		if err != nil {
			return 0, err
		}
		b, err := conv.FromText(last[i])
		if err != nil {
			return 0, err
		}
		ra, rb := ratOf(a), ratOf(b)
		if ra == nil || rb == nil {
			return 0, fmt.Errorf("kafka: resume the snapshot of %s: key column %s: %T is not a number", t.TableID, name, a)
		}
		if c := ra.Cmp(rb); c != 0 {
			return c, nil
		}
	}
	return 0, nil
}

// ratOf is typemap's value of an integer or decimal column as a number.
func ratOf(v any) *big.Rat {
	switch x := v.(type) {
	case int16:
		return new(big.Rat).SetInt64(int64(x))
	case int32:
		return new(big.Rat).SetInt64(int64(x))
	case int64:
		return new(big.Rat).SetInt64(x)
	case pgtype.Numeric:
		if !x.Valid || x.NaN || x.InfinityModifier != pgtype.Finite || x.Int == nil {
			return nil
		}
		r := new(big.Rat).SetInt(x.Int)
		e := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(x.Exp))), nil)
		if x.Exp >= 0 {
			return r.Mul(r, new(big.Rat).SetInt(e))
		}
		return r.Quo(r, new(big.Rat).SetInt(e))
	}
	return nil
}

func absInt(n int32) int32 {
	if n < 0 {
		return -n
	}
	return n
}
