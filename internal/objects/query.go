package objects

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

// xlate translates one MySQL query (a view's SELECT, a trigger's
// expressions) into PostgreSQL text, collecting notes for the reviewer (in
// its expression translator) and the relations it reads.
type xlate struct {
	tr     sqlexpr.Translator // its Queries is this xlate: subqueries
	naming schema.Naming
	db     string // the object's database: unqualified table names live there
	// lookup returns a table or view in scope, or why the query cannot use it.
	lookup func(db, name string) (*relation, error)
	deps   []string // "db.name" of every table and view read
}

// Query translates a subquery of an expression in scope sc.
func (x *xlate) Query(st sqlparser.TableStatement, sc sqlexpr.Scope) (string, []*sqlexpr.Column, error) {
	parent, _ := sc.(*scope)
	return x.query(st, parent)
}

// query translates a SELECT or UNION.
func (x *xlate) query(st sqlparser.TableStatement, parent *scope) (string, []*sqlexpr.Column, error) {
	switch n := st.(type) {
	case *sqlparser.Select:
		return x.selectStmt(n, parent)
	case *sqlparser.Union:
		return x.union(n, parent)
	}
	return "", nil, refuse("%T statements are not translated", st)
}

func (x *xlate) union(n *sqlparser.Union, parent *scope) (string, []*sqlexpr.Column, error) {
	if n.With != nil || n.Into != nil || n.Lock != sqlparser.NoLock {
		return "", nil, refuse("UNION with WITH, INTO or a locking clause")
	}
	l, cols, err := x.query(n.Left, parent)
	if err != nil {
		return "", nil, err
	}
	r, _, err := x.query(n.Right, parent)
	if err != nil {
		return "", nil, err
	}
	op := " UNION ALL "
	if n.Distinct {
		op = " UNION "
	}
	out := "(" + l + ")" + op + "(" + r + ")"
	// ORDER BY and LIMIT of a UNION name its output columns.
	sc := &scope{parent: parent, aliases: map[string]sqlexpr.Expr{}, aliasFirst: true}
	for _, c := range cols {
		sc.aliases[strings.ToLower(c.Name)] = sqlexpr.Expr{SQL: schema.QuoteIdent(x.naming.Ident(c.Name)), Class: c.Class, Col: c}
	}
	tail, err := x.orderLimit(n.OrderBy, n.Limit, sc)
	if err != nil {
		return "", nil, err
	}
	return out + tail, cols, nil
}

func (x *xlate) selectStmt(n *sqlparser.Select, parent *scope) (string, []*sqlexpr.Column, error) {
	switch {
	case n.Into != nil:
		return "", nil, refuse("SELECT … INTO")
	case n.Lock != sqlparser.NoLock:
		return "", nil, refuse("SELECT with a locking clause")
	case n.SQLCalcFoundRows:
		return "", nil, refuse("SQL_CALC_FOUND_ROWS")
	case len(n.Windows) > 0:
		return "", nil, refuse("named windows")
	}
	sc := &scope{parent: parent, ctes: map[string]*relation{}, aliases: map[string]sqlexpr.Expr{}}
	var b strings.Builder
	if n.With != nil {
		w, err := x.with(n.With, sc)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(w)
	}
	b.WriteString("SELECT ")
	if n.Distinct {
		b.WriteString("DISTINCT ")
	}
	from, err := x.fromList(n.From, sc)
	if err != nil {
		return "", nil, err
	}
	items, cols, err := x.selectItems(n.GetColumns(), sc)
	if err != nil {
		return "", nil, err
	}
	b.WriteString(strings.Join(items, ", "))
	if len(from) > 0 {
		b.WriteString(" FROM " + strings.Join(from, ", "))
	}
	if n.Where != nil {
		w, err := x.tr.Bool(n.Where.Expr, sc)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(" WHERE " + w.SQL)
	}
	if n.GroupBy != nil && len(n.GroupBy.Exprs) > 0 {
		g, err := x.groupBy(n.GroupBy, sc)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(g)
	}
	sc.aliasFirst = true
	if n.Having != nil {
		h, err := x.tr.Bool(n.Having.Expr, sc)
		if err != nil {
			return "", nil, err
		}
		b.WriteString(" HAVING " + h.SQL)
	}
	tail, err := x.orderLimit(n.OrderBy, n.Limit, sc)
	if err != nil {
		return "", nil, err
	}
	b.WriteString(tail)
	return b.String(), cols, nil
}

// fromList translates the FROM clause's table expressions, leaving out
// those that translate to nothing.
func (x *xlate) fromList(tes []sqlparser.TableExpr, sc *scope) ([]string, error) {
	var from []string
	for _, te := range tes {
		f, err := x.tableExpr(te, sc)
		if err != nil {
			return nil, err
		}
		if f != "" {
			from = append(from, f)
		}
	}
	return from, nil
}

