package sqlexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// Purpose says what a translated expression is for, and so what it may
// accept: a generated column must compute exactly what MySQL computed; a
// CHECK may be stricter than MySQL's (the copy then fails loudly, data
// never changes); a view or trigger is reviewed by a human, so a known
// difference becomes a note instead of a refusal.
type Purpose int

// The purposes.
const (
	Generated Purpose = iota
	Check
	Index
	Default
	Query // views, triggers and suggestions a human reviews
)

// Translator translates MySQL expressions for one Purpose. Its Notes
// collect the differences a reviewer should know (Query only).
type Translator struct {
	Purpose Purpose
	// MariaDB: the source is MariaDB, whose DECIMAL quotients keep their
	// digits in words of 9 and truncate (MySQL rounds to scale + 4).
	MariaDB bool
	// Queries translates subqueries; nil refuses them.
	Queries Queries
	// DB is the object's database and Routines the stored functions in
	// scope ("db.name", lower-cased name), so a call of one says why it is
	// not translated.
	DB       string
	Routines map[string]bool
	Notes    []string
	// Quotient is set once an expression divides with /: MySQL's quotient
	// shows the dividend's scale + 4 digits but carries groups of 9 digits
	// into a FLOAT/DOUBLE (MariaDB stores 1/3 as 0.333333333), which a
	// generated column of such a type cannot reproduce.
	Quotient bool
}

// Note records a difference for the reviewer, once.
func (x *Translator) Note(s string) {
	for _, n := range x.Notes {
		if n == s {
			return
		}
	}
	x.Notes = append(x.Notes, s)
}

// differs handles a construct whose PostgreSQL form may compute something
// else than MySQL: a note for a reviewed query, else refused (refusal).
func (x *Translator) differs(refusal, note string) error {
	if x.Purpose == Query {
		x.Note(note)
		return nil
	}
	return Refuse("%s", refusal)
}

// immutable reports whether PostgreSQL requires an IMMUTABLE expression
// (generated columns and index expressions).
func (x *Translator) immutable() bool { return x.Purpose == Generated || x.Purpose == Index }

// Text parses and translates MySQL expression text.
func (x *Translator) Text(s string, sc Scope) (Expr, error) {
	e, err := schema.ParseExpr(s)
	if err != nil {
		return Expr{}, Refuse("cannot translate %q: %v", s, err)
	}
	return x.Expr(e, sc)
}

// Bool translates e as a truth value (a PostgreSQL boolean).
func (x *Translator) Bool(e sqlparser.Expr, sc Scope) (Expr, error) {
	p, err := x.Expr(e, sc)
	if err != nil {
		return Expr{}, err
	}
	return ToBool(p)
}

// Value translates e where a value is used: a boolean becomes MySQL's 1/0.
func (x *Translator) Value(e sqlparser.Expr, sc Scope) (Expr, error) {
	p, err := x.Expr(e, sc)
	return ToValue(p), err
}

// Expr translates one expression node.
func (x *Translator) Expr(e sqlparser.Expr, sc Scope) (Expr, error) {
	switch n := e.(type) {
	case *sqlparser.ColName:
		return sc.Column(qualifier(n.Qualifier), n.Name.String())
	case *sqlparser.Literal:
		return literal(n)
	case *sqlparser.NullVal:
		return pe("NULL", Null), nil
	case sqlparser.BoolVal: // MySQL's TRUE and FALSE are the integers 1 and 0
		if n {
			return pe("1", Int), nil
		}
		return pe("0", Int), nil
	case *sqlparser.IntroducerExpr:
		return x.Expr(n.Expr, sc)
	case *sqlparser.CollateExpr:
		if err := x.differs("cannot translate COLLATE "+n.Collation,
			"COLLATE "+n.Collation+" dropped: PostgreSQL compares with the column's collation"); err != nil {
			return Expr{}, err
		}
		return x.Expr(n.Expr, sc)
	case *sqlparser.BinaryExpr:
		return x.binary(n, sc)
	case *sqlparser.UnaryExpr:
		return x.unary(n, sc)
	case *sqlparser.ComparisonExpr:
		return x.comparison(n, sc)
	case *sqlparser.AndExpr:
		return x.logical("AND", n.Left, n.Right, sc)
	case *sqlparser.OrExpr:
		return x.logical("OR", n.Left, n.Right, sc)
	case *sqlparser.XorExpr:
		return x.logical("<>", n.Left, n.Right, sc)
	case *sqlparser.NotExpr:
		a, err := x.Bool(n.Expr, sc)
		if err != nil {
			return Expr{}, err
		}
		return pe("(NOT "+a.SQL+")", Bool), nil
	case *sqlparser.IsExpr:
		return x.is(n, sc)
	case *sqlparser.BetweenExpr:
		return x.between(n, sc)
	case *sqlparser.CaseExpr:
		return x.caseExpr(n, sc)
	case *sqlparser.Subquery, *sqlparser.ExistsExpr:
		return x.subquery(n, sc)
	case sqlparser.ValTuple:
		return Expr{}, Refuse("cannot translate row constructor %s", sqlparser.String(n))
	case *sqlparser.Variable:
		return Expr{}, Refuse("variable %s (session state has no PostgreSQL counterpart here)", sqlparser.String(n))
	}
	return x.function(e, sc)
}

