package verify

import (
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// rowReport turns a row diff into its report form.
func rowReport(p *verifydb.Plan, d verifydb.RowDiff) RowDiff {
	r := RowDiff{Kind: d.Kind, sortKey: d.KeyText()}
	row := d.Src
	if row == nil {
		row = d.Tgt
	}
	for _, k := range p.Key {
		r.Key = append(r.Key, KeyValue{Column: p.Cols[k].Name, Value: row.Cells[k].Show})
	}
	for _, c := range d.Cols {
		r.Columns = append(r.Columns, ColumnDiff{Column: p.Cols[c].Name, Source: d.Src.Cells[c].Show, Target: d.Tgt.Cells[c].Show})
	}
	return r
}
