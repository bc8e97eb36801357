package objects

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// translateTrigger writes a PL/pgSQL trigger function and CREATE TRIGGER.
// A BEFORE trigger whose body only assigns NEW columns (SET NEW.c = expr,
// …) is translated; any other body is kept as a commented skeleton with
// the MySQL body for a human to port.
func (g *generator) translateTrigger(t *triggerDef) {
	o := t.obj
	if t.table == "" {
		o.needsHuman("the trigger's definition is not readable or the trigger was dropped")
		return
	}
	tbl := g.cat.Table(schema.TableID{Database: o.Database, Name: t.table})
	qtable := g.naming.QTable(schema.TableID{Database: o.Database, Name: t.table})
	fn := g.naming.QName(o.Database, g.naming.Ident(o.Name+"_trigger"))
	timing, event := strings.ToUpper(t.timing), strings.ToUpper(t.event)
	ret := "NEW"
	switch {
	case timing == "AFTER":
		ret = "NULL"
	case event == "DELETE":
		ret = "OLD"
	}
	body, err := g.triggerBody(t, tbl)
	if err != nil {
		o.needsHuman("%v", err)
		body = "  -- port the MySQL body above to PL/pgSQL\n"
	}
	o.PG = []string{
		"CREATE OR REPLACE FUNCTION " + fn + "() RETURNS trigger LANGUAGE plpgsql AS $sluice$\nBEGIN\n" +
			body + "  RETURN " + ret + ";\nEND\n$sluice$",
		"DROP TRIGGER IF EXISTS " + schema.QuoteIdent(o.Name) + " ON " + qtable,
		"CREATE TRIGGER " + schema.QuoteIdent(o.Name) + " " + timing + " " + event + " ON " + qtable +
			" FOR EACH ROW EXECUTE FUNCTION " + fn + "()",
		// The application starts writing here at the cut-over. (sluice's own
		// sessions never fire it: they run with session_replication_role =
		// replica, docs/replication.md "Triggers".)
		"ALTER TABLE " + qtable + " DISABLE TRIGGER " + schema.QuoteIdent(o.Name),
	}
	if o.Translated() {
		o.Notes = append(o.Notes, "created DISABLED: at cut-over, ALTER TABLE "+qtable+" ENABLE TRIGGER "+schema.QuoteIdent(o.Name)+
			" (it fires for the application only: sluice's sessions run with session_replication_role = replica; never ENABLE ALWAYS or REPLICA)")
	}
	if t.order > 1 {
		o.Notes = append(o.Notes, "MySQL runs triggers of one event in ACTION_ORDER, PostgreSQL in name order")
	}
}

// triggerBody translates a body made of SET NEW.col = expr assignments.
func (g *generator) triggerBody(t *triggerDef, tbl *schema.Table) (string, error) {
	if tbl == nil {
		return "", refuse("its table %s.%s is not migrated", t.obj.Database, t.table)
	}
	if !strings.EqualFold(t.timing, "BEFORE") {
		return "", refuse("an AFTER trigger's body is not translated")
	}
	stmts, err := splitTop(stripBeginEnd(t.statement), ';')
	if err != nil {
		return "", err
	}
	cols := g.tableColumns(tbl)
	sc := &scope{}
	if !strings.EqualFold(t.event, "DELETE") {
		sc.rels = append(sc.rels, newRelation("NEW", cols, "new"))
	}
	if !strings.EqualFold(t.event, "INSERT") {
		sc.rels = append(sc.rels, newRelation("OLD", cols, "old"))
	}
	x := g.xlate(t.obj.Database)
	var b strings.Builder
	for _, st := range stmts {
		st = strings.TrimSpace(st)
		if st == "" {
			continue
		}
		if len(st) < 4 || !strings.EqualFold(st[:4], "SET ") {
			return "", refuse("the body is more than SET NEW.column = … assignments")
		}
		assigns, err := splitTop(st[4:], ',')
		if err != nil {
			return "", err
		}
		for _, a := range assigns {
			line, err := g.assignment(x, sc, tbl, a)
			if err != nil {
				return "", err
			}
			b.WriteString("  " + line + ";\n")
		}
	}
	if b.Len() == 0 {
		return "", refuse("the body is empty")
	}
	t.obj.Notes = append(t.obj.Notes, x.tr.Notes...)
	return b.String(), nil
}

// assignment translates "NEW.col = expr" into "NEW."col" := expr".
func (g *generator) assignment(x *xlate, sc *scope, tbl *schema.Table, a string) (string, error) {
	lhs, rhs, ok := strings.Cut(a, "=")
	if !ok {
		return "", refuse("assignment %q", strings.TrimSpace(a))
	}
	lhs = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lhs), ":")) // SET NEW.c := expr
	if len(lhs) < 5 || !strings.EqualFold(lhs[:4], "NEW.") {
		return "", refuse("the body sets %s, not a NEW column", lhs)
	}
	c := tbl.Column(strings.Trim(lhs[4:], "`"))
	if c == nil {
		return "", refuse("the body sets unknown column %s", lhs)
	}
	e, err := schema.ParseExpr(strings.TrimSpace(rhs))
	if err != nil {
		return "", refuse("the SQL parser cannot read %q: %v", strings.TrimSpace(rhs), err)
	}
	v, err := x.tr.Value(e, sc)
	if err != nil {
		return "", err
	}
	return "NEW." + g.naming.QColumn(tbl.TableID, c.Name) + " := " + v.SQL, nil
}

// stripBeginEnd removes a BEGIN … END around a trigger body.
func stripBeginEnd(s string) string {
	s = strings.TrimSpace(s)
	u := strings.ToUpper(s)
	if strings.HasPrefix(u, "BEGIN") && strings.HasSuffix(u, "END") {
		return s[len("BEGIN") : len(s)-len("END")]
	}
	return s
}

// splitTop splits s at sep outside quotes, backquotes and parentheses.
func splitTop(s string, sep byte) ([]string, error) {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if quote != 0 || depth != 0 {
		return nil, refuse("unbalanced quotes or parentheses in the body")
	}
	return append(out, s[start:]), nil
}
