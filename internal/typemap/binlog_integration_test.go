package typemap

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// binlogTail reads row events of one table from a position on, decoded
// the way sluice's binlog reader decodes them (ParseTime=false, UTC
// TIMESTAMP strings, decimals as strings).
type binlogTail struct {
	syncer   *replication.BinlogSyncer
	streamer *replication.BinlogStreamer
}

// startBinlogTail starts a binlog dump from the source's current position.
func startBinlogTail(t *testing.T, e *sandboxEnv, admin *sql.DB) *binlogTail {
	t.Helper()
	var file string
	var pos uint32
	var skip1, skip2 []byte
	var skip3 []byte
	status, flavor, dest := e.env.BinlogStatusSQL(), gomysql.MariaDBFlavor, []any{&file, &pos, &skip1, &skip2}
	if e.env.IsMySQL() {
		flavor, dest = gomysql.MySQLFlavor, append(dest, &skip3) // + Executed_Gtid_Set
	}
	if err := admin.QueryRow(status).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", status, err)
	}
	host, port, user, pass := e.mysqlAdminHostPort()
	cfg := replication.BinlogSyncerConfig{
		ServerID:                uint32(1_000_000 + rand.IntN(1_000_000)),
		Flavor:                  flavor,
		Host:                    host,
		Port:                    port,
		User:                    user,
		Password:                pass,
		ParseTime:               false,
		TimestampStringLocation: time.UTC,
		UseDecimal:              false,
		RenderJSONAsMySQLText:   true, // as internal/source/mysql/binlog's stream
		Logger:                  quietLogger(),
	}
	s := replication.NewBinlogSyncer(cfg)
	st, err := s.StartSync(gomysql.Position{Name: file, Pos: pos})
	if err != nil {
		s.Close()
		t.Fatalf("binlog StartSync: %v", err)
	}
	t.Cleanup(s.Close)
	return &binlogTail{syncer: s, streamer: st}
}

// rows returns the after-images of the next n inserted rows of db.table.
// go-mysql's values may alias its event buffers, so each row is handed to
// convert before the next event is read.
func (b *binlogTail) rows(t *testing.T, db, table string, n int, convert func(row []any)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := 0
	for got < n {
		ev, err := b.streamer.GetEvent(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("binlog: %d of %d rows of %s.%s seen before timeout", got, n, db, table)
			}
			t.Fatalf("binlog: %v", err)
		}
		re, ok := ev.Event.(*replication.RowsEvent)
		if !ok || string(re.Table.Schema) != db || string(re.Table.Table) != table {
			continue
		}
		switch ev.Header.EventType {
		case replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2, replication.MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1:
		default:
			continue
		}
		for _, row := range re.Rows {
			convert(row)
			got++
		}
	}
}
