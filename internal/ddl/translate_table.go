package ddl

import (
	"reflect"
	"sort"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

func (x *translation) createTable(s *sqlparser.CreateTable) error {
	id := tableID(s.Table, x.db)
	if s.Temp {
		x.ignore("temporary tables are not replicated")
		return nil
	}
	if !x.inScope(id) {
		x.ignore("table %s is not in scope (%s)", id, x.tr.Filter)
		return nil
	}
	if s.Select != nil {
		return x.unsupported("CREATE TABLE ... SELECT: the copied rows are not in the binlog as row events")
	}
	_, exists := x.cur[id]
	switch {
	case exists && s.IfNotExists:
		x.ignore("table %s already exists (IF NOT EXISTS)", id)
		return nil
	case exists && x.pr.orReplace:
		x.emit(DropTable(id, x.tr.Naming)...)
	case exists:
		return x.unsupported("table %s already exists in sluice's schema history", id)
	}
	var t *schema.Table
	if s.OptLike != nil {
		like := tableID(s.OptLike.LikeTable, x.db)
		src, ok := x.cur[like]
		if !ok {
			return x.unsupported("CREATE TABLE ... LIKE %s: sluice does not know that table (out of scope?)", like)
		}
		t = cloneTable(src)
		t.TableID = id
		t.ForeignKeys = nil // LIKE copies no foreign keys
		t.AutoIncrement = 0
		if hasAutoIncrement(t) {
			t.AutoIncrement = 1
		}
	} else {
		if s.TableSpec == nil {
			return x.unsupported("CREATE TABLE without columns")
		}
		var err error
		if t, err = x.tr.tableFromAST(s, x.db); err != nil {
			return x.unsupported("%v", err)
		}
	}
	return x.planNewTable(t)
}

// planNewTable emits the DDL of a table created on the source: the whole
// plan, with foreign keys only to tables sluice replicates.
func (x *translation) planNewTable(t *schema.Table) error {
	p, err := CreateTable(t, x.tr.Mapper, x.tr.Naming)
	if err != nil {
		return x.unsupported("%v", err)
	}
	x.emit(CreateSchema(t.Database, x.tr.Naming))
	x.emit(p.Create...)
	x.emit(p.PostData...)
	for i, fk := range t.ForeignKeys {
		ref := schema.TableID{Database: fk.RefDatabase, Name: fk.RefTable}
		refTable := t
		if ref != t.TableID {
			refTable = x.cur[ref]
		}
		if refTable == nil {
			x.warn("%s: foreign key %s references %s, which sluice does not replicate: not created", t, fk.Name, ref)
			continue
		}
		create, warn, err := foreignKeyOnTarget(t, refTable, fk)
		if err != nil {
			return x.unsupported("%v", err)
		}
		if !create {
			x.warn("%s", warn)
			continue
		}
		x.emit(p.ForeignKeys[i])
	}
	if t.AutoIncrement > 1 {
		x.emit(identityFinish(p.QName, t, x.tr.Naming)...)
	}
	x.res.Warnings = append(x.res.Warnings, p.Warnings...)
	x.res.Tables = append(x.res.Tables, t)
	return nil
}

func (x *translation) dropTables(s *sqlparser.DropTable) error {
	if s.Temp {
		x.ignore("temporary tables are not replicated")
		return nil
	}
	for _, tn := range s.FromTables {
		id := tableID(tn, x.db)
		if !x.inScope(id) {
			continue
		}
		// A table in scope that sluice does not know (created before the
		// stream with a filter change?) is dropped on the target all the same.
		x.emit(DropTable(id, x.tr.Naming)...)
		x.res.Dropped = append(x.res.Dropped, id)
	}
	if len(x.res.Dropped) == 0 {
		x.ignore("no table in scope")
	}
	return nil
}

func (x *translation) truncate(s *sqlparser.TruncateTable) error {
	id := tableID(s.Table, x.db)
	if !x.inScope(id) {
		x.ignore("table %s is not in scope", id)
		return nil
	}
	// MySQL's TRUNCATE also restarts AUTO_INCREMENT.
	x.emit("TRUNCATE TABLE " + x.tr.Naming.QTable(id) + " RESTART IDENTITY")
	return nil
}

// renameTables handles RENAME TABLE a TO b, c TO d (applied in order, as
// MySQL does, so swaps through a temporary name work).
func (x *translation) renameTables(s *sqlparser.RenameTable) error {
	work := newOverlay(x.cur)
	for _, pair := range s.TablePairs {
		from := tableID(pair.FromTable, x.db)
		if x.pr.renameIfExists && x.inScope(from) && work.get(from) == nil {
			continue // RENAME TABLE IF EXISTS: the source had no such table either
		}
		if err := x.renameOne(work, from, tableID(pair.ToTable, x.db)); err != nil {
			return err
		}
	}
	x.finishOverlay(work)
	return nil
}

// renameOne renames one table in the overlay and emits the PostgreSQL
// statements. PostgreSQL index, primary key, sequence and trigger function
// names derive from the table name, so they are renamed too.
func (x *translation) renameOne(work *overlay, from, to schema.TableID) error {
	fromIn, toIn := x.inScope(from), x.inScope(to)
	switch {
	case !fromIn && !toIn:
		return nil
	case fromIn && !toIn:
		return x.unsupported("table %s is renamed to %s, which is out of scope (--include/--exclude): "+
			"widen the scope, or skip and drop the table on the target yourself", from, to)
	case !fromIn && toIn:
		return x.unsupported("table %s, which is out of scope, is renamed to %s, which is in scope: "+
			"sluice has neither its schema nor its rows; include both names or snapshot the table again", from, to)
	}
	t := work.get(from)
	if t == nil {
		return x.unsupported("table %s is not in sluice's schema history", from)
	}
	n := x.tr.Naming
	if err := x.checkName("table", n.Table(to), to.String()); err != nil {
		return x.unsupported("%v", err)
	}
	for _, c := range t.Columns {
		// --rename and --exclude-columns name columns by their table: the
		// columns must keep their target names under the new table name.
		if n.Column(from, c.Name) != n.Column(to, c.Name) || n.Excluded(from, c.Name) != n.Excluded(to, c.Name) {
			return x.unsupported("table %s is renamed to %s, but --rename/--exclude-columns treat column %s differently "+
				"under the two names: give %s the same column entries as %s", from, to, c.Name, to, from)
		}
	}
	oldSchema, newSchema := n.Schema(from.Database), n.Schema(to.Database)
	oldName, newName := n.Table(from), n.Table(to)
	hasOnUpdate := false
	for _, c := range t.Columns {
		hasOnUpdate = hasOnUpdate || c.OnUpdateCurrentTS
	}
	if oldSchema != newSchema {
		x.emit(CreateSchema(to.Database, n), "ALTER TABLE "+n.QTable(from)+" SET SCHEMA "+q(newSchema))
		if hasOnUpdate {
			x.emit("ALTER FUNCTION " + n.QName(from.Database, OnUpdateFunction(oldName)) + "() SET SCHEMA " + q(newSchema))
		}
	}
	if oldName != newName {
		x.emit("ALTER TABLE " + n.QName(to.Database, oldName) + " RENAME TO " + q(newName))
		x.emit(x.renameDerived(t, oldName, newName, to)...)
		if hasOnUpdate {
			x.emit("ALTER FUNCTION " + n.QName(to.Database, OnUpdateFunction(oldName)) + "() RENAME TO " +
				q(OnUpdateFunction(newName)))
		}
	}
	nt := cloneTable(t)
	nt.TableID = to
	for i := range nt.ForeignKeys { // a self-reference follows the table
		if nt.ForeignKeys[i].RefDatabase == from.Database && nt.ForeignKeys[i].RefTable == from.Name {
			nt.ForeignKeys[i].RefDatabase, nt.ForeignKeys[i].RefTable = to.Database, to.Name
		}
	}
	work.drop(from)
	work.put(nt)
	work.rename(from, to)
	work.retarget(from, to)
	return nil
}

// renameDerived renames the objects whose PostgreSQL names derive from the
// table name (in the table's new schema).
func (x *translation) renameDerived(t *schema.Table, oldName, newName string, to schema.TableID) []string {
	n := x.tr.Naming
	var out []string
	qt := n.QName(to.Database, newName)
	if len(t.PrimaryKey) > 0 && PrimaryKeyName(oldName) != PrimaryKeyName(newName) {
		out = append(out, "ALTER TABLE "+qt+" RENAME CONSTRAINT "+q(PrimaryKeyName(oldName))+" TO "+q(PrimaryKeyName(newName)))
	}
	for _, ix := range t.Indexes {
		if o, nw := IndexName(oldName, n.Ident(ix.Name)), IndexName(newName, n.Ident(ix.Name)); o != nw {
			out = append(out, "ALTER INDEX IF EXISTS "+n.QName(to.Database, o)+" RENAME TO "+q(nw))
		}
	}
	for _, c := range t.Columns {
		if c.AutoIncrement && !n.Excluded(to, c.Name) {
			col := n.Column(to, c.Name)
			out = append(out, "ALTER SEQUENCE IF EXISTS "+n.QName(to.Database, SequenceName(oldName, col))+
				" RENAME TO "+q(SequenceName(newName, col)))
		}
	}
	return out
}

// overlay is the tracked tables as a statement changes them.
type overlay struct {
	cur     Tables
	changed map[schema.TableID]*schema.Table
	dropped map[schema.TableID]bool
	// origin maps a table's name after the renames so far to its name
	// before the statement.
	origin map[schema.TableID]schema.TableID
}

func newOverlay(cur Tables) *overlay {
	return &overlay{cur: cur, changed: map[schema.TableID]*schema.Table{}, dropped: map[schema.TableID]bool{},
		origin: map[schema.TableID]schema.TableID{}}
}

func (o *overlay) get(id schema.TableID) *schema.Table {
	if t, ok := o.changed[id]; ok {
		return t
	}
	if o.dropped[id] {
		return nil
	}
	return o.cur[id]
}

func (o *overlay) put(t *schema.Table) {
	o.changed[t.TableID] = t
	delete(o.dropped, t.TableID)
}

// rename records that from is now called to.
func (o *overlay) rename(from, to schema.TableID) {
	orig, ok := o.origin[from]
	if !ok {
		orig = from
	}
	delete(o.origin, from)
	o.origin[to] = orig
}

// renames returns each renamed table's name before and after the statement.
func (o *overlay) renames() map[schema.TableID]schema.TableID {
	out := map[schema.TableID]schema.TableID{}
	for now, orig := range o.origin {
		if now != orig {
			out[orig] = now
		}
	}
	return out
}

func (o *overlay) drop(id schema.TableID) {
	delete(o.changed, id)
	o.dropped[id] = true
}

// retarget points the foreign keys of other tables at a renamed table, as
// MySQL does.
func (o *overlay) retarget(from, to schema.TableID) {
	ids := map[schema.TableID]bool{}
	for id := range o.cur {
		ids[id] = true
	}
	for id := range o.changed {
		ids[id] = true
	}
	for id := range ids {
		t := o.get(id)
		if t == nil || id == to {
			continue
		}
		for i, fk := range t.ForeignKeys {
			if fk.RefDatabase != from.Database || fk.RefTable != from.Name {
				continue
			}
			if _, mine := o.changed[id]; !mine {
				t = cloneTable(t)
				o.put(t)
			}
			t.ForeignKeys[i].RefDatabase, t.ForeignKeys[i].RefTable = to.Database, to.Name
		}
	}
}

// finishOverlay moves the overlay into the result: changed tables in name
// order, dropped ids (renamed-away names included), renames.
func (x *translation) finishOverlay(o *overlay) {
	for id := range o.dropped {
		if _, ok := o.cur[id]; ok {
			x.res.Dropped = append(x.res.Dropped, id)
		}
	}
	sort.Slice(x.res.Dropped, func(i, j int) bool { return x.res.Dropped[i].String() < x.res.Dropped[j].String() })
	for id, t := range o.changed {
		if prev, ok := o.cur[id]; ok && reflect.DeepEqual(prev, t) {
			continue // not changed after all (e.g. only IF EXISTS clauses that matched nothing)
		}
		x.res.Tables = append(x.res.Tables, t)
	}
	sort.Slice(x.res.Tables, func(i, j int) bool { return x.res.Tables[i].String() < x.res.Tables[j].String() })
	if r := o.renames(); len(r) > 0 {
		x.res.Renamed = r
	}
}

func (x *translation) createDatabase(s *sqlparser.CreateDatabase) error {
	name := s.DBName.String()
	if !x.tr.Filter.MatchDatabase(name) {
		x.ignore("database %s is not in scope", name)
		return nil
	}
	d, err := x.databaseOptions(schema.Database{Name: name, Charset: x.tr.Server.Charset,
		Collation: x.tr.Server.Collation}, s.CreateOptions)
	if err != nil {
		return err
	}
	x.tr.setDatabase(name, &d)
	x.res.Databases = map[string]*schema.Database{name: &d}
	x.emit(CreateSchema(name, x.tr.Naming))
	return nil
}

func (x *translation) alterDatabase(s *sqlparser.AlterDatabase) error {
	name := s.DBName.String()
	if name == "" {
		name = x.db
	}
	if !x.tr.Filter.MatchDatabase(name) {
		x.ignore("database %s is not in scope", name)
		return nil
	}
	d, _ := x.tr.Database(name)
	d.Name = name
	d, err := x.databaseOptions(d, s.AlterOptions)
	if err != nil {
		return err
	}
	x.tr.setDatabase(name, &d)
	x.res.Databases = map[string]*schema.Database{name: &d}
	return nil
}

// databaseOptions applies CHARACTER SET / COLLATE options to a database's defaults.
func (x *translation) databaseOptions(d schema.Database, opts []sqlparser.DatabaseOption) (schema.Database, error) {
	var cs, coll string
	for _, o := range opts {
		switch o.Type {
		case sqlparser.CharacterSetType:
			cs = o.Value
		case sqlparser.CollateType:
			coll = o.Value
		}
	}
	if cs == "" && coll == "" {
		return d, nil
	}
	cs, coll, err := x.tr.resolveCharset(cs, coll)
	if err != nil {
		return d, x.unsupported("%v", err)
	}
	d.Charset, d.Collation = cs, coll
	return d, nil
}

// dropDatabase drops the database's tables on the target, then its schema
// if nothing else is left in it (a schema mapped to, say, public keeps
// whatever else lives there).
func (x *translation) dropDatabase(s *sqlparser.DropDatabase) error {
	name := s.DBName.String()
	if !x.tr.Filter.MatchDatabase(name) {
		x.ignore("database %s is not in scope", name)
		return nil
	}
	var ids []schema.TableID
	for id := range x.cur {
		if id.Database == name {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i].Name < ids[j].Name })
	for _, id := range ids {
		x.emit(DropTable(id, x.tr.Naming)...)
	}
	x.res.Dropped = ids
	sch := x.tr.Naming.Schema(name)
	x.emit("DO $sluice$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace " +
		"WHERE s.nspname = " + sqlexpr.QuotePG(sch) + ") AND NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace s " +
		"ON s.oid = p.pronamespace WHERE s.nspname = " + sqlexpr.QuotePG(sch) + ") THEN EXECUTE " +
		sqlexpr.QuotePG("DROP SCHEMA IF EXISTS "+q(sch)) + "; END IF; END $sluice$")
	x.tr.setDatabase(name, nil)
	x.res.Databases = map[string]*schema.Database{name: nil}
	return nil
}

// lowerSet reports whether name (case-insensitive) is in set.
func lowerSet(set map[string]bool, name string) bool { return set[strings.ToLower(name)] }
