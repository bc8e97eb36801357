package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
	"github.com/sluice-db/sluice/internal/typemap"
)

// CopyChunk reads one chunk from the source session and loads it with
// binary COPY; the chunk's done row is written in the same PostgreSQL
// transaction, so a chunk is either fully in the target and recorded, or
// neither. Converters are compiled per chunk so that the values a policy
// changed are counted per chunk and survive a resume in the chunk's row.
func (r *pgWriter) CopyChunk(ctx context.Context, t bulkrun.Task, read bulkrun.ReadFunc) error {
	j, c := t.Job, *t.Chunk
	pt := j.Out.(*pgTable)
	fail := func(err error) error { return fmt.Errorf("snapshot %s: %w", c, err) }
	mapper := typemap.New(r.mopts, typemap.NewChanges())
	conv, err := mapper.Compile(j.Source)
	if err != nil {
		return fail(err)
	}
	conn, err := r.pg.Acquire(ctx)
	if err != nil {
		return fail(fmt.Errorf("target: %w", err))
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return fail(fmt.Errorf("target: %w", err))
	}
	defer tx.Rollback(ctx)
	// No trigger of the target (one the application's owners ported, on a
	// table they created) and no foreign key check fires on the copied
	// rows: they are the source's, with what its triggers did.
	if err := SetReplicaRole(ctx, tx, true); err != nil {
		return fail(fmt.Errorf("target: %w", err))
	}
	freeze, err := r.clearChunk(ctx, tx, j, c, t.Recopy)
	if err != nil {
		return fail(err)
	}
	rows, err := read(ctx)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	src := newRowSource(rows, j, conv)
	n, err := CopyFrom(ctx, tx.Conn(), pt.ident, pt.names, src, CopyOptions{Freeze: freeze})
	src.Flush()
	if err != nil {
		return fail(err)
	}
	if n != src.Rows() {
		return fail(fmt.Errorf("PostgreSQL loaded %d rows, %d were read", n, src.Rows()))
	}
	st := bulkrun.ChunkState{Rows: src.Rows(), Bytes: src.Bytes(), Hash: src.Sum(), Changes: mapper.Changes().Counts(),
		Pass: r.Pass, Position: r.Pos}
	if err := markChunkDone(ctx, tx, r.Opts.Stream, j.Source.TableID, c, st); err != nil {
		return fail(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fail(fmt.Errorf("target: commit: %w", err))
	}
	return nil
}

// clearChunk prepares the target for a chunk's rows. A chunk that is the
// whole table is loaded after TRUNCATE in the same transaction, which lets
// COPY write the rows frozen (no later VACUUM rewrite) and also clears
// anything an earlier pass wrote. A re-copied range chunk deletes its range.
func (r *pgWriter) clearChunk(ctx context.Context, tx pgx.Tx, j *bulkrun.Job, c mysnap.Chunk, recopy bool) (freeze bool, err error) {
	ident := j.Out.(*pgTable).ident
	whole := c.Lo == nil && c.Hi == nil
	switch {
	case whole && !r.replicaRole:
		_, err = tx.Exec(ctx, "TRUNCATE "+ident.Sanitize())
		return err == nil, err
	case whole && recopy:
		_, err = tx.Exec(ctx, "DELETE FROM "+ident.Sanitize())
		return false, err
	case recopy:
		return false, r.deleteRange(ctx, tx, j, c)
	}
	return false, nil
}

// deleteRange deletes the rows of a chunk's key range from the target. Only
// for keys that order alike in both engines (rangeSafe).
func (r *pgWriter) deleteRange(ctx context.Context, tx pgx.Tx, j *bulkrun.Job, c mysnap.Chunk) error {
	if !j.RangeSafe {
		return fmt.Errorf("internal error: range delete on a key that PostgreSQL orders differently")
	}
	names := j.Key.Names()
	cols := make([]string, len(names))
	for i, n := range names {
		cols[i] = pgx.Identifier{n}.Sanitize()
	}
	tuple := "(" + strings.Join(cols, ", ") + ")"
	conv, err := typemap.New(r.mopts, nil).Compile(j.Source)
	if err != nil {
		return err
	}
	var where []string
	var args []any
	bound := func(b mysnap.Bound, op string) error {
		marks := make([]string, len(b))
		for i, v := range b {
			pv, err := conv.Columns[j.Source.ColumnIndex(names[i])].FromText(v)
			if err != nil {
				return err
			}
			args = append(args, pv)
			marks[i] = fmt.Sprintf("$%d", len(args))
		}
		where = append(where, tuple+" "+op+" ("+strings.Join(marks, ", ")+")")
		return nil
	}
	if c.Lo != nil {
		if err := bound(c.Lo, ">"); err != nil {
			return err
		}
	}
	if c.Hi != nil {
		if err := bound(c.Hi, "<="); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, "DELETE FROM "+j.Out.(*pgTable).ident.Sanitize()+" WHERE "+strings.Join(where, " AND "), args...)
	return err
}

// rowSource feeds COPY from a chunk read (target.ChunkRows: the hash, the counts):
// it converts each raw value with the column's converter. It
// keeps one row at a time: the raw values alias the driver's buffer and
// are encoded by the COPY writer before the next row is read.
type rowSource struct {
	*targets.ChunkRows
	job  *bulkrun.Job
	conv []*typemap.ColumnConv // per copied column
	// pass says how a column's raw value reaches COPY without FromText's
	// copy into a new value (COPY encodes it before the next row replaces
	// the driver's buffer; fewer allocations mean less garbage collection).
	pass []passMode
	// raw are the per-column RawValues those columns are passed in (a
	// pointer boxes into an interface without allocating), and intBuf the
	// bytes of this row's integers.
	raw    []RawValue
	intBuf []byte
	vals   []any
}

func newRowSource(rd *targets.ChunkRows, j *bulkrun.Job, tc *typemap.TableConv) *rowSource {
	s := &rowSource{ChunkRows: rd, job: j, vals: make([]any, len(j.Cols)),
		raw: make([]RawValue, len(j.Cols)), intBuf: make([]byte, 0, 8*len(j.Cols))}
	for _, i := range j.Cols {
		cc := tc.Columns[i]
		s.conv = append(s.conv, cc)
		s.pass = append(s.pass, passModeOf(cc))
	}
	return s
}

// passMode is how rowSource hands one column's values to COPY.
type passMode uint8

const (
	passConvert passMode = iota // FromText
	passSame                    // binary into bytea: the raw bytes are the value
	passText                    // text into text/varchar: TextBytes, usually the raw bytes
	passInt2                    // integers: IntFromText, encoded in 2, 4 or 8 bytes
	passInt4
	passInt8
)

func passModeOf(cc *typemap.ColumnConv) passMode {
	isInt := cc.Kind == typemap.KindInt
	switch {
	case cc.Kind == typemap.KindBinary && cc.PGType == "bytea":
		return passSame
	case cc.Kind == typemap.KindText && (cc.PGType == "text" || strings.HasPrefix(cc.PGType, "varchar(")):
		return passText
	case isInt && cc.PGType == "smallint":
		return passInt2
	case isInt && cc.PGType == "integer":
		return passInt4
	case isInt && cc.PGType == "bigint":
		return passInt8
	}
	return passConvert
}

// value converts one non-NULL raw value for COPY.
func (s *rowSource) value(i int, b []byte) (any, error) {
	var err error
	switch m := s.pass[i]; m {
	case passSame:
		s.raw[i].B = b
	case passText:
		s.raw[i].B, _, err = s.conv[i].TextBytes(b)
		if s.raw[i].B == nil {
			s.raw[i].B = []byte{} // '' is not NULL
		}
	case passInt2, passInt4, passInt8:
		var n int64
		if n, _, err = s.conv[i].IntFromText(b); err != nil {
			return nil, err
		}
		at := len(s.intBuf)
		switch m {
		case passInt2:
			s.intBuf = binary.BigEndian.AppendUint16(s.intBuf, uint16(n))
		case passInt4:
			s.intBuf = binary.BigEndian.AppendUint32(s.intBuf, uint32(n))
		default:
			s.intBuf = binary.BigEndian.AppendUint64(s.intBuf, uint64(n))
		}
		s.raw[i].B = s.intBuf[at:len(s.intBuf):len(s.intBuf)]
	default:
		return s.conv[i].FromText(b)
	}
	if err != nil {
		return nil, err
	}
	return &s.raw[i], nil
}

func (s *rowSource) Values() ([]any, error) {
	raw := s.ChunkRows.Values()
	// intBuf has room for every column's integer: appending never moves it,
	// so the slices of earlier columns stay valid.
	s.intBuf = s.intBuf[:0]
	for i, b := range raw {
		if b == nil {
			s.vals[i] = nil
			continue
		}
		v, err := s.value(i, b)
		if err != nil {
			return nil, fmt.Errorf("row %d%s: %w", s.Rows(), s.keyText(raw), err)
		}
		s.vals[i] = v
	}
	return s.vals, nil
}

// keyText names the row by its key for error messages.
func (s *rowSource) keyText(raw [][]byte) string {
	if len(s.job.KeyPos) == 0 {
		return ""
	}
	parts := make([]string, len(s.job.KeyPos))
	for i, p := range s.job.KeyPos {
		parts[i] = fmt.Sprintf("%q", raw[p])
	}
	return " with key (" + strings.Join(parts, ", ") + ")"
}

// ResetTable empties a table and marks all its chunks as not copied, in one
// transaction.
func (r *pgWriter) ResetTable(ctx context.Context, j *bulkrun.Job) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := SetReplicaRole(ctx, tx, true); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	ident := j.Out.(*pgTable).ident
	clear := "TRUNCATE " + ident.Sanitize()
	if r.replicaRole {
		clear = "DELETE FROM " + ident.Sanitize()
	}
	if _, err := tx.Exec(ctx, clear); err != nil {
		return fmt.Errorf("target: %s: %w", clear, err)
	}
	if err := resetChunks(ctx, tx, r.Opts.Stream, j.Source.TableID); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	r.Log.Info("table changed since it was partly copied and its key orders differently in PostgreSQL: copying it again",
		"table", j.Source.TableID.String())
	return nil
}
