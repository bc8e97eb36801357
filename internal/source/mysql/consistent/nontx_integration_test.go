package consistent

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// lockedBuffer is a bytes.Buffer safe for a logger used from goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestNonTransactionalTablesWarned loads a schema with InnoDB, MyISAM, Aria
// and MEMORY tables from information_schema and checks that exactly the
// non-InnoDB ones are named, and that opening a point with them logs one
// WARN naming every one of them, for the lock and the lock-free methods.
func TestNonTransactionalTablesWarned(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_nontx")
	my := env.MySQL(t, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, `CREATE TABLE inno (id INT PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE mi (id INT PRIMARY KEY) ENGINE=MyISAM;
CREATE TABLE ar (id INT PRIMARY KEY) ENGINE=Aria;
CREATE TABLE mem (id INT PRIMARY KEY) ENGINE=MEMORY`); err != nil {
		t.Fatal(err)
	}
	f, err := schema.NewFilter(nil, nil, db)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(ctx, my, f)
	if err != nil {
		t.Fatal(err)
	}
	got := NonTransactional(cat.Tables)
	want := []string{db + ".ar (Aria)", db + ".mem (MEMORY)", db + ".mi (MyISAM)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("NonTransactional = %q, want %q", got, want)
	}

	src := openSource(t, env, db, 4)
	for _, m := range []Method{MethodGlobalLock, MethodLockFree} {
		var buf lockedBuffer
		log := slog.New(slog.NewTextHandler(&buf, nil))
		p, err := src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: m, NonTransactional: got, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		out := buf.String()
		if strings.Count(out, "NOT COVERED") != 1 || !strings.Contains(out, "level=WARN") || !strings.Contains(out, "method="+string(m)) {
			t.Errorf("%s: log %q: want one WARN about tables not covered", m, out)
		}
		for _, name := range want {
			if !strings.Contains(out, name) {
				t.Errorf("%s: log does not name %s: %q", m, name, out)
			}
		}
		if strings.Contains(out, db+".inno") {
			t.Errorf("%s: log names the InnoDB table: %q", m, out)
		}
	}

	var buf lockedBuffer
	p, err := src.OpenPoint(ctx, PointOptions{Sessions: 1, Method: MethodGlobalLock, Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	if strings.Contains(buf.String(), "NOT COVERED") {
		t.Errorf("warned without non-transactional tables: %q", buf.String())
	}
}