// selectItems translates the select list: the items' SQL and the output
// columns, each aliased item made known to the scope by its name.
func (x *xlate) selectItems(ses []sqlparser.SelectExpr, sc *scope) ([]string, []*sqlexpr.Column, error) {
	var items []string
	var cols []*sqlexpr.Column
	for _, se := range ses {
		switch s := se.(type) {
		case *sqlparser.StarExpr:
			item, star, err := x.star(s, sc)
			if err != nil {
				return nil, nil, err
			}
			items = append(items, item)
			cols = append(cols, star...)
		case *sqlparser.AliasedExpr:
			item, col, err := x.aliasedItem(s, sc)
			if err != nil {
				return nil, nil, err
			}
			items = append(items, item)
			cols = append(cols, col)
		default:
			return nil, nil, refuse("select item %s", sqlparser.String(se))
		}
	}
	return items, cols, nil
}

// aliasedItem translates one expression of the select list; its name is
// the alias, the column's name or the expression's text, as MySQL names it.
func (x *xlate) aliasedItem(s *sqlparser.AliasedExpr, sc *scope) (string, *sqlexpr.Column, error) {
	e, err := x.tr.Expr(s.Expr, sc)
	if err != nil {
		return "", nil, err
	}
	e = sqlexpr.ToValue(e)
	name := s.As.String()
	if name == "" {
		if cn, ok := s.Expr.(*sqlparser.ColName); ok {
			name = cn.Name.String()
		} else {
			name = sqlparser.String(s.Expr)
		}
	}
	item := e.SQL
	if !s.As.IsEmpty() {
		item += " AS " + schema.QuoteIdent(x.naming.Ident(name))
	}
	col := &sqlexpr.Column{Class: e.Class, Scale: -1}
	if e.Col != nil {
		c := *e.Col
		col = &c
	}
	col.Name, col.PG = name, ""
	sc.aliases[strings.ToLower(name)] = e
	return item, col, nil
}

// groupBy translates a GROUP BY clause, refusing WITH ROLLUP.
func (x *xlate) groupBy(gb *sqlparser.GroupBy, sc *scope) (string, error) {
	if gb.WithRollup {
		return "", refuse("GROUP BY … WITH ROLLUP")
	}
	var g []string
	for _, e := range gb.Exprs {
		p, err := x.tr.Expr(e, sc)
		if err != nil {
			return "", err
		}
		_ = x.tr.TextCompare(p) // groups of a case-insensitive collation
		g = append(g, p.SQL)
	}
	return " GROUP BY " + strings.Join(g, ", "), nil
}

// orderLimit translates ORDER BY (with MySQL's NULL ordering: first when
// ascending, last when descending) and LIMIT [offset,] count.
func (x *xlate) orderLimit(ob sqlparser.OrderBy, lim *sqlparser.Limit, sc *scope) (string, error) {
	var b strings.Builder
	if len(ob) > 0 {
		o, err := x.tr.OrderBy(ob, sc)
		if err != nil {
			return "", err
		}
		b.WriteString(" ORDER BY " + o)
	}
	if lim != nil {
		if lim.Rowcount != nil {
			r, err := x.tr.Expr(lim.Rowcount, sc)
			if err != nil {
				return "", err
			}
			b.WriteString(" LIMIT " + r.SQL)
		}
		if lim.Offset != nil {
			o, err := x.tr.Expr(lim.Offset, sc)
			if err != nil {
				return "", err
			}
			b.WriteString(" OFFSET " + o.SQL)
		}
	}
	return b.String(), nil
}

func (x *xlate) with(w *sqlparser.With, sc *scope) (string, error) {
	var parts []string
	for _, cte := range w.CTEs {
		name := cte.ID.String()
		if w.Recursive {
			return "", refuse("WITH RECURSIVE")
		}
		q, cols, err := x.query(cte.Subquery, sc)
		if err != nil {
			return "", err
		}
		head := schema.QuoteIdent(name)
		if len(cte.Columns) > 0 {
			var names []string
			for i, c := range cte.Columns {
				names = append(names, c.String())
				if i < len(cols) {
					cc := *cols[i]
					cc.Name, cc.PG = c.String(), ""
					cols[i] = &cc
				}
			}
			head += " (" + schema.QuoteIdents(names) + ")"
		}
		sc.ctes[strings.ToLower(name)] = newRelation(schema.QuoteIdent(name), cols, name)
		parts = append(parts, head+" AS ("+q+")")
	}
	return "WITH " + strings.Join(parts, ", ") + " ", nil
}

// star translates * or t.*.
func (x *xlate) star(s *sqlparser.StarExpr, sc *scope) (string, []*sqlexpr.Column, error) {
	var out []*sqlexpr.Column
	qual := strings.ToLower(s.TableName.Name.String())
	var pg string
	for _, r := range sc.rels {
		if qual != "" && !r.known(qual) {
			continue
		}
		pg = r.pg
		for _, c := range r.cols {
			out = append(out, c)
		}
	}
	if qual == "" {
		return "*", out, nil
	}
	if pg == "" {
		return "", nil, refuse("%s.*: no such table in the query", s.TableName.Name.String())
	}
	return pg + ".*", out, nil
}

