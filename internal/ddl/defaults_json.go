package ddl

import (
	"encoding/json"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// jsonDefault translates DEFAULT (json_object(...)) and DEFAULT
// (json_array(...)) over constants into the document they build, a jsonb
// literal: MySQL 8.0.13+ and MariaDB allow them as defaults of JSON columns
// (an empty settings document, an empty list). A text column gets only the
// empty documents, which both servers print the same ('{}', '[]'); other
// arguments (columns, functions, floats whose printing differs) stay
// untranslated. ok is false for anything else.
func jsonDefault(d string, kind typemap.Kind) (string, bool) {
	if kind != typemap.KindJSON && kind != typemap.KindText {
		return "", false
	}
	e, err := schema.ParseExpr(d)
	if err != nil {
		return "", false
	}
	var doc any
	switch n := e.(type) {
	case *sqlparser.JSONObjectExpr:
		obj := map[string]any{}
		for _, p := range n.Params {
			k, isLit := p.Key.(*sqlparser.Literal)
			v, ok := jsonConst(p.Value)
			if !isLit || k.Type != sqlparser.StrVal || !ok {
				return "", false
			}
			if _, dup := obj[k.Val]; dup {
				return "", false // MySQL versions differ on which duplicate wins
			}
			obj[k.Val] = v
		}
		doc = obj
	case *sqlparser.JSONArrayExpr:
		arr := []any{}
		for _, p := range n.Params {
			v, ok := jsonConst(p)
			if !ok {
				return "", false
			}
			arr = append(arr, v)
		}
		doc = arr
	default:
		return "", false
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return "", false
	}
	if kind == typemap.KindText {
		if s := string(b); s != "{}" && s != "[]" {
			return "", false
		}
		return sqlexpr.QuotePG(string(b)), true
	}
	return sqlexpr.QuotePG(string(b)) + "::jsonb", true
}

// jsonConst is a constant argument of json_object/json_array as the JSON
// value it becomes: strings, integers, decimals (json.Number keeps their
// digits), true, false and NULL.
func jsonConst(e sqlparser.Expr) (any, bool) {
	switch v := e.(type) {
	case *sqlparser.Literal:
		switch v.Type {
		case sqlparser.StrVal:
			return v.Val, true
		case sqlparser.IntVal, sqlparser.DecimalVal:
			if strings.HasPrefix(v.Val, ".") {
				return json.Number("0" + v.Val), true
			}
			return json.Number(v.Val), true
		}
	case sqlparser.BoolVal:
		return bool(v), true
	case *sqlparser.NullVal:
		return nil, true
	}
	return nil, false
}
