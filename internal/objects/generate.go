package objects

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

var parser = sqlparser.NewTestParser()

// generator holds one Generate call's catalog and the views found so far.
type generator struct {
	cat    *schema.Catalog
	naming schema.Naming
	m      *typemap.Mapper     // the column types the snapshot creates (default options)
	views  map[string]*viewDef // "db.name"
	// routines are the stored functions in scope, "db.name" (name lower-cased).
	routines map[string]bool
}

// Generate reads the definitions of the objects in cat (a catalog loaded
// for the snapshot's scope) from the source and translates them. Objects
// come in the file's order: views (each after the views it reads),
// triggers, generated columns, functions, procedures, events, sequences.
func Generate(ctx context.Context, src *sql.DB, cat *schema.Catalog, naming schema.Naming) (*Result, error) {
	g := &generator{cat: cat, naming: naming, m: typemap.New(typemap.DefaultOptions(), nil), views: map[string]*viewDef{},
		routines: map[string]bool{}}
	for _, nm := range cat.NotMigrated {
		if nm.Kind == KindFunction {
			g.routines[nm.Database+"."+strings.ToLower(nm.Name)] = true
		}
	}
	res := &Result{}
	var views []*viewDef
	var triggers []*triggerDef
	var others []*Object
	for _, nm := range cat.NotMigrated {
		o := &Object{Kind: nm.Kind, Database: nm.Database, Name: nm.Name}
		switch o.Kind {
		case KindView:
			v, err := loadView(ctx, src, o)
			if err != nil {
				v = &viewDef{obj: o}
				o.needsHuman("cannot read its definition: %v", err)
			}
			views = append(views, v)
			g.views[o.Database+"."+o.Name] = v
		case KindTrigger:
			t, err := loadTrigger(ctx, src, o)
			if err != nil {
				t = &triggerDef{obj: o}
				o.needsHuman("cannot read its definition: %v", err)
			}
			triggers = append(triggers, t)
		default:
			if err := loadText(ctx, src, o); err != nil {
				o.needsHuman("cannot read its definition: %v", err)
			}
			others = append(others, o)
		}
		// One object's definition may be unreadable (a view of a dropped
		// table, a missing privilege); a lost connection stops everything.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := src.PingContext(ctx); err != nil {
			return nil, fmt.Errorf("read definitions: %w", err)
		}
	}
	for _, v := range views {
		g.translateView(v)
	}
	res.Objects = append(res.Objects, g.orderViews(views)...)
	for _, t := range triggers {
		g.translateTrigger(t)
		res.Objects = append(res.Objects, t.obj)
	}
	res.Objects = append(res.Objects, g.generatedColumns()...)
	sort.SliceStable(others, func(i, j int) bool { return kindOrder(others[i].Kind) < kindOrder(others[j].Kind) })
	for _, o := range others {
		g.translateOther(o)
		res.Objects = append(res.Objects, o)
	}
	res.schemas = g.missingSchemas(res.Objects)
	return res, nil
}

// missingSchemas are the schemas of translated objects whose database has
// no migrated table (the snapshot created no schema for it).
func (g *generator) missingSchemas(objs []*Object) []string {
	has := map[string]bool{}
	for _, t := range g.cat.Tables {
		has[t.Database] = true
	}
	var out []string
	for _, o := range objs {
		if o.Translated() && !has[o.Database] {
			has[o.Database] = true
			out = append(out, g.naming.QSchema(o.Database))
		}
	}
	return out
}

func kindOrder(k string) int {
	return map[string]int{KindFunction: 0, KindProcedure: 1, KindEvent: 2, KindSequence: 3}[k]
}

// lookup finds a relation a query may read: a migrated table or a view in scope.
func (g *generator) lookup(db, name string) (*relation, error) {
	if t := g.cat.Table(schema.TableID{Database: db, Name: name}); t != nil {
		r := newRelation("", g.tableColumns(t))
		r.qname = g.naming.QTable(t.TableID)
		return r, nil
	}
	if v, ok := g.views[db+"."+name]; ok {
		cols := make([]*sqlexpr.Column, len(v.cols))
		for i, c := range v.cols {
			cc := *c
			cc.PG = g.naming.Ident(c.Name)
			cols[i] = &cc
		}
		r := newRelation("", cols)
		r.qname = g.naming.QName(db, g.naming.Ident(name))
		return r, nil
	}
	return nil, refuse("reads %s.%s, which is not a table or view in the snapshot's scope (excluded, or it does not exist)", db, name)
}

