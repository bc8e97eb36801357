package crashtest

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestOneGigabyteTransaction replicates one source transaction of over
// 1 GiB of binlog (1.1 million 1 KB rows inserted by one statement) with
// --max-txn-memory 256MB, and checks that the sluice process's peak RSS
// (getrusage maxrss of the child, the same figure as VmHWM) stays under
// 512 MB and that every row arrived. It takes about 30 s here (10 s of
// them MariaDB writing the transaction); -short skips it.
func TestOneGigabyteTransaction(t *testing.T) {
	if testing.Short() {
		t.Skip("replicates a 1 GB transaction")
	}
	const stream = "big"
	run := startSnapshotted(t, "big", stream,
		`CREATE TABLE big (id BIGINT PRIMARY KEY, grp INT NOT NULL, payload VARCHAR(1100) NOT NULL)`)
	db, my, logPath, common := run.db, run.my, run.logPath, run.common

	const rows = 1_100_000
	start := time.Now()
	before := binlogSize(t, my)
	mustExec(t, my, `INSERT INTO big SELECT seq, seq % 1000, RPAD(CONCAT(seq, ':'), 1000, CHAR(65 + seq % 26))
		FROM seq_1_to_`+strconv.Itoa(rows))
	txnBytes := binlogSize(t, my) - before
	t.Logf("source: one transaction of %d rows, %d MB of binlog, written in %s",
		rows, txnBytes>>20, time.Since(start).Round(time.Second))
	if txnBytes < 1<<30 {
		t.Fatalf("the transaction is %d MB of binlog, want at least 1 GB", txnBytes>>20)
	}

	start = time.Now()
	cmd := sluiceCmd(t, logPath, append([]string{"replicate", "--until-caught-up", "--max-txn-memory", "256MB"}, common...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	hwm := watchHWM(cmd.Process.Pid, exited, 20*time.Minute)
	if cmd.ProcessState == nil {
		killAndWait(t, cmd, exited)
		t.Fatalf("replicate did not finish in 20 minutes\n%s", logTail(logPath, 30))
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(logPath, 40))
	}
	maxRSS := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB → bytes
	t.Logf("replicated in %s; peak RSS %d MB (getrusage), last VmHWM seen %d MB",
		time.Since(start).Round(time.Second), maxRSS>>20, hwm>>20)
	if maxRSS >= 512<<20 {
		t.Errorf("peak RSS %d MB, want under 512 MB with --max-txn-memory 256MB", maxRSS>>20)
	}

	conn := run.targetConn(t)
	var n, sumID, sumLen int64
	if err := conn.QueryRow(context.Background(), `SELECT count(*), sum(id), sum(length(payload)) FROM `+
		pgx.Identifier{db, "big"}.Sanitize()).Scan(&n, &sumID, &sumLen); err != nil {
		t.Fatal(err)
	}
	if n != rows || sumID != rows*(rows+1)/2 || sumLen != rows*1000 {
		t.Fatalf("target: %d rows, sum(id) %d, sum(length) %d; want %d, %d, %d", n, sumID, sumLen, rows, rows*(rows+1)/2, rows*1000)
	}
}

// watchHWM polls /proc/<pid>/status for VmHWM until the process exits (or
// the limit passes) and returns the last value seen, in bytes.
func watchHWM(pid int, exited <-chan error, limit time.Duration) int64 {
	var last int64
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(limit)
	for {
		select {
		case <-exited:
			return last
		case <-deadline:
			return last
		case <-tick.C:
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						last = kb << 10
					}
				}
			}
		}
	}
}

// binlogSize is the total size of the source's binary logs.
func binlogSize(t *testing.T, db *sql.DB) int64 {
	t.Helper()
	rows, err := db.Query(`SHOW BINARY LOGS`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var total int64
	for rows.Next() {
		vals := make([]any, len(cols))
		var name string
		var size int64
		vals[0], vals[1] = &name, &size
		for i := 2; i < len(cols); i++ {
			vals[i] = new(sql.RawBytes)
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		total += size
	}
	return total
}
