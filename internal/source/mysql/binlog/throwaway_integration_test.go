package binlog

import (
	"context"
	"database/sql"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// throwawaySource is a private MariaDB (testenv.StartMariaDB, never the
// shared sandbox) for tests that need other server settings or do what the
// shared server must not see (purging its binlog, silence).
type throwawaySource struct {
	src  config.MySQL // the admin account, no database
	db   *sql.DB      // the admin account, multiStatements on
	s    *Source
	info SourceInfo
}

// startThrowawaySource starts the server with args (mariadbd options) and
// opens a pool and a Source on it; all are closed at the end of the test.
func startThrowawaySource(t *testing.T, args ...string) *throwawaySource {
	t.Helper()
	testenv.Get(t) // skips without the sandbox, fails under CI
	src, err := config.ParseSource(testenv.StartMariaDB(t, args...))
	if err != nil {
		t.Fatal(err)
	}
	src = src.WithDatabase("")
	db, err := sql.Open("mysql", src.DSN()+"&multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := OpenSource(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &throwawaySource{src: src, db: db, s: s, info: info}
}
