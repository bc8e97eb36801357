package sqlexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// controlFunc translates the NULL-handling and choice functions (IFNULL,
// IF, GREATEST …) and UUID; ok is false for a name of another family.
func (x *Translator) controlFunc(name string, es []sqlparser.Expr, args []Expr, sc Scope) (Expr, bool, error) {
	switch name {
	case "ifnull", "coalesce":
		if name == "ifnull" && len(args) != 2 || len(args) == 0 {
			return Expr{}, true, Refuse("%s with %d arguments", name, len(args))
		}
		vals, cls, err := x.unify(args)
		if err != nil {
			return Expr{}, true, err
		}
		return pe("coalesce("+sqls(vals)+")", cls), true, nil
	case "nullif":
		if err := wantArgs(name, args, 2); err != nil {
			return Expr{}, true, err
		}
		if err := x.comparable(args[0], args[1]); err != nil {
			return Expr{}, true, err
		}
		return pe("nullif("+sqls(args)+")", args[0].Class), true, nil
	case "if":
		if err := wantArgs(name, args, 3); err != nil {
			return Expr{}, true, err
		}
		c, err := x.Bool(es[0], sc)
		if err != nil {
			return Expr{}, true, err
		}
		vals, cls, err := x.unify(args[1:])
		if err != nil {
			return Expr{}, true, err
		}
		return pe("(CASE WHEN "+c.SQL+" THEN "+vals[0].SQL+" ELSE "+vals[1].SQL+" END)", cls), true, nil
	case "greatest", "least":
		if err := x.differs("cannot translate "+name+"() (MySQL returns NULL when an argument is NULL, PostgreSQL ignores NULLs)",
			strings.ToUpper(name)+": MySQL returns NULL when an argument is NULL, PostgreSQL ignores NULLs"); err != nil {
			return Expr{}, true, err
		}
		vals, cls, err := x.unify(args)
		if err != nil {
			return Expr{}, true, err
		}
		return pe(name+"("+sqls(vals)+")", cls), true, nil
	case "uuid":
		if err := x.differs("cannot translate function uuid() (PostgreSQL's gen_random_uuid() is version 4, MySQL's version 1)",
			"UUID() became gen_random_uuid() (version 4, not MySQL's version 1)"); err != nil {
			return Expr{}, true, err
		}
		return pe("gen_random_uuid()::text", Text), true, nil
	}
	return Expr{}, false, nil
}

// texts converts every argument to text as MySQL does.
func (x *Translator) texts(args []Expr) ([]string, error) {
	parts := make([]string, len(args))
	for i, a := range args {
		t, err := x.AsText(a)
		if err != nil {
			return nil, err
		}
		parts[i] = t.SQL
	}
	return parts, nil
}

// stringFunc translates the string functions whose arguments or NULL
// handling differ from PostgreSQL's; ok is false for another family.
func (x *Translator) stringFunc(name string, es []sqlparser.Expr, args []Expr, sc Scope) (Expr, bool, error) {
	switch name {
	case "concat":
		// || yields NULL when any argument is NULL, as MySQL's CONCAT;
		// PostgreSQL's concat() would skip NULLs.
		if len(args) == 0 {
			return Expr{}, true, Refuse("cannot translate concat()")
		}
		parts, err := x.texts(args)
		if err != nil {
			return Expr{}, true, err
		}
		return pe("("+strings.Join(parts, " || ")+")", Text), true, nil
	case "concat_ws":
		// Both skip NULL arguments after the separator and yield NULL for a
		// NULL separator; PostgreSQL's is not IMMUTABLE.
		if len(args) < 2 {
			return Expr{}, true, Refuse("concat_ws with %d arguments", len(args))
		}
		if x.immutable() {
			return Expr{}, true, Refuse("concat_ws in a generated column or index (not IMMUTABLE in PostgreSQL)")
		}
		parts, err := x.texts(args)
		if err != nil {
			return Expr{}, true, err
		}
		return pe("concat_ws("+strings.Join(parts, ", ")+")", Text), true, nil
	case "substring", "substr", "mid":
		p, err := x.substring(name, es, args)
		return p, true, err
	case "instr":
		if err := wantArgs(name, args, 2); err != nil {
			return Expr{}, true, err
		}
		parts, err := x.texts(args)
		if err == nil {
			err = x.TextCompare(args[0])
		}
		if err != nil {
			return Expr{}, true, err
		}
		return pe("strpos("+parts[0]+", "+parts[1]+")", Int), true, nil
	case "space":
		if err := wantArgs(name, args, 1); err != nil {
			return Expr{}, true, err
		}
		if err := wantNumber(args[0]); err != nil {
			return Expr{}, true, err
		}
		return pe("repeat(' ', "+args[0].SQL+")", Text), true, nil
	}
	return Expr{}, false, nil
}