// subquery translates (SELECT …) and EXISTS (SELECT …).
func (x *Translator) subquery(e sqlparser.Expr, sc Scope) (Expr, error) {
	if x.Queries == nil {
		return Expr{}, Refuse("cannot translate a subquery %s", sqlparser.String(e))
	}
	var sel sqlparser.TableStatement
	ex, exists := e.(*sqlparser.ExistsExpr)
	if exists {
		sel = ex.Subquery.Select
	} else {
		sel = e.(*sqlparser.Subquery).Select
	}
	q, cols, err := x.Queries.Query(sel, sc)
	if err != nil {
		return Expr{}, err
	}
	if exists {
		return pe("(EXISTS ("+q+"))", Bool), nil
	}
	cls := Unknown
	if len(cols) == 1 {
		cls = cols[0].Class
	}
	return pe("("+q+")", cls), nil
}

// qualifier is "", "t" or "db.t".
func qualifier(t sqlparser.TableName) string {
	if t.Name.IsEmpty() {
		return ""
	}
	if t.Qualifier.IsEmpty() {
		return t.Name.String()
	}
	return t.Qualifier.String() + "." + t.Name.String()
}

func literal(n *sqlparser.Literal) (Expr, error) {
	switch n.Type {
	case sqlparser.StrVal:
		if strings.ContainsRune(n.Val, 0) {
			return Expr{}, Refuse("cannot translate a string literal with a NUL character")
		}
		return pe(QuotePG(n.Val), Text), nil
	case sqlparser.IntVal:
		return pe(n.Val, Int), nil
	case sqlparser.DecimalVal:
		scale := 0
		if i := strings.IndexByte(n.Val, '.'); i >= 0 {
			scale = len(n.Val) - i - 1
		}
		return exactNum(n.Val, scale), nil
	case sqlparser.FloatVal:
		return pe(n.Val, Num), nil
	case sqlparser.DateVal:
		return pe("DATE "+QuotePG(n.Val), Date), nil
	case sqlparser.TimestampVal:
		return pe("TIMESTAMP "+QuotePG(n.Val), DateTime), nil
	case sqlparser.TimeVal:
		return pe("TIME "+QuotePG(n.Val), Time), nil
	}
	return Expr{}, Refuse("cannot translate literal %s", sqlparser.String(n))
}

// isStringLiteral reports a quoted literal, which PostgreSQL types from
// the other side of a comparison.
func isStringLiteral(e Expr) bool {
	return e.Col == nil && e.Class == Text && strings.HasPrefix(e.SQL, "'")
}

// isLiteral reports a string or number constant.
func isLiteral(e Expr) bool {
	if isStringLiteral(e) {
		return true
	}
	_, err := strconv.ParseFloat(e.SQL, 64)
	return e.Col == nil && e.Class.numeric() && err == nil
}

// intLiteral returns the value of an integer constant, also a negated one.
func intLiteral(e sqlparser.Expr) (int, bool) {
	neg := false
	if u, ok := e.(*sqlparser.UnaryExpr); ok && u.Operator == sqlparser.UMinusOp {
		neg, e = true, u.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.IntVal {
		return 0, false
	}
	n, err := strconv.Atoi(l.Val)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// ToValue turns a PostgreSQL boolean into MySQL's 1/0 where a value is used.
func ToValue(e Expr) Expr {
	if e.Class == Bool {
		return pe("("+e.SQL+")::integer", Int)
	}
	return e
}

// ToBool turns a MySQL truth value (a number) into a PostgreSQL boolean.
func ToBool(e Expr) (Expr, error) {
	switch e.Class {
	case Bool:
		return e, nil
	case Null:
		return pe("NULL::boolean", Bool), nil
	case Int, Num, Unknown:
		return pe("("+e.SQL+" <> 0)", Bool), nil
	}
	return Expr{}, Refuse("a %s value used as a truth value (MySQL converts it to a number)", e.Class)
}

func (x *Translator) logical(op string, l, r sqlparser.Expr, sc Scope) (Expr, error) {
	a, err := x.Bool(l, sc)
	if err != nil {
		return Expr{}, err
	}
	b, err := x.Bool(r, sc)
	if err != nil {
		return Expr{}, err
	}
	return pe("("+a.SQL+" "+op+" "+b.SQL+")", Bool), nil
}
