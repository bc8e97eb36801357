package verifydb

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/typemap"
)

// Chunk digests: the fast first comparison of a key range. Each side
// computes the MD5 of its row texts joined with '\n' in key order, one hash
// per chunk instead of one hash, one hex-to-integer conversion and one
// exact addition per row (about a third less server CPU on sysbench rows,
// docs/verify.md). Equal digests and counts mean equal rows: the row texts
// are unambiguous (length-prefixed strings, fixed-alphabet other values), so
// the joined text determines every row.
//
// The order is what makes a digest cheap and what makes it fragile: the
// target sorts by the key (an index scan of the key, no sort), the source
// aggregates in the order it reads the range (InnoDB reads a primary key
// range in key order; GROUP_CONCAT ... ORDER BY would sort and cost more
// than it saves). A digest that differs therefore proves nothing: the chunk
// is compared again with the order-independent checksum (sum of row
// hashes), which decides. A different order, a GROUP_CONCAT cut at
// group_concat_max_len or a NUL the --nul-char policy removed only cost
// that second pass, never a wrong answer.

// digestMaxBytes bounds the joined text of one chunk (server memory per
// chunk query on each side); chunk sizes are capped to stay below it.
const digestMaxBytes = 64 << 20

// DigestMinRows is the smallest chunk cap worth a digest: tables whose rows
// can be so wide that fewer rows fit in digestMaxBytes use row-hash sums.
const DigestMinRows = 8192

// sourceGroupConcatMax is the source sessions' group_concat_max_len: above
// any digest chunk's text, so that GROUP_CONCAT is not cut short.
const sourceGroupConcatMax = 2 * digestMaxBytes

// ChunkDigest is a chunk's row count and the digest (hex, MD5 or SHA-256: hash.go) of its joined row
// texts; MD5 is empty for an empty chunk.
type ChunkDigest struct {
	Count int64
	MD5   string
}

// planDigest decides whether range chunks of the table are compared by
// digest first and how many rows such a chunk may hold (p.digestRows; 0 =
// never): every key column must sort alike in both engines (so that both
// sides can produce key order) and every row text must have a bounded width.
func (p *Plan) planDigest() {
	p.DigestRows = 0
	if p.Mode != ModeRange || p.rangeN != len(p.Key) || len(p.JSON) > 0 {
		return
	}
	var width int64
	for i, c := range p.Cols {
		w, ok := maxTextBytes(c, p.Convs[i])
		if !ok {
			return
		}
		width += w + int64(len(colSep))
	}
	rows := digestMaxBytes / (width + 1)
	if rows < DigestMinRows {
		return
	}
	p.DigestRows = rows
}

// maxTextBytes is an upper bound of the bytes of a column's normalised
// text, or false when it has none worth using (long text, BLOB, geometry).
func maxTextBytes(c *NormColumn, cc *typemap.ColumnConv) (int64, bool) {
	const small = 80 // numbers (DECIMAL(65,30) with sign and point), dates, times, UUID, inet, floats
	switch c.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		n := cc.Column.CharMaxLength
		if c.Kind != typemap.KindText {
			n = 0
			for _, e := range cc.Column.Elements {
				n += int64(len(e)) + 1
			}
		}
		if n <= 0 || n > 16384 {
			return 0, false
		}
		return 4*n + 24, true // UTF-8 bytes, NUL replacements, length prefix
	case typemap.KindBinary:
		n := cc.Column.CharMaxLength
		if n <= 0 || n > 16384 {
			return 0, false
		}
		return 2 * n, true
	case typemap.KindBit:
		return int64(bitWidth(cc.Column.Precision)), true
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindFloat32, typemap.KindFloat64,
		typemap.KindDate, typemap.KindDateTime, typemap.KindTimestamp, typemap.KindTime, typemap.KindYear,
		typemap.KindUUID, typemap.KindInet:
		return small, true
	}
	return 0, false // geometry, JSON
}

// CapRows limits a chunk size to what a digest may hold.
func (p *Plan) CapRows(n int64) int64 {
	if p.DigestRows > 0 && n > p.DigestRows {
		return p.DigestRows
	}
	return n
}

// digestAlias names the table in the target digest query, so that its
// ORDER BY names key columns and never the output column "t": a key column
// called t would otherwise sort by the row text (ORDER BY prefers output
// names), the digest would differ and verify would fall back to row sums.
const digestAlias = "sluice_src"

// pgKeyOrder is the ORDER BY list of the key on PostgreSQL, qualified by
// digestAlias.
func (p *Plan) pgKeyOrder() string {
	parts := make([]string, len(p.Key))
	for k, i := range p.Key {
		parts[k] = digestAlias + "." + QuotePG(p.Cols[i].PGName)
	}
	return strings.Join(parts, ", ")
}

// SourceDigest is the digest of a key range on the source.
func (p *Plan) SourceDigest(ctx context.Context, db *sql.DB, s Scope) (ChunkDigest, error) {
	return p.MyDigest(ctx, db, p.MyTable, "source", s)
}

// MyDigest is sourceDigest of a MySQL table (the source's or its copy in
// a MySQL target, whose sessions also set group_concat_max_len).
func (p *Plan) MyDigest(ctx context.Context, db *sql.DB, table, side string, s Scope) (ChunkDigest, error) {
	where, args, err := p.myWhere(s)
	if err != nil {
		return ChunkDigest{}, err
	}
	q := "SELECT COUNT(*), " + p.Digest.My("GROUP_CONCAT("+p.myRowFast+" SEPARATOR '\\n')") + " FROM " + table + " WHERE " + where
	var d ChunkDigest
	var sum sql.NullString
	if err := db.QueryRowContext(ctx, q, args...).Scan(&d.Count, &sum); err != nil {
		return d, fmt.Errorf("%s digest of %s: %w", side, p.sideName(side), err)
	}
	d.MD5 = sum.String
	return d, nil
}

// TargetDigest is sourceDigest on the target.
func (p *Plan) TargetDigest(ctx context.Context, pool *pgxpool.Pool, s Scope) (ChunkDigest, error) {
	where, args, err := p.pgWhere(s)
	if err != nil {
		return ChunkDigest{}, err
	}
	// The sorted subquery is read by an index scan of the key: rows arrive
	// in key order without a sort, which string_agg(... ORDER BY) would do.
	q := "SELECT count(*), " + p.Digest.PG("string_agg(t, E'\\n')") + " FROM (SELECT " + p.PGRowText + " AS t FROM " + p.PGTable +
		" AS " + digestAlias + " WHERE " + where + " ORDER BY " + p.pgKeyOrder() + ") s"
	var d ChunkDigest
	var sum *string
	if err := pool.QueryRow(ctx, q, args...).Scan(&d.Count, &sum); err != nil {
		return d, fmt.Errorf("target digest of %s: %w", p.Target, err)
	}
	if sum != nil {
		d.MD5 = *sum
	}
	return d, nil
}
