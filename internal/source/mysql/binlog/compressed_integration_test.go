package binlog

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// TestMariaDBCompressedEvents runs a throwaway MariaDB with
// log_bin_compress: query and row events are written compressed
// (MARIADB_*_COMPRESSED_EVENT) and must decode like plain ones.
func TestMariaDBCompressedEvents(t *testing.T) {
	ts := startThrowawaySource(t, "--log-bin-compress=ON", "--log-bin-compress-min-len=10")
	db := ts.db
	if _, err := db.Exec("CREATE DATABASE c; CREATE TABLE c.t (id INT PRIMARY KEY, s TEXT)"); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, db: "c", my: db, src: ts.src.WithDatabase("c"), info: ts.info}
	var err error
	if f.scope, err = schema.NewFilter([]string{"c"}, nil, ""); err != nil {
		t.Fatal(err)
	}
	r := startStream(t, f.config(f.position(), reloading(f, "")))
	long := strings.Repeat("compressible text ", 200)
	if _, err := db.Exec("INSERT INTO c.t VALUES (1, ?), (2, 'short')", long); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("ALTER TABLE c.t ADD COLUMN n INT NOT NULL DEFAULT 0 COMMENT 'long enough to be compressed'"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("UPDATE c.t SET n = 5, s = CONCAT(s, '!') WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	ins := r.next(10 * time.Second)
	if len(ins.Changes) != 2 || ins.Changes[0].After[1] != long || ins.Changes[1].After[1] != "short" {
		t.Fatalf("insert: %+v", ins.Changes)
	}
	ddl := r.next(10 * time.Second)
	if ddl.DDL == nil || !strings.Contains(ddl.DDL.Statement, "ADD COLUMN n INT NOT NULL DEFAULT 0") {
		t.Fatalf("schema change: %+v", ddl)
	}
	upd := r.next(10 * time.Second)
	if len(upd.Changes) != 1 || upd.Changes[0].Op != model.Update || len(upd.Changes[0].After) != 3 ||
		upd.Changes[0].After[1] != long+"!" || plain(upd.Changes[0].After[2:]) != "[5]" {
		t.Fatalf("update: %+v", upd.Changes)
	}
	// The server did write compressed events.
	rows, err := db.Query("SHOW BINLOG EVENTS IN '" + endOf(ins).File + "'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	kinds := map[string]bool{}
	for rows.Next() {
		var logName, evType, info string
		var pos, serverID, endPos int64
		if err := rows.Scan(&logName, &pos, &evType, &serverID, &endPos, &info); err != nil {
			t.Fatal(err)
		}
		kinds[evType] = true
	}
	if !kinds["Write_rows_compressed_v1"] || !kinds["Update_rows_compressed_v1"] || !kinds["Query_compressed"] {
		t.Errorf("event types in the binlog: %v", kinds)
	}
}
