package sqlexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

func (x *Translator) trim(n *sqlparser.TrimFuncExpr, sc Scope) (Expr, error) {
	a, err := x.Value(n.StringArg, sc)
	if err != nil {
		return Expr{}, err
	}
	s, err := x.AsText(a)
	if err != nil {
		return Expr{}, err
	}
	side := map[sqlparser.TrimFuncType]string{sqlparser.NormalTrimType: "BOTH", sqlparser.LTrimType: "LEADING",
		sqlparser.RTrimType: "TRAILING"}[n.TrimFuncType]
	switch n.Type {
	case sqlparser.LeadingTrimType:
		side = "LEADING"
	case sqlparser.TrailingTrimType:
		side = "TRAILING"
	case sqlparser.BothTrimType:
		side = "BOTH"
	}
	chars := "' '" // MySQL trims spaces only, PostgreSQL's default too, but say it
	if n.TrimArg != nil {
		l, ok := n.TrimArg.(*sqlparser.Literal)
		if !ok || l.Type != sqlparser.StrVal || len([]rune(l.Val)) != 1 {
			// MySQL removes a whole substring, PostgreSQL a set of characters:
			// they agree for one character only.
			return Expr{}, Refuse("TRIM of a string other than one character")
		}
		chars = QuotePG(l.Val)
	}
	return pe("trim("+side+" "+chars+" FROM "+s.SQL+")", Text), nil
}

func (x *Translator) cast(e sqlparser.Expr, t *sqlparser.ConvertType, sc Scope) (Expr, error) {
	a, err := x.Value(e, sc)
	if err != nil {
		return Expr{}, err
	}
	typ := strings.ToLower(t.Type)
	switch typ {
	case "signed", "signed integer", "unsigned", "unsigned integer":
		return x.castInteger(a, strings.HasPrefix(typ, "unsigned"))
	case "decimal":
		if err := wantNumber(a); err != nil {
			return Expr{}, err
		}
		p, s := 10, 0
		if t.Length != nil {
			p = *t.Length
		}
		if t.Scale != nil {
			s = *t.Scale
		}
		return Expr{SQL: "(" + a.SQL + ")::numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")", Class: Num,
			Col: &Column{Class: Num, Scale: s}}, nil
	case "double", "real", "float":
		if err := wantNumber(a); err != nil {
			return Expr{}, err
		}
		if typ == "float" { // MySQL's is single precision
			if err := x.differs("cannot translate CAST(… AS FLOAT) (single precision in MySQL)",
				"CAST(… AS FLOAT) became double precision (MySQL's is single precision)"); err != nil {
				return Expr{}, err
			}
		}
		return Expr{SQL: "(" + a.SQL + ")::double precision", Class: Num, Col: &Column{Class: Num, Scale: -1, Float: true}}, nil
	case "char", "nchar":
		s, err := x.AsText(a)
		if err != nil {
			return Expr{}, err
		}
		out := s.SQL
		if t.Length != nil {
			out = "left(" + out + ", " + strconv.Itoa(*t.Length) + ")"
		}
		return pe(out, Text), nil
	}
	return x.castTemporal(a, typ, t)
}

// castInteger is CAST(… AS SIGNED/UNSIGNED): numbers are rounded by
// both databases; MySQL reads a leading number of text, and wraps a
// negative value as UNSIGNED.
func (x *Translator) castInteger(a Expr, unsigned bool) (Expr, error) {
	if a.Class == Text {
		if err := x.differs("cannot translate CAST of text to an integer (MySQL reads a leading number and ignores the rest)",
			"CAST of text to an integer: MySQL reads a leading number and ignores the rest, PostgreSQL refuses"); err != nil {
			return Expr{}, err
		}
	} else if err := wantNumber(a); err != nil {
		return Expr{}, err
	}
	if unsigned {
		if err := x.differs("cannot translate CAST(… AS UNSIGNED) (MySQL wraps negative values)",
			"CAST(… AS UNSIGNED) became bigint: MySQL wraps negative values to 2^64 - n"); err != nil {
			return Expr{}, err
		}
	}
	return pe("("+a.SQL+")::bigint", Int), nil
}

// castTemporal is CAST(… AS DATE/DATETIME/TIME/JSON).
func (x *Translator) castTemporal(a Expr, typ string, t *sqlparser.ConvertType) (Expr, error) {
	switch typ {
	case "date", "datetime":
		if err := x.zoneless(a); err != nil {
			return Expr{}, err
		}
		if typ == "date" {
			return pe("("+a.SQL+")::date", Date), nil
		}
		fsp := 0
		if t.Length != nil {
			fsp = *t.Length
		}
		return pe("("+a.SQL+")::timestamp("+strconv.Itoa(fsp)+")", DateTime), nil
	case "time":
		if err := x.differs("cannot translate CAST(… AS TIME) (MySQL's TIME goes beyond 24 hours)",
			"CAST(… AS TIME): MySQL's TIME goes beyond 24 hours, PostgreSQL's does not"); err != nil {
			return Expr{}, err
		}
		return pe("("+a.SQL+")::time", Time), nil
	case "json":
		if err := x.differs("cannot translate CAST(… AS JSON)",
			"CAST(… AS JSON) became jsonb, which orders and prints objects by its own rules"); err != nil {
			return Expr{}, err
		}
		return pe("("+a.SQL+")::jsonb", Other), nil
	}
	return Expr{}, Refuse("cannot translate CAST(%s AS %s)", a.Class, typ)
}
