package postgres

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

type sliceSource struct {
	rows [][]any
	i    int
	err  error // returned once the rows are used up
}

func (s *sliceSource) Next() bool {
	if s.i >= len(s.rows) {
		return false
	}
	s.i++
	return true
}
func (s *sliceSource) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *sliceSource) Err() error {
	if s.i >= len(s.rows) {
		return s.err
	}
	return nil
}

func TestCopyFromBinaryFreezeAndErrors(t *testing.T) {
	env := testenv.Get(t)
	pool := env.PG(t)
	ctx := context.Background()
	name := testenv.UniqueName("copytest")
	if _, err := pool.Exec(ctx, "CREATE SCHEMA "+name+"; CREATE TABLE "+name+
		".t (id int PRIMARY KEY, b bytea, s text, n numeric(65,30), ts timestamptz, j jsonb)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE") })
	big := bytes.Repeat([]byte{0, 1, 2, 0xff}, 4<<20) // 16 MiB
	ts := time.Date(2024, 2, 29, 23, 59, 59, 999999000, time.UTC)
	rows := [][]any{
		// text as []byte (the snapshot passes text values this way) and as string
		{int32(1), []byte{0, 'a', 0}, []byte("ünïcödé 😀"), "-99999999999999999999999999999999999.999999999999999999999999999999", ts, `{"a": [1, {"b": "é"}]}`},
		{int32(2), big, []byte{}, "0", nil, nil},
		{int32(3), []byte{}, nil, nil, ts, "[]"},
		{int32(4), big[:bigValue], strings.Repeat("é😀", bigValue), "1", ts, `{"k": "` + strings.Repeat("x", 2*bigValue) + `"}`},
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tbl := pgx.Identifier{name, "t"}
	cols := []string{"id", "b", "s", "n", "ts", "j"}

	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "TRUNCATE "+tbl.Sanitize()); err != nil {
		t.Fatal(err)
	}
	n, err := CopyFrom(ctx, tx.Conn(), tbl, cols, &sliceSource{rows: rows}, CopyOptions{Freeze: true})
	if err != nil || n != 4 {
		t.Fatalf("copy: %d rows, %v", n, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var b []byte
	var s *string
	var num string
	var gotTS time.Time
	var j string
	if err := pool.QueryRow(ctx, "SELECT b, s, n::text, ts, j::text FROM "+tbl.Sanitize()+" WHERE id = 1").Scan(&b, &s, &num, &gotTS, &j); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, []byte{0, 'a', 0}) || s == nil || *s != "ünïcödé 😀" || num != rows[0][3] || !gotTS.Equal(ts) || j != `{"a": [1, {"b": "é"}]}` {
		t.Errorf("row 1 = %x %v %s %v %s", b, s, num, gotTS, j)
	}
	if err := pool.QueryRow(ctx, "SELECT b, s FROM "+tbl.Sanitize()+" WHERE id = 2").Scan(&b, &s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, big) || s == nil || *s != "" {
		t.Errorf("row 2: %d bytes (want %d), s=%v", len(b), len(big), s)
	}
	if err := pool.QueryRow(ctx, "SELECT b, s FROM "+tbl.Sanitize()+" WHERE id = 3").Scan(&b, &s); err != nil {
		t.Fatal(err)
	}
	if b == nil || len(b) != 0 || s != nil {
		t.Errorf("row 3: b=%v s=%v, want empty bytes and NULL", b, s)
	}

	var s4 string
	if err := pool.QueryRow(ctx, "SELECT b, s, j->>'k' FROM "+tbl.Sanitize()+" WHERE id = 4").Scan(&b, &s4, &j); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, big[:bigValue]) || s4 != rows[3][2] || len(j) != 2*bigValue {
		t.Errorf("row 4 (large values sent from the source's memory): %d bytes, text ok=%v, json %d", len(b), s4 == rows[3][2], len(j))
	}
	// Without TRUNCATE in the same transaction, FREEZE is refused.
	_, err = CopyFrom(ctx, conn.Conn(), tbl, cols, &sliceSource{rows: [][]any{{int32(9), nil, nil, nil, nil, nil}}}, CopyOptions{Freeze: true})
	if err == nil {
		t.Error("COPY FREEZE outside the creating transaction succeeded")
	}
	// A source error surfaces as itself and nothing is loaded.
	boom := errors.New("mysql read failed")
	_, err = CopyFrom(ctx, conn.Conn(), tbl, cols, &sliceSource{rows: [][]any{{int32(10), nil, nil, nil, nil, nil}}, err: boom}, CopyOptions{})
	if !errors.Is(err, boom) {
		t.Errorf("source error = %v, want %v", err, boom)
	}
	// RawValues: values already in their binary form (the snapshot's path
	// for integers, text and bytea), NULL as nil B; a wrong width is refused.
	raw := [][]any{{&RawValue{B: []byte{0, 0, 0, 5}}, &RawValue{B: []byte{1, 0}}, &RawValue{B: []byte("é")}, nil, nil, nil},
		{&RawValue{B: []byte{0, 0, 0, 6}}, &RawValue{}, &RawValue{B: []byte{}}, nil, nil, nil}}
	if n, err := CopyFrom(ctx, conn.Conn(), tbl, cols, &sliceSource{rows: raw}, CopyOptions{}); err != nil || n != 2 {
		t.Fatalf("copy raw values: %d rows, %v", n, err)
	}
	var s5, s6 *string
	var b6 []byte
	if err := pool.QueryRow(ctx, "SELECT b, s FROM "+tbl.Sanitize()+" WHERE id = 5").Scan(&b, &s5); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, "SELECT b, s FROM "+tbl.Sanitize()+" WHERE id = 6").Scan(&b6, &s6); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, []byte{1, 0}) || s5 == nil || *s5 != "é" || b6 != nil || s6 == nil || *s6 != "" {
		t.Errorf("raw rows: b=%x s=%v, b=%x s=%v; want 0100 é, NULL ''", b, s5, b6, s6)
	}
	_, err = CopyFrom(ctx, conn.Conn(), tbl, cols, &sliceSource{rows: [][]any{{&RawValue{B: []byte{7}}, nil, nil, nil, nil, nil}}}, CopyOptions{})
	if err == nil || !strings.Contains(err.Error(), "raw value of 1 bytes") {
		t.Errorf("1-byte integer: %v, want an error", err)
	}
	var count int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+tbl.Sanitize()).Scan(&count); err != nil || count != 6 {
		t.Errorf("count = %d, %v; want 6", count, err)
	}
	cs, err := TableColumns(ctx, pool, name, "t")
	if err != nil || len(cs) != 6 || cs[3].Type != "numeric(65,30)" {
		t.Errorf("columns = %+v, %v", cs, err)
	}
	if cs, err := TableColumns(ctx, pool, name, "missing"); cs != nil || err != nil {
		t.Errorf("missing table: %+v, %v", cs, err)
	}
}
