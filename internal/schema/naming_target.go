package schema

// TargetView returns a copy of t whose column, key and index column names
// are the target's (Naming.Column), for code that writes or reads the
// target table by column position: the columns stay in the source's order,
// so a change's values still line up with them, and the TableID stays the
// source's (Naming.QTable of it is the target table). Excluded columns stay
// in the list; callers keep only Naming.Keep's.
func (n Naming) TargetView(t *Table) *Table {
	if !n.Renames() {
		return t
	}
	c := *t
	c.Columns = append([]Column(nil), t.Columns...)
	for i := range c.Columns {
		c.Columns[i].Name = n.Column(t.TableID, t.Columns[i].Name)
	}
	c.PrimaryKey = make([]string, len(t.PrimaryKey))
	for i, k := range t.PrimaryKey {
		c.PrimaryKey[i] = n.Column(t.TableID, k)
	}
	c.Indexes = make([]Index, len(t.Indexes))
	for i, ix := range t.Indexes {
		ix.Columns = append([]IndexColumn(nil), ix.Columns...)
		for j := range ix.Columns {
			if ix.Columns[j].Name != "" {
				ix.Columns[j].Name = n.Column(t.TableID, ix.Columns[j].Name)
			}
		}
		c.Indexes[i] = ix
	}
	return &c
}
