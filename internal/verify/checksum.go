package verify

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

// scope is a set of rows of one table, selected alike on both sides: a key
// range (modeRange), some hash buckets (modeBucket) or everything.
type scope struct {
	lo, hi   keyBound // modeRange; nil = open
	nBuckets int      // modeBucket: number of buckets, 0 = no bucketing
	buckets  []int    // modeBucket: only these (nil = all)
}

func (s scope) String() string {
	switch {
	case s.nBuckets > 0 && s.buckets != nil:
		return fmt.Sprintf("buckets %v of %d", s.buckets, s.nBuckets)
	case s.lo == nil && s.hi == nil:
		return "all rows"
	}
	return fmt.Sprintf("keys (%s, %s]", boundString(s.lo), boundString(s.hi))
}

func boundString(b keyBound) string {
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
func (p *tablePlan) myWhere(s scope) (string, []any, error) {
	if s.nBuckets > 0 {
		if s.buckets == nil {
			return "TRUE", nil, nil
		}
		return p.myBucket(p.myKeyText, s.nBuckets) + " IN (" + bucketList(s.buckets) + ")", nil, nil
	}
	return p.myRangeWhere(s.lo, s.hi)
}

// pgWhere is the PostgreSQL condition of a scope.
func (p *tablePlan) pgWhere(s scope) (string, []any, error) {
	if s.nBuckets > 0 {
		if s.buckets == nil {
			return "TRUE", nil, nil
		}
		return p.pgBucket(p.pgKeyText, s.nBuckets) + " IN (" + bucketList(s.buckets) + ")", nil, nil
	}
	return p.pgRangeWhere(s.lo, s.hi, 0)
}

// agg is the checksum of a set of rows: its size and the sum of its row hashes.
type agg struct {
	Count int64
	Sum   string // decimal
}

// hashSum adds 60-bit row hashes exactly (128-bit accumulator).
type hashSum struct {
	hi, lo uint64
	n      int64
}

func (h *hashSum) add(v uint64) {
	var c uint64
	h.lo, c = bits.Add64(h.lo, v, 0)
	h.hi += c
	h.n++
}

func (h *hashSum) agg() agg {
	x := new(big.Int).SetUint64(h.hi)
	x.Lsh(x, 64)
	x.Add(x, new(big.Int).SetUint64(h.lo))
	return agg{Count: h.n, Sum: x.String()}
}

// rowHashOf combines a server-side row digest with the canonical JSON
// values (tables with JSON columns): the first 60 bits of
// MD5(digest|json1|json2...), computed here in Go for both sides.
func rowHashOf(digest []byte, jsons []string) uint64 {
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

// first60Hex is first60 of an MD5 given in hex.
func first60Hex(s []byte) (uint64, error) {
	var raw [16]byte
	if _, err := hex.Decode(raw[:], s); err != nil {
		return 0, fmt.Errorf("row digest %q: %w", s, err)
	}
	return first60(raw[:]), nil
}

// sourceChecksum computes the checksum of a scope on the source, per
// bucket when byBucket (else under key 0).
func (p *tablePlan) sourceChecksum(ctx context.Context, db *sql.DB, s scope, byBucket bool) (map[int]agg, error) {
	return p.myChecksum(ctx, db, p.myTable, "source", s, byBucket)
}

// myChecksum is sourceChecksum of a MySQL table (the source's, or its copy
// in a MySQL target); side names it in errors.
func (p *tablePlan) myChecksum(ctx context.Context, db *sql.DB, table, side string, s scope, byBucket bool) (map[int]agg, error) {
	where, args, err := p.myWhere(s)
	if err != nil {
		return nil, err
	}
	bucket := "0"
	if byBucket {
		bucket = p.myBucket(p.myKeyText, s.nBuckets)
	}
	if len(p.json) > 0 {
		sel := []string{bucket, p.digest.my(p.myRowFast)}
		for _, i := range p.json {
			sel = append(sel, p.cols[i].MySQLRaw)
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + table + " WHERE " + where
		rows, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("%s checksum of %s: %w", side, p.sideName(side), err)
		}
		return p.goChecksum(sqlRows{rows}, p.mysqlJSON(side))
	}
	q := "SELECT " + bucket + ", COUNT(*), CAST(COALESCE(SUM(" + p.myHash(p.myRowFast) + "), 0) AS CHAR) FROM " +
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
func (p *tablePlan) sideName(side string) string {
	if side == "target" {
		return p.target
	}
	return p.name
}

// mysqlJSON is jsonText's source argument for JSON read on a MySQL side:
// the snapshot's policies apply to the source when the target is
// PostgreSQL, to neither side when both are MySQL.
func (p *tablePlan) mysqlJSON(side string) bool { return side == "source" && p.tgtMy == "" }

// targetChecksum is sourceChecksum on the target.
func (p *tablePlan) targetChecksum(ctx context.Context, pool *pgxpool.Pool, s scope, byBucket bool) (map[int]agg, error) {
	where, args, err := p.pgWhere(s)
	if err != nil {
		return nil, err
	}
	bucket := "0"
	if byBucket {
		bucket = p.pgBucket(p.pgKeyText, s.nBuckets)
	}
	if len(p.json) > 0 {
		sel := []string{bucket + "::text", p.digest.pg(p.pgRowText)}
		for _, i := range p.json {
			sel = append(sel, p.cols[i].PGRaw)
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + p.pgTable + " WHERE " + where
		rows, err := pool.Query(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("target checksum of %s: %w", p.target, err)
		}
		return p.goChecksum(pgRows{rows}, false)
	}
	q := "SELECT " + bucket + "::int, count(*), COALESCE(sum(" + p.pgHash(p.pgRowText) + "), 0)::text FROM " +
		p.pgTable + " WHERE " + where
	if byBucket {
		q += " GROUP BY 1"
	}
	rows, err := pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("target checksum of %s: %w", p.target, err)
	}
	defer rows.Close()
	return collectAggs(rows, "target checksum of "+p.target)
}

// aggRows is what both *sql.Rows and pgx.Rows offer.
type aggRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// collectAggs reads (bucket, count, sum) rows into per-bucket aggregates,
// leaving out empty buckets.
func collectAggs(rows aggRows, what string) (map[int]agg, error) {
	out := map[int]agg{}
	for rows.Next() {
		var b int
		var a agg
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
func (p *tablePlan) goChecksum(rows rowSource, source bool) (map[int]agg, error) {
	defer rows.Close()
	n := 2 + len(p.json)
	sums := map[int]*hashSum{}
	jsons := make([]string, len(p.json))
	for rows.Next() {
		vals, err := rows.Values(n)
		if err != nil {
			return nil, fmt.Errorf("checksum of %s: %w", p.name, err)
		}
		b, err := strconv.Atoi(string(vals[0]))
		if err != nil {
			return nil, fmt.Errorf("checksum of %s: bucket %q", p.name, vals[0])
		}
		for k := range p.json {
			jsons[k] = p.jsonText(vals[2+k], source)
		}
		h := sums[b]
		if h == nil {
			h = &hashSum{}
			sums[b] = h
		}
		h.add(rowHashOf(vals[1], jsons))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checksum of %s: %w", p.name, err)
	}
	out := make(map[int]agg, len(sums))
	for b, h := range sums {
		out[b] = h.agg()
	}
	return out, nil
}

// jsonText is the canonical form of a JSON value (nullText for NULL); a
// value that does not parse is compared by its raw text.
func (p *tablePlan) jsonText(raw []byte, source bool) string {
	if raw == nil {
		return nullText
	}
	c, err := typemap.CanonicalJSON(raw, source, p.opts.Nul)
	if err != nil {
		return "invalid JSON " + string(raw)
	}
	return c
}
