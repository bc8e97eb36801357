package snapshot

import (
	"context"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMaxRateBoundsTheSourceRead: with --max-rate the workers together read
// no faster than the limit (a lower bound on the copy's duration, which a
// busy machine can only lengthen), and every row still arrives.
func TestMaxRateBoundsTheSourceRead(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_maxrate")
	my := env.MySQL(t, db)
	// 2,000 rows of 1 kB: about 2 MB read from the source.
	mustExec(t, my, `CREATE TABLE t (id INT PRIMARY KEY, pad VARCHAR(1000) NOT NULL);
		INSERT INTO t SELECT seq, REPEAT(CHAR(65 + seq % 26), 1000) FROM seq_1_to_2000`)
	opts := testOptions(t, env, db)
	opts.MaxRate = 1 << 20 // 1 MiB/s
	opts.ChunkRows = 250
	opts.Workers = 4
	began := time.Now()
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if rep.Rows != 2000 || pgCount(t, env.PG(t), `"`+db+`".t`) != 2000 {
		t.Fatalf("copied %d rows, want 2000", rep.Rows)
	}
	// 2 MB at 1 MiB/s, less the limiter's initial burst of 100 kB: at least
	// 1.7 s; allow for rounding.
	if took < 1500*time.Millisecond {
		t.Errorf("2 MB copied in %s under --max-rate 1MiB/s, want at least 1.5 s", took)
	}
	t.Logf("2 MB copied in %s at --max-rate 1MiB/s", took)
}