// substring needs a positive constant start: MySQL counts a negative start
// from the end of the string, PostgreSQL does not.
func (x *Translator) substring(name string, es []sqlparser.Expr, args []Expr) (Expr, error) {
	if len(es) < 2 || len(es) > 3 {
		return Expr{}, Refuse("%s with %d arguments", name, len(es))
	}
	if from, ok := intLiteral(es[1]); !ok || from < 1 {
		return Expr{}, Refuse("%s with a start that is not a positive constant", name)
	}
	s, err := x.AsText(args[0])
	if err != nil {
		return Expr{}, err
	}
	out := "substr(" + s.SQL + ", " + args[1].SQL
	if len(args) == 3 {
		if err := wantNumber(args[2]); err != nil {
			return Expr{}, err
		}
		out += ", greatest(" + args[2].SQL + ", 0)" // MySQL: a negative length gives ''
	}
	return pe(out+")", Text), nil
}

// numericFunc translates ROUND, TRUNCATE and MOD, whose argument types
// or division by zero differ; ok is false for another family.
func (x *Translator) numericFunc(name string, _ []sqlparser.Expr, args []Expr, _ Scope) (Expr, bool, error) {
	switch name {
	case "round", "truncate", "mod":
	default:
		return Expr{}, false, nil
	}
	for _, a := range args {
		if err := wantNumber(a); err != nil {
			return Expr{}, true, err
		}
	}
	switch {
	case name == "round" && len(args) == 1:
		return pe("round("+args[0].SQL+")", args[0].Class), true, nil
	case len(args) != 2:
		return Expr{}, true, Refuse("%s with %d arguments", name, len(args))
	case name == "mod":
		return pe("mod("+args[0].SQL+", NULLIF("+args[1].SQL+", 0))", args[0].Class), true, nil
	}
	pg := map[string]string{"round": "round", "truncate": "trunc"}[name]
	return pe(pg+"(("+args[0].SQL+")::numeric, "+args[1].SQL+")", Num), true, nil
}

// substringIndex translates SUBSTRING_INDEX(s, delim, n) for a constant n:
// the first n fields (n > 0) or the last -n (n < 0) joined by delim.
func (x *Translator) substringIndex(es []sqlparser.Expr, sc Scope) (Expr, error) {
	if len(es) != 3 {
		return Expr{}, Refuse("substring_index with %d arguments", len(es))
	}
	n, ok := intLiteral(es[2])
	if !ok {
		return Expr{}, Refuse("substring_index with a count that is not a constant")
	}
	args, err := x.values(sc, es[:2]...)
	if err != nil {
		return Expr{}, err
	}
	parts, err := x.texts(args)
	if err != nil {
		return Expr{}, err
	}
	s, d := parts[0], parts[1]
	if n == 1 {
		return pe("split_part("+s+", "+d+", 1)", Text), nil
	}
	if x.immutable() {
		return Expr{}, Refuse("substring_index with a count other than 1 in a generated column or index (array_to_string is not IMMUTABLE in PostgreSQL)")
	}
	arr := "string_to_array(" + s + ", " + d + ")"
	if n >= 0 {
		return pe("array_to_string(("+arr+")[1:"+strconv.Itoa(n)+"], "+d+")", Text), nil
	}
	from := "greatest(cardinality(" + arr + ") - " + strconv.Itoa(-n-1) + ", 1)"
	if n == -1 {
		from = "cardinality(" + arr + ")"
	}
	return pe("array_to_string(("+arr+")["+from+":], "+d+")", Text), nil
}
