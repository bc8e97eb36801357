package objects

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// generatedColumns lists the generated columns the snapshot made plain
// columns (PostgreSQL could not compute them exactly as MySQL does): their
// values are copied, so after cut-over nothing computes them. Each needs a
// human; the suggestion is the expression as PostgreSQL would compute it.
func (g *generator) generatedColumns() []*Object {
	m := typemap.New(typemap.DefaultOptions(), nil)
	var out []*Object
	for _, t := range g.cat.Tables {
		plain := map[int]bool{}
		for _, i := range ddl.WritableColumnsIn(t, g.naming) {
			plain[i] = true
		}
		reasons := generatedReasons(t, m, g.naming)
		for i := range t.Columns {
			c := &t.Columns[i]
			if c.GenerationExpr == "" || !plain[i] {
				continue
			}
			kind := "VIRTUAL"
			if c.GeneratedStored {
				kind = "STORED"
			}
			o := &Object{Kind: KindGenerated, Database: t.Database, Name: t.Name + "." + c.Name,
				MySQL: fmt.Sprintf("%s %s GENERATED ALWAYS AS (%s) %s", schema.QuoteMySQL(c.Name), c.ColumnType, c.GenerationExpr, kind)}
			why := reasons[c.Name]
			if why == "" {
				why = "PostgreSQL cannot compute it exactly as MySQL does"
			}
			o.needsHuman("%s; it is a plain column whose values sluice copies, nothing computes it after cut-over", why)
			cols := g.tableColumns(t)
			x := g.xlate(t.Database)
			e, err := schema.ParseExpr(c.GenerationExpr)
			if err != nil && strings.Contains(c.GenerationExpr, `\'`) {
				// MySQL 8's information_schema escapes the quotes of literals.
				e, err = schema.ParseExpr(strings.ReplaceAll(c.GenerationExpr, `\'`, `'`))
			}
			var pg sqlexpr.Expr
			if err == nil {
				pg, err = x.tr.Value(e, &scope{rels: []*relation{newRelation("", cols, t.Name)}})
			}
			pgType, _, terr := m.PGType(*c)
			switch {
			case err != nil:
				o.Notes = append(o.Notes, "no PostgreSQL expression either: "+err.Error())
			case terr != nil:
				o.Notes = append(o.Notes, "column type: "+terr.Error())
			default:
				o.PG = []string{"ALTER TABLE " + g.naming.QTable(t.TableID) + " DROP COLUMN " + g.naming.QColumn(t.TableID, c.Name) +
					", ADD COLUMN " + g.naming.QColumn(t.TableID, c.Name) + " " + pgType + " GENERATED ALWAYS AS (" + pg.SQL + ") STORED"}
				o.Notes = append(o.Notes, x.tr.Notes...)
				o.Notes = append(o.Notes, "after cut-over only; moves the column to the end; PostgreSQL requires an IMMUTABLE expression")
			}
			out = append(out, o)
		}
	}
	return out
}

// generatedReasons returns, per column name, why the DDL translator made a
// generated column a plain one (from its plan's warnings).
func generatedReasons(t *schema.Table, m *typemap.Mapper, n schema.Naming) map[string]string {
	out := map[string]string{}
	plan, err := ddl.CreateTable(t, m, n)
	if err != nil {
		return out
	}
	for _, w := range plan.Warnings {
		for _, c := range t.Columns {
			prefix := t.String() + "." + c.Name + ": generated column expression " + c.GenerationExpr + ": "
			if c.GenerationExpr != "" && strings.HasPrefix(w, prefix) {
				why, _, _ := strings.Cut(strings.TrimPrefix(w, prefix), "; it becomes a plain column")
				out[c.Name] = why
			}
		}
	}
	return out
}

var everyRe = regexp.MustCompile(`(?i)\bEVERY\s+'?(\d+)'?\s+(MINUTE|HOUR|DAY|WEEK|MONTH)\b`)
var doRe = regexp.MustCompile(`(?is)\bDO\s+(.*)$`)

// translateOther handles routines, events and sequences: never translated,
// the file keeps their MySQL text and a hint.
func (g *generator) translateOther(o *Object) {
	if o.MySQL == "" {
		o.needsHuman("its definition is not readable by the source user (SHOW CREATE %s returned nothing)", strings.ToUpper(o.Kind))
		return
	}
	switch o.Kind {
	case KindProcedure, KindFunction:
		o.needsHuman("stored %ss are not translated: port it to PL/pgSQL (CREATE %s in schema %s)",
			o.Kind, strings.ToUpper(o.Kind), g.naming.QSchema(o.Database))
	case KindEvent:
		o.needsHuman("events are not translated: schedule the body with pg_cron (or cron and psql)")
		body := "<the body, ported>"
		if m := doRe.FindStringSubmatch(o.MySQL); m != nil {
			body = strings.TrimSpace(m[1]) + " -- MySQL, port it"
		}
		o.PG = []string{fmt.Sprintf("SELECT cron.schedule(%s, %s, $sluice$%s$sluice$)",
			sqlexpr.QuotePG(o.Database+"."+o.Name), sqlexpr.QuotePG(cronSchedule(o.MySQL)), body)}
	case KindSequence:
		o.needsHuman("MariaDB sequences are not translated: CREATE SEQUENCE %s, then setval() to the source's next value",
			g.naming.QName(o.Database, o.Name))
	}
}

// cronSchedule guesses a cron line from ON SCHEDULE EVERY n unit.
func cronSchedule(def string) string {
	m := everyRe.FindStringSubmatch(def)
	if m == nil {
		return "<schedule>"
	}
	n, _ := strconv.Atoi(m[1])
	every := func() string {
		if n == 1 {
			return "*"
		}
		return "*/" + strconv.Itoa(n)
	}
	switch strings.ToUpper(m[2]) {
	case "MINUTE":
		return every() + " * * * *"
	case "HOUR":
		return "0 " + every() + " * * *"
	case "DAY":
		if n == 1 {
			return "0 0 * * *"
		}
		return "0 0 */" + strconv.Itoa(n) + " * *"
	case "WEEK":
		if n == 1 {
			return "0 0 * * 0"
		}
	case "MONTH":
		return "0 0 1 " + every() + " *"
	}
	return "<schedule>"
}
