package binlog

import (
	"fmt"
	"maps"
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/schema"
)

// tableSet is the schema in force at the stream's read position: every
// known table version, the schema-history version, and the resolution of
// the binlog's table ids.
type tableSet struct {
	tables  map[schema.TableID]*schema.Table
	version int64
	inScope func(schema.TableID) bool
	// byBinlogID caches the resolution of a binlog table id (from TABLE_MAP)
	// to a table version. Cleared on every schema change
	// and reconnect: MySQL reuses ids only for an unchanged definition, but
	// the cache must never outlive the schema it was checked against.
	byBinlogID map[uint64]*mappedTable
}

// mappedTable is a table of the binlog resolved against the schema history.
// skip is set for tables out of scope.
type mappedTable struct {
	table *schema.Table
	skip  bool
	// written caches Config.WrittenGenerated of table (checkSkipped), computed on first use.
	written     []int
	writtenDone bool
}

func newTableSet(tables map[schema.TableID]*schema.Table, version int64, inScope func(schema.TableID) bool) *tableSet {
	if tables == nil {
		tables = map[schema.TableID]*schema.Table{}
	}
	return &tableSet{tables: maps.Clone(tables), version: version, inScope: inScope,
		byBinlogID: map[uint64]*mappedTable{}}
}

// apply installs the table versions of a schema change.
func (s *tableSet) apply(version int64, changed []*schema.Table, dropped []schema.TableID) {
	for _, id := range dropped {
		delete(s.tables, id)
	}
	for _, t := range changed {
		s.tables[t.TableID] = t
	}
	s.version = version
	s.forget()
}

// forget drops the binlog table id cache (schema change, new connection).
func (s *tableSet) forget() { clear(s.byBinlogID) }

// snapshot returns a copy of the current tables, for the DDL translator.
func (s *tableSet) snapshot() map[schema.TableID]*schema.Table { return maps.Clone(s.tables) }

// resolve maps the TABLE_MAP of a rows event to the table version in force,
// checking that the binlog's columns line up with it: a mismatch would
// silently shift values into the wrong columns, so it stops the stream.
func (s *tableSet) resolve(tm *replication.TableMapEvent) (*mappedTable, error) {
	if mt, ok := s.byBinlogID[tm.TableID]; ok {
		return mt, nil
	}
	id := schema.TableID{Database: string(tm.Schema), Name: string(tm.Table)}
	if !s.inScope(id) {
		mt := &mappedTable{skip: true}
		s.byBinlogID[tm.TableID] = mt
		return mt, nil
	}
	t := s.tables[id]
	if t == nil {
		return nil, fmt.Errorf("row event for table %s, which is in scope but not in the schema history "+
			"(version %d): it was created or renamed in a way sluice did not see; leave it out with --exclude '%s' "+
			"or re-run `sluice snapshot --restart`", id, s.version, id)
	}
	if t.LeftOut != "" {
		mt := &mappedTable{skip: true}
		s.byBinlogID[tm.TableID] = mt
		return mt, nil
	}
	if err := checkColumns(t, tm); err != nil {
		return nil, err
	}
	mt := &mappedTable{table: t}
	s.byBinlogID[tm.TableID] = mt
	return mt, nil
}

// checkColumns compares the binlog's column count (and names, when the
// source logs them with binlog_row_metadata=FULL) with the table version.
func checkColumns(t *schema.Table, tm *replication.TableMapEvent) error {
	if int(tm.ColumnCount) != len(t.Columns) {
		return fmt.Errorf("table %s: the binlog has %d columns but the schema history (%s) has %d: "+
			"the table changed in a way sluice did not replicate (a skipped DDL?); re-run `sluice snapshot --restart` for it",
			t.TableID, tm.ColumnCount, columnList(t), len(t.Columns))
	}
	names := tm.ColumnNameString()
	if len(names) != len(t.Columns) {
		return nil // binlog_row_metadata is not FULL: names are not in the binlog
	}
	for i, n := range names {
		if !strings.EqualFold(n, t.Columns[i].Name) {
			return fmt.Errorf("table %s: binlog column %d is %q but the schema history has %q there (%s): "+
				"the table changed in a way sluice did not replicate (a skipped DDL?); re-run `sluice snapshot --restart` for it",
				t.TableID, i+1, n, t.Columns[i].Name, columnList(t))
		}
	}
	return nil
}

func columnList(t *schema.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
