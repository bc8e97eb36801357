package binlog

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLCompressedTransactions: a MySQL session with
// binlog_transaction_compression=ON writes each transaction as one zstd
// TRANSACTION_PAYLOAD_EVENT; its rows must reach the stream like plain ones,
// in order, as one transaction each.
func TestMySQLCompressedTransactions(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	f := newFixtureOn(t, env, "bl_zstd", "CREATE TABLE t (id INT PRIMARY KEY, s TEXT)")
	start := f.position()
	r := startStream(t, f.config(start, ignoreOthers(f.db)))
	conn, err := f.my.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	long := strings.Repeat("compressible text ", 500)
	for _, q := range []string{
		"SET SESSION binlog_transaction_compression = ON",
		"BEGIN",
		"INSERT INTO t VALUES (1, '" + long + "'), (2, 'short')",
		"UPDATE t SET s = CONCAT(s, '!') WHERE id = 1",
		"COMMIT",
		"DELETE FROM t WHERE id = 2",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	txn := r.next(10 * time.Second)
	if len(txn.Changes) != 3 || txn.Changes[0].After[1] != long || txn.Changes[1].After[1] != "short" ||
		txn.Changes[2].Op != model.Update || txn.Changes[2].After[1] != long+"!" {
		t.Fatalf("compressed transaction: %+v", txn.Changes)
	}
	del := r.next(10 * time.Second)
	if len(del.Changes) != 1 || del.Changes[0].Op != model.Delete || del.Changes[0].Before[0] != int64(2) && plain(del.Changes[0].Before[:1]) != "[2]" {
		t.Fatalf("delete: %+v", del.Changes)
	}
	if del.End.Compare(txn.End) <= 0 {
		t.Errorf("end %s of the second transaction not after %s", del.End, txn.End)
	}
	// The server did write a compressed payload: the event that ends the
	// first transaction. Other packages write to the same server at once, so
	// the binlog may hold any number of their events before it, or rotate.
	end := txn.End.(binlogpos.Position)
	if got := eventEndingAt(t, f, start, end); got != "Transaction_payload" {
		t.Errorf("the event ending at %s is %q, not Transaction_payload", end, got)
	}
}

// eventEndingAt is the type of the binlog event whose End_log_pos is end.Pos
// in end.File, read in pages from start (or the file's head, if the binlog
// rotated since).
func eventEndingAt(t *testing.T, f *fixture, start, end binlogpos.Position) string {
	t.Helper()
	from := uint32(4)
	if start.File == end.File {
		from = start.Pos
	}
	for from < end.Pos {
		rows := testenv.MySQLTexts(t, f.my, fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d LIMIT 1000", end.File, from))
		if len(rows) == 0 {
			break
		}
		for _, row := range rows {
			endPos, err := strconv.ParseUint(row[4].String, 10, 32)
			if err != nil {
				t.Fatalf("End_log_pos %q: %v", row[4].String, err)
			}
			if uint32(endPos) == end.Pos {
				return row[2].String
			}
			from = uint32(endPos)
		}
	}
	return ""
}
