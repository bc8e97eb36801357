package verifydb

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"fmt"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/typemap"
)

// Scope is a set of rows of one table, selected alike on both sides: a key
// range (modeRange), some hash buckets (modeBucket) or everything.
type Scope struct {
	Lo, Hi   KeyBound // modeRange; nil = open
	NBuckets int      // modeBucket: number of buckets, 0 = no bucketing
	Buckets  []int    // modeBucket: only these (nil = all)
}

func (s Scope) String() string {
	switch {
	case s.NBuckets > 0 && s.Buckets != nil:
		return fmt.Sprintf("buckets %v of %d", s.Buckets, s.NBuckets)
	case s.Lo == nil && s.Hi == nil:
		return "all rows"
	}
	return fmt.Sprintf("keys (%s, %s]", boundString(s.Lo), boundString(s.Hi))
}

func boundString(b KeyBound) string {
	if b == nil {
		return "∞"
	}
	parts := make([]string, len(b))
	for i, v := range b {
		parts[i] = string(v)
	}
	return strings.Join(parts, ",")
}

func bucketList(b []int) string {
	s := make([]string, len(b))
	for i, n := range b {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// myWhere is the MySQL condition of a scope.
func (p *Plan) myWhere(s Scope) (string, []any, error) {
	if s.NBuckets > 0 {
		if s.Buckets == nil {
			return "TRUE", nil, nil
		}
		return p.myBucket(p.myKeyText, s.NBuckets) + " IN (" + bucketList(s.Buckets) + ")", nil, nil
	}
	return p.myRangeWhere(s.Lo, s.Hi)
}

// pgWhere is the PostgreSQL condition of a scope.
func (p *Plan) pgWhere(s Scope) (string, []any, error) {
	if s.NBuckets > 0 {
		if s.Buckets == nil {
			return "TRUE", nil, nil
		}
		return p.pgBucket(p.pgKeyText, s.NBuckets) + " IN (" + bucketList(s.Buckets) + ")", nil, nil
	}
	return p.pgRangeWhere(s.Lo, s.Hi, 0)
}

// Agg is the checksum of a set of rows: its size and the sum of its row hashes.
type Agg struct {
	Count int64
	Sum   string // decimal
}

// HashSum adds 60-bit row hashes exactly (128-bit accumulator).
type HashSum struct {
	hi, lo uint64
	n      int64
}

func (h *HashSum) Add(v uint64) {
	var c uint64
	h.lo, c = bits.Add64(h.lo, v, 0)
	h.hi += c
	h.n++
}

func (h *HashSum) Agg() Agg {
	x := new(big.Int).SetUint64(h.hi)
	x.Lsh(x, 64)
	x.Add(x, new(big.Int).SetUint64(h.lo))
	return Agg{Count: h.n, Sum: x.String()}
}

// RowHashOf combines a server-side row digest with the canonical JSON
// values (tables with JSON columns): the first 60 bits of
// MD5(digest|json1|json2...), computed here in Go for both sides.
func RowHashOf(digest []byte, jsons []string) uint64 {
	h := md5.New()
	h.Write(digest)
	for _, j := range jsons {
		h.Write([]byte(colSep))
		h.Write([]byte(j))
	}
	sum := h.Sum(nil)
	return first60(sum)
}

// first60 is the integer of the first 15 hex digits of an MD5.
func first60(sum []byte) uint64 {
	var v uint64
	for _, b := range sum[:8] {
		v = v<<8 | uint64(b)
	}
	return v >> 4
}

// First60Hex is first60 of an MD5 given in hex.
func First60Hex(s []byte) (uint64, error) {
	var raw [16]byte
	if _, err := hex.Decode(raw[:], s); err != nil {
		return 0, fmt.Errorf("row digest %q: %w", s, err)
	}
	return first60(raw[:]), nil
}

// SourceChecksum computes the checksum of a scope on the source, per
// bucket when byBucket (else under key 0).
func (p *Plan) SourceChecksum(ctx context.Context, db *sql.DB, s Scope, byBucket bool) (map[int]Agg, error) {
	return p.MyChecksum(ctx, db, p.MyTable, "source", s, byBucket)
}

// MyChecksum is sourceChecksum of a MySQL table (the source's, or its copy
// in a MySQL target); side names it in errors.
func (p *Plan) MyChecksum(ctx context.Context, db *sql.DB, table, side string, s Scope, byBucket bool) (map[int]Agg, error) {
	where, args, err := p.myWhere(s)
	if err != nil {
		return nil, err
	}
	bucket := "0"
	if byBucket {
		bucket = p.myBucket(p.myKeyText, s.NBuckets)
	}
	if len(p.JSON) > 0 {
		sel := []string{bucket, p.Digest.My(p.myRowFast)}
		for _, i := range p.JSON {
			sel = append(sel, p.Cols[i].MySQLRaw)
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + table + " WHERE " + where
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("%s checksum of %s: %w", side, p.sideName(side), err)
		}
		return p.goChecksum(SQLRows{Rows: rows}, p.MySQLJSON(side))
	}
	q := "SELECT " + bucket + ", COUNT(*), CAST(COALESCE(SUM(" + p.MyHash(p.myRowFast) + "), 0) AS CHAR) FROM " +
		table + " WHERE " + where
	if byBucket {
		q += " GROUP BY 1"
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("%s checksum of %s: %w", side, p.sideName(side), err)
	}
	defer rows.Close()
	return collectAggs(rows, side+" checksum of "+p.sideName(side))
}

// sideName names the table of a side in errors.
func (p *Plan) sideName(side string) string {
	if side == "target" {
		return p.Target
	}
	return p.Name
}

// MySQLJSON is jsonText's source argument for JSON read on a MySQL side:
// the snapshot's policies apply to the source when the target is
// PostgreSQL, to neither side when both are MySQL.
func (p *Plan) MySQLJSON(side string) bool { return side == "source" && p.TgtMy == "" }

// TargetChecksum is sourceChecksum on the target.
func (p *Plan) TargetChecksum(ctx context.Context, pool *pgxpool.Pool, s Scope, byBucket bool) (map[int]Agg, error) {
	where, args, err := p.pgWhere(s)
	if err != nil {
		return nil, err
	}
	bucket := "0"
	if byBucket {
		bucket = p.pgBucket(p.pgKeyText, s.NBuckets)
	}
	if len(p.JSON) > 0 {
		sel := []string{bucket + "::text", p.Digest.PG(p.PGRowText)}
		for _, i := range p.JSON {
			sel = append(sel, p.Cols[i].PGRaw)
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.PGTable + " WHERE " + where
		rows, err := pool.Query(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("target checksum of %s: %w", p.Target, err)
		}
		return p.goChecksum(PGRows{Rows: rows}, false)
	}
	q := "SELECT " + bucket + "::int, count(*), COALESCE(sum(" + p.PGHash(p.PGRowText) + "), 0)::text FROM " +
		p.PGTable + " WHERE " + where
	if byBucket {
		q += " GROUP BY 1"
	}
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("target checksum of %s: %w", p.Target, err)
	}
	defer rows.Close()
	return collectAggs(rows, "target checksum of "+p.Target)
}

// AggRows is what both *sql.Rows and pgx.Rows offer.
type AggRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// collectAggs reads (bucket, count, sum) rows into per-bucket aggregates,
// leaving out empty buckets.
func collectAggs(rows AggRows, what string) (map[int]Agg, error) {
	out := map[int]Agg{}
	for rows.Next() {
		var b int
		var a Agg
		if err := rows.Scan(&b, &a.Count, &a.Sum); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if a.Count > 0 {
			out[b] = a
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// goChecksum aggregates rows of (bucket, row digest, JSON texts...) in Go.
func (p *Plan) goChecksum(rows RowSource, source bool) (map[int]Agg, error) {
	defer rows.Close()
	n := 2 + len(p.JSON)
	sums := map[int]*HashSum{}
	jsons := make([]string, len(p.JSON))
	for rows.Next() {
		vals, err := rows.Values(n)
		if err != nil {
			return nil, fmt.Errorf("checksum of %s: %w", p.Name, err)
		}
		b, err := strconv.Atoi(string(vals[0]))
		if err != nil {
			return nil, fmt.Errorf("checksum of %s: bucket %q", p.Name, vals[0])
		}
		for k := range p.JSON {
			jsons[k] = p.JSONText(vals[2+k], source)
		}
		h := sums[b]
		if h == nil {
			h = &HashSum{}
			sums[b] = h
		}
		h.Add(RowHashOf(vals[1], jsons))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checksum of %s: %w", p.Name, err)
	}
	out := make(map[int]Agg, len(sums))
	for b, h := range sums {
		out[b] = h.Agg()
	}
	return out, nil
}

// JSONText is the canonical form of a JSON value (nullText for NULL); a
// value that does not parse is compared by its raw text.
func (p *Plan) JSONText(raw []byte, source bool) string {
	if raw == nil {
		return NullText
	}
	c, err := typemap.CanonicalJSON(raw, source, p.opts.Nul)
	if err != nil {
		return "invalid JSON " + string(raw)
	}
	return c
}
