package addtable

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/window"
)

// TestChunkerReadsWindowsReadOnly: as a user with only SELECT,
// REPLICATION SLAVE and REPLICATION CLIENT, a table of 10 rows is read in
// windows of 4 (every value compared, each window's low watermark at or
// before its high one, the last row's key the next bound, the end found);
// a window's rows go through window.Window, which drops the row whose key
// a change in the window touched (the chunk's text key and the binlog's
// integer key are the same key); and a source transaction holding a
// chunk's row makes the read give up as a lock wait, to be retried.
// MariaDB and MySQL 9.7.
func TestChunkerReadsWindowsReadOnly(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		ctx := context.Background()
		db := env.NewDatabase(t, "addtable_chunk")
		admin := env.MySQL(t, db)
		if _, err := admin.ExecContext(ctx, "CREATE TABLE t (id BIGINT UNSIGNED PRIMARY KEY, v VARCHAR(20), n INT NULL)"); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 10; i++ {
			n := any(i * 10)
			if i == 3 {
				n = nil
			}
			if _, err := admin.ExecContext(ctx, "INSERT INTO t VALUES (?, ?, ?)", i, fmt.Sprintf("v%d", i), n); err != nil {
				t.Fatal(err)
			}
		}
		_, url := env.CloudUser(t, admin, db, []string{"REPLICATION SLAVE", "REPLICATION CLIENT"})
		m, err := config.ParseSource(url)
		if err != nil {
			t.Fatal(err)
		}
		c, tb := openChunker(t, m, db, 4)

		var got []string
		var after [][]byte
		var windows int
		for {
			ch, err := c.Read(ctx, after)
			if err != nil {
				t.Fatal(err)
			}
			windows++
			if ch.Low.IsZero() || ch.High.Compare(ch.Low) < 0 {
				t.Fatalf("window %d: low %s, high %s", windows, ch.Low, ch.High)
			}
			got = append(got, spell(ch.Rows))
			if ch.Done {
				if len(ch.Rows) == 4 {
					t.Fatalf("window %d of 4 rows marked done", windows)
				}
				break
			}
			after = ch.Last
			if windows > 5 {
				t.Fatal("no end after 5 windows")
			}
		}
		if want := "1=v1=10,2=v2=20,3=v3=NULL,4=v4=40|5=v5=50,6=v6=60,7=v7=70,8=v8=80|9=v9=90,10=v10=100"; strings.Join(got, "|") != want {
			t.Errorf("windows:\n got %s\nwant %s", strings.Join(got, "|"), want)
		}

		// The window drops the row a change in it touched, by the binlog's
		// value of the key (an int64 from the decoder), and keeps the others.
		ch, err := c.Read(ctx, [][]byte{[]byte("4")})
		if err != nil {
			t.Fatal(err)
		}
		w, err := window.Open(ch.Low)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Fill(ch.High, ch.Rows); err != nil {
			t.Fatal(err)
		}
		cols, err := window.KeyColumnsOf(tb)
		if err != nil {
			t.Fatal(err)
		}
		k6, err := window.Key([]any{int64(6), "changed", nil}, cols)
		if err != nil {
			t.Fatal(err)
		}
		w.Observe(nil, k6)
		kept, err := w.Merge(func(r []any) (string, error) { return window.Key(r, cols) })
		if err != nil {
			t.Fatal(err)
		}
		if got := spell(kept); got != "5=v5=50,7=v7=70,8=v8=80" {
			t.Errorf("merged window after a change of key 6: %s", got)
		}

		// A source transaction holding row 6: the read gives up, retryable.
		tx, err := admin.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck
		if _, err := tx.ExecContext(ctx, "UPDATE t SET v = 'held' WHERE id = 6"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(ctx, [][]byte{[]byte("4")}); !IsLockWait(err) {
			t.Errorf("read beside a transaction holding a row: %v, want a lock wait timeout", err)
		}
	})
}

// openChunker opens a chunker of db.t as the user of m, n rows a window.
func openChunker(t *testing.T, m config.MySQL, db string, n int) (*Chunker, *schema.Table) {
	t.Helper()
	ctx := context.Background()
	src, err := binlog.OpenSource(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	info, err := src.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sdb, err := m.OpenDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sdb.Close() })
	f, err := schema.NewFilter([]string{db + ".t"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(ctx, sdb, f)
	if err != nil {
		t.Fatal(err)
	}
	tb := cat.Tables[0]
	conn, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	sel := make([]string, len(tb.Columns))
	for i, col := range tb.Columns {
		sel[i] = schema.QuoteMySQL(col.Name)
	}
	c, err := NewChunker(ctx, src, info, conn, tb, sel, n)
	if err != nil {
		t.Fatal(err)
	}
	return c, tb
}

// spell writes rows as a=b=c,... (NULL for SQL NULL).
func spell(rows [][]any) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, v := range r {
			if b, ok := v.([]byte); ok {
				vals[j] = string(b)
			} else {
				vals[j] = "NULL"
			}
		}
		out[i] = strings.Join(vals, "=")
	}
	return strings.Join(out, ",")
}
