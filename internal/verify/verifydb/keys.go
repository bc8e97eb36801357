package verifydb

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// KeyBound is a position in key order: the raw source values (as the text
// protocol returns them for SelectExpr) of the first rangeN key columns.
type KeyBound [][]byte

// MyArg converts a raw key value into the parameter MySQL compares
// exactly: integers as integers (a string would be compared as a double,
// losing precision above 2^53), everything else as the string MySQL
// converts to the column's type.
func (p *Plan) MyArg(k int, raw []byte) (any, error) {
	c := p.Cols[p.Key[k]]
	switch c.Kind {
	case typemap.KindInt, typemap.KindYear:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key %s value %q: %w", c.Name, raw, err)
		}
		return n, nil
	case typemap.KindUint64:
		n, err := strconv.ParseUint(string(raw), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("key %s value %q: %w", c.Name, raw, err)
		}
		return n, nil
	case typemap.KindBinary:
		return raw, nil
	}
	if p.rawTextKey(k) {
		return hex.EncodeToString(raw), nil // see myPlaceholder
	}
	return string(raw), nil
}

// rawTextKey reports whether key column k is text read as raw bytes of a
// charset other than UTF-8.
func (p *Plan) rawTextKey(k int) bool {
	cc := p.Convs[p.Key[k]]
	return cc.Kind == typemap.KindText && cc.Column.Charset != "" && p.rawSelected(p.Key[k])
}

// MyPlaceholder is the parameter marker for key column k: DECIMAL values
// are cast to the column's type so they compare as decimals; text read as
// its raw bytes (a charset other than UTF-8, typemap.SelectExpr) is sent
// in hex (myArg) and taken as bytes of the column's charset, in its
// collation: a parameter is text in the session's utf8mb4, which would be
// an illegal mix of collations, and CONVERT(CAST(? AS BINARY) USING cs)
// converts from utf8mb4 instead of taking the bytes.
func (p *Plan) MyPlaceholder(k int) string {
	cc := p.Convs[p.Key[k]]
	if p.rawTextKey(k) {
		x := "CONVERT(UNHEX(?) USING " + cc.Column.Charset + ")"
		if cc.Column.Collation != "" {
			x += " COLLATE " + cc.Column.Collation
		}
		return x
	}
	if cc.Kind == typemap.KindDecimal {
		prec := cc.Column.Precision
		if prec == 0 {
			prec = 10
		}
		return fmt.Sprintf("CAST(? AS DECIMAL(%d,%d))", prec, cc.Column.Scale)
	}
	return "?"
}

// PGArg converts a raw key value with typemap, as the snapshot wrote it.
func (p *Plan) PGArg(k int, raw []byte) (any, error) {
	v, err := p.Convs[p.Key[k]].FromText(raw)
	if err != nil {
		return nil, fmt.Errorf("key bound: %w", err)
	}
	return v, nil
}

// myRangeWhere is the MySQL condition lo < key[:rangeN] <= hi (nil bounds
// are open), written with OR/AND so that MariaDB's range optimizer uses the
// index (it does not for row constructors).
func (p *Plan) myRangeWhere(lo, hi KeyBound) (string, []any, error) {
	var conds []string
	var args []any
	for _, b := range []struct {
		bound KeyBound
		op    string
	}{{lo, ">"}, {hi, "<"}} {
		if b.bound == nil {
			continue
		}
		vals := make([]any, len(b.bound))
		for k, raw := range b.bound {
			v, err := p.MyArg(k, raw)
			if err != nil {
				return "", nil, err
			}
			vals[k] = v
		}
		var ors []string
		for k := range b.bound {
			var ands []string
			for j := 0; j < k; j++ {
				ands = append(ands, schema.QuoteMySQL(p.Cols[p.Key[j]].Name)+" = "+p.MyPlaceholder(j))
				args = append(args, vals[j])
			}
			op := b.op
			if b.op == "<" && k == len(b.bound)-1 {
				op = "<="
			}
			ands = append(ands, schema.QuoteMySQL(p.Cols[p.Key[k]].Name)+" "+op+" "+p.MyPlaceholder(k))
			args = append(args, vals[k])
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	if len(conds) == 0 {
		return "TRUE", nil, nil
	}
	return strings.Join(conds, " AND "), args, nil
}

// pgRangeWhere is the same condition for PostgreSQL, with row comparisons
// (which PostgreSQL runs as index ranges); parameters start at $(first+1).
func (p *Plan) pgRangeWhere(lo, hi KeyBound, first int) (string, []any, error) {
	var conds []string
	var args []any
	for _, b := range []struct {
		bound KeyBound
		op    string
	}{{lo, ">"}, {hi, "<="}} {
		if b.bound == nil {
			continue
		}
		cols := make([]string, len(b.bound))
		ph := make([]string, len(b.bound))
		for k, raw := range b.bound {
			v, err := p.PGArg(k, raw)
			if err != nil {
				return "", nil, err
			}
			args = append(args, v)
			cols[k] = QuotePG(p.Cols[p.Key[k]].PGName)
			ph[k] = "$" + strconv.Itoa(first+len(args))
		}
		conds = append(conds, "("+strings.Join(cols, ", ")+") "+b.op+" ("+strings.Join(ph, ", ")+")")
	}
	if len(conds) == 0 {
		return "TRUE", nil, nil
	}
	return strings.Join(conds, " AND "), args, nil
}

// keyOrder is the ORDER BY list of the first n key columns on MySQL.
func (p *Plan) myKeyOrder(n int) string {
	parts := make([]string, n)
	for k := range n {
		parts[k] = schema.QuoteMySQL(p.Cols[p.Key[k]].Name)
	}
	return strings.Join(parts, ", ")
}