func (g *generator) translateView(v *viewDef) {
	o := v.obj
	if v.definition == "" {
		o.needsHuman("the view's definition is not readable (the source user needs SHOW VIEW) or the view was dropped")
		return
	}
	st, err := parser.Parse(v.definition)
	if err != nil {
		o.needsHuman("the SQL parser cannot read the definition: %v", err)
		return
	}
	sel, ok := st.(sqlparser.TableStatement)
	if !ok {
		o.needsHuman("the definition is a %T, not a SELECT", st)
		return
	}
	x := g.xlate(o.Database)
	q, _, err := x.query(sel, nil)
	o.deps = x.deps
	if err != nil {
		o.needsHuman("%v", err)
		return
	}
	names := make([]string, len(v.cols))
	for i, c := range v.cols {
		names[i] = g.naming.Ident(c.Name)
	}
	stmt := "CREATE OR REPLACE VIEW " + g.naming.QName(o.Database, g.naming.Ident(o.Name))
	if len(names) > 0 {
		stmt += " (" + schema.QuoteIdents(names) + ")"
	}
	stmt += " AS\n" + q
	switch strings.ToUpper(v.checkOption) {
	case "CASCADED":
		stmt += "\nWITH CASCADED CHECK OPTION"
	case "LOCAL":
		stmt += "\nWITH LOCAL CHECK OPTION"
	}
	if strings.EqualFold(v.security, "INVOKER") {
		x.tr.Note("SQL SECURITY INVOKER: PostgreSQL 15+ can say WITH (security_invoker = true); by default a view runs with its owner's rights")
	}
	o.PG = []string{stmt}
	o.Notes = x.tr.Notes
}

// orderViews puts every view after the views it reads, and marks a view
// that reads one needing a human as needing a human too.
func (g *generator) orderViews(views []*viewDef) []*Object {
	var out []*Object
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(v *viewDef)
	visit = func(v *viewDef) {
		key := v.obj.Database + "." + v.obj.Name
		if state[key] != 0 {
			if state[key] == 1 {
				v.obj.needsHuman("the view reads itself through other views")
			}
			return
		}
		state[key] = 1
		for _, d := range v.obj.deps {
			dep, ok := g.views[d]
			if !ok {
				continue
			}
			visit(dep)
			if !dep.obj.Translated() {
				v.obj.needsHuman("reads view %s, which needs a human", d)
			}
		}
		state[key] = 2
		out = append(out, v.obj)
	}
	for _, v := range views {
		visit(v)
	}
	return out
}

func (g *generator) xlate(db string) *xlate {
	x := &xlate{naming: g.naming, db: db, lookup: g.lookup}
	x.tr = sqlexpr.Translator{Purpose: sqlexpr.Query, Queries: x, DB: db, Routines: g.routines}
	return x
}

// blockHeader is a block's first line in the file.
func blockHeader(o *Object) string {
	if o.Translated() {
		return fmt.Sprintf("-- %s %s.%s: translated, review", o.Kind, o.Database, o.Name)
	}
	return fmt.Sprintf("-- %s %s.%s: NEEDS A HUMAN: %s", o.Kind, o.Database, o.Name, oneLine(o.Human))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// tableColumns are a migrated table's columns under their target names;
// --exclude-columns columns are left out (a query reading one cannot run
// on the target).
func (g *generator) tableColumns(t *schema.Table) []*sqlexpr.Column {
	cols := make([]*sqlexpr.Column, 0, len(t.Columns))
	for i := range t.Columns {
		if g.naming.Excluded(t.TableID, t.Columns[i].Name) {
			continue
		}
		c := columnOf(&t.Columns[i], g.m)
		c.PG = g.naming.Column(t.TableID, c.Name)
		cols = append(cols, c)
	}
	return cols
}