// tableExpr translates one FROM item and adds its relations to the scope.
func (x *xlate) tableExpr(te sqlparser.TableExpr, sc *scope) (string, error) {
	switch n := te.(type) {
	case *sqlparser.AliasedTableExpr:
		return x.aliasedTable(n, sc)
	case *sqlparser.ParenTableExpr:
		var parts []string
		for _, e := range n.Exprs {
			p, err := x.tableExpr(e, sc)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		if len(parts) == 1 {
			if _, isJoin := n.Exprs[0].(*sqlparser.JoinTableExpr); isJoin {
				return "(" + parts[0] + ")", nil
			}
			return parts[0], nil
		}
		return "", refuse("parenthesised list of tables")
	case *sqlparser.JoinTableExpr:
		return x.join(n, sc)
	}
	return "", refuse("FROM item %s", sqlparser.String(te))
}

var joinWords = map[sqlparser.JoinType]string{
	sqlparser.NormalJoinType: "JOIN", sqlparser.StraightJoinType: "JOIN",
	sqlparser.LeftJoinType: "LEFT JOIN", sqlparser.RightJoinType: "RIGHT JOIN",
	sqlparser.NaturalJoinType: "NATURAL JOIN", sqlparser.NaturalLeftJoinType: "NATURAL LEFT JOIN",
	sqlparser.NaturalRightJoinType: "NATURAL RIGHT JOIN",
}

func (x *xlate) join(n *sqlparser.JoinTableExpr, sc *scope) (string, error) {
	l, err := x.tableExpr(n.LeftExpr, sc)
	if err != nil {
		return "", err
	}
	r, err := x.tableExpr(n.RightExpr, sc)
	if err != nil {
		return "", err
	}
	word := joinWords[n.Join]
	cond := ""
	switch {
	case n.Condition != nil && n.Condition.On != nil:
		on, err := x.tr.Bool(n.Condition.On, sc)
		if err != nil {
			return "", err
		}
		cond = " ON " + on.SQL
	case n.Condition != nil && len(n.Condition.Using) > 0:
		var names []string
		for _, c := range n.Condition.Using {
			names = append(names, c.String())
		}
		cond = " USING (" + schema.QuoteIdents(names) + ")"
	case !strings.HasPrefix(word, "NATURAL"):
		if word != "JOIN" {
			return "", refuse("%s without a condition", word)
		}
		word = "CROSS JOIN" // MySQL's JOIN without ON
	}
	return l + " " + word + " " + r + cond, nil
}

func (x *xlate) aliasedTable(n *sqlparser.AliasedTableExpr, sc *scope) (string, error) {
	if len(n.Partitions) > 0 {
		return "", refuse("PARTITION selection")
	}
	if len(n.Hints) > 0 {
		x.tr.Note("index hints dropped (PostgreSQL's planner has none)")
	}
	alias := n.As.String()
	switch t := n.Expr.(type) {
	case sqlparser.TableName:
		return x.tableName(t, alias, sc)
	case *sqlparser.DerivedTable:
		if t.Lateral {
			return "", refuse("LATERAL derived table")
		}
		if alias == "" {
			return "", refuse("derived table without an alias")
		}
		q, cols, err := x.query(t.Select, sc.parent)
		if err != nil {
			return "", err
		}
		infos := cols
		head := "(" + q + ") AS " + schema.QuoteIdent(alias)
		if len(n.Columns) > 0 {
			var names []string
			for i, c := range n.Columns {
				names = append(names, c.String())
				if i < len(infos) {
					cc := *infos[i]
					cc.Name, cc.PG = c.String(), ""
					infos[i] = &cc
				}
			}
			head += " (" + schema.QuoteIdents(names) + ")"
		}
		sc.rels = append(sc.rels, newRelation(schema.QuoteIdent(alias), infos, alias))
		return head, nil
	}
	return "", refuse("FROM item %s", sqlparser.String(n))
}

func (x *xlate) tableName(t sqlparser.TableName, alias string, sc *scope) (string, error) {
	name, db := t.Name.String(), t.Qualifier.String()
	if db == "" && strings.EqualFold(name, "dual") && alias == "" {
		return "", nil // the parser's FROM of a SELECT without one
	}
	if db == "" {
		if cte := sc.cte(name); cte != nil {
			r := cte
			if alias != "" {
				r = cte.aliased(alias)
			}
			sc.rels = append(sc.rels, r)
			out := schema.QuoteIdent(name)
			if alias != "" {
				out += " AS " + schema.QuoteIdent(alias)
			}
			return out, nil
		}
		db = x.db
	}
	rel, err := x.lookup(db, name)
	if err != nil {
		return "", err
	}
	x.deps = append(x.deps, db+"."+name)
	qname := rel.qname
	if alias != "" {
		sc.rels = append(sc.rels, &relation{pg: schema.QuoteIdent(alias), names: []string{strings.ToLower(alias)}, cols: rel.cols})
		return qname + " AS " + schema.QuoteIdent(alias), nil
	}
	sc.rels = append(sc.rels, &relation{pg: qname, names: []string{strings.ToLower(name), strings.ToLower(db + "." + name)}, cols: rel.cols})
	return qname, nil
}
