package ddl

import "github.com/sluice-db/sluice/internal/schema"

// cloneTable deep-copies a table, so a translation never changes the
// version the caller holds (events already decoded with it stay valid).
func cloneTable(t *schema.Table) *schema.Table {
	c := *t
	c.Columns = make([]schema.Column, len(t.Columns))
	for i, col := range t.Columns {
		c.Columns[i] = cloneColumn(col)
	}
	c.PrimaryKey = append([]string(nil), t.PrimaryKey...)
	c.Indexes = make([]schema.Index, len(t.Indexes))
	for i, ix := range t.Indexes {
		ix.Columns = append([]schema.IndexColumn(nil), ix.Columns...)
		c.Indexes[i] = ix
	}
	c.ForeignKeys = make([]schema.ForeignKey, len(t.ForeignKeys))
	for i, fk := range t.ForeignKeys {
		fk.Columns = append([]string(nil), fk.Columns...)
		fk.RefColumns = append([]string(nil), fk.RefColumns...)
		c.ForeignKeys[i] = fk
	}
	c.Checks = append([]schema.Check(nil), t.Checks...)
	if len(c.Indexes) == 0 {
		c.Indexes = nil
	}
	if len(c.ForeignKeys) == 0 {
		c.ForeignKeys = nil
	}
	if len(c.PrimaryKey) == 0 {
		c.PrimaryKey = nil
	}
	return &c
}

func cloneColumn(c schema.Column) schema.Column {
	if c.Default != nil {
		d := *c.Default
		c.Default = &d
	}
	c.Elements = append([]string(nil), c.Elements...)
	if len(c.Elements) == 0 {
		c.Elements = nil
	}
	return c
}

// renumber sets Ordinal from the position in Columns.
func renumber(t *schema.Table) {
	for i := range t.Columns {
		t.Columns[i].Ordinal = i + 1
	}
}
