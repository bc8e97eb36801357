package sqlexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

func (x *Translator) caseExpr(n *sqlparser.CaseExpr, sc Scope) (Expr, error) {
	var b strings.Builder
	b.WriteString("CASE")
	var subject Expr
	if n.Expr != nil {
		s, err := x.Value(n.Expr, sc)
		if err != nil {
			return Expr{}, err
		}
		subject = s
		b.WriteString(" " + s.SQL)
	}
	var vals []Expr
	var conds []string
	for _, w := range n.Whens {
		var cond Expr
		var err error
		if n.Expr != nil {
			if cond, err = x.Value(w.Cond, sc); err == nil {
				err = x.comparable(subject, cond)
			}
		} else {
			cond, err = x.Bool(w.Cond, sc)
		}
		if err != nil {
			return Expr{}, err
		}
		v, err := x.Value(w.Val, sc)
		if err != nil {
			return Expr{}, err
		}
		conds = append(conds, cond.SQL)
		vals = append(vals, v)
	}
	if n.Else != nil {
		v, err := x.Value(n.Else, sc)
		if err != nil {
			return Expr{}, err
		}
		vals = append(vals, v)
	}
	vals, cls, err := x.unify(vals)
	if err != nil {
		return Expr{}, err
	}
	for i, c := range conds {
		b.WriteString(" WHEN " + c + " THEN " + vals[i].SQL)
	}
	if n.Else != nil {
		b.WriteString(" ELSE " + vals[len(vals)-1].SQL)
	}
	b.WriteString(" END")
	return pe("("+b.String()+")", cls), nil
}

// unify gives the results of CASE, IF, COALESCE one type as MySQL does:
// integers and other numbers are numbers, a mix of text and other values
// is text (PostgreSQL refuses the mix).
func (x *Translator) unify(vals []Expr) ([]Expr, Class, error) {
	cls := Null
	mixed := false
	for _, v := range vals {
		switch {
		case v.Class == Null:
		case cls == Null:
			cls = v.Class
		case cls != v.Class:
			if cls.numeric() && v.Class.numeric() {
				cls = Num
				continue
			}
			mixed = true
		}
	}
	if !mixed {
		return vals, cls, nil
	}
	out := make([]Expr, len(vals))
	for i, v := range vals {
		t, err := x.AsText(v)
		if err != nil {
			return nil, 0, err
		}
		out[i] = t
	}
	return out, Text, nil
}

// exactText reports whether a number prints the same in both databases:
// an integer, a DECIMAL column or cast, a decimal constant.
func exactText(v Expr) bool {
	switch {
	case v.Class == Int:
		return true
	case v.Col != nil:
		return !v.Col.Float && v.Col.Scale >= 0
	}
	_, err := strconv.ParseFloat(v.SQL, 64)
	return err == nil && !strings.ContainsAny(v.SQL, "eE")
}

// AsText is MySQL's implicit conversion of a value to a string, refused
// (or noted, for a reviewed query) where PostgreSQL prints it differently.
func (x *Translator) AsText(v Expr) (Expr, error) {
	var err error
	switch v.Class {
	case Text:
		return v, nil
	case Null:
		return pe("NULL::text", Text), nil
	case Int:
	case Num:
		if x.Purpose == Query && (v.Col != nil && v.Col.Float || v.Col == nil && strings.ContainsAny(v.SQL, "eE")) {
			x.Note("a FLOAT/DOUBLE value printed as text may be spelled differently by PostgreSQL")
		} else if x.Purpose != Query && !exactText(v) {
			err = x.differs("cannot translate a FLOAT/DOUBLE or computed number as text (printed differently by the two databases)",
				"a FLOAT/DOUBLE value printed as text may be spelled differently by PostgreSQL")
		}
	case Date, DateTime, Time:
		note := ""
		if v.Col != nil && v.Col.TZ {
			note = "a TIMESTAMP column is timestamptz on the target: as text it carries the zone offset"
		}
		if x.Purpose != Query {
			err = Refuse("cannot translate a %s value as text (PostgreSQL prints it by its DateStyle setting)", v.Class)
		} else if note != "" {
			x.Note(note)
		}
	default:
		err = x.differs("cannot translate a "+v.Class.String()+" value as text (printed differently by the two databases)",
			"a value of a type other than text, number or date is printed as text by PostgreSQL's rules")
	}
	if err != nil {
		return Expr{}, err
	}
	return pe("("+v.SQL+")::text", Text), nil
}
