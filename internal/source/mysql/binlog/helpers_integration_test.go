package binlog

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// fixture is one test database on the sandbox with a stream reading it.
type fixture struct {
	t     *testing.T
	env   *testenv.Env
	db    string
	my    *sql.DB
	src   config.MySQL
	info  SourceInfo
	scope schema.Filter
}

func newFixture(t *testing.T, prefix, ddl string) *fixture {
	t.Helper()
	return newFixtureOn(t, testenv.Get(t), prefix, ddl)
}

// newFixtureOn is newFixture on env's source (testenv.Flavors).
func newFixtureOn(t *testing.T, env *testenv.Env, prefix, ddl string) *fixture {
	t.Helper()
	db := env.NewDatabase(t, prefix)
	my := env.MySQL(t, db)
	if ddl != "" {
		if _, err := my.Exec(env.SQL(ddl)); err != nil {
			t.Fatalf("create tables: %v", err)
		}
	}
	src, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSource(src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, err := schema.NewFilter([]string{db}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, env: env, db: db, my: my, src: src, info: info, scope: f}
}

// exec runs statements on the test database.
func (f *fixture) exec(stmts ...string) {
	f.t.Helper()
	for _, s := range stmts {
		if _, err := f.my.Exec(f.env.SQL(s)); err != nil {
			f.t.Fatalf("%s: %v", s, err)
		}
	}
}

// position is the source's current position.
func (f *fixture) position() binlogpos.Position {
	f.t.Helper()
	s, err := OpenSource(f.src)
	if err != nil {
		f.t.Fatal(err)
	}
	defer s.Close()
	p, err := s.MasterStatus(context.Background(), f.info)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// tables loads the current schema of the test database.
func (f *fixture) tables() map[schema.TableID]*schema.Table {
	f.t.Helper()
	cat, err := schema.Load(context.Background(), f.my, f.scope)
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[schema.TableID]*schema.Table{}
	for _, t := range cat.Tables {
		out[t.TableID] = t
	}
	return out
}

func (f *fixture) mapper() *typemap.Mapper {
	f.t.Helper()
	cs, err := typemap.LoadCharsets(context.Background(), f.my)
	if err != nil {
		f.t.Fatal(err)
	}
	o := typemap.DefaultOptions()
	o.Charsets = cs
	return typemap.New(o, nil)
}

// config is a stream configuration reading the test database from start.
func (f *fixture) config(start binlogpos.Position, tr Translator) Config {
	return Config{
		Source:        f.src,
		Info:          f.info,
		ServerID:      uint32(2_000_000 + rand.IntN(1_000_000)),
		Stream:        f.db,
		Start:         start,
		Tables:        f.tables(),
		SchemaVersion: 1,
		InScope:       func(id schema.TableID) bool { return f.scope.Match(id.Database, id.Name) },
		Translate:     tr,
		Log:           testenv.Logger(),
	}
}

// running is a stream in a goroutine with its output channel.
type running struct {
	t *testing.T
	// mapper converts the changes next returns into PostgreSQL values, as
	// the PostgreSQL sink does, so tests compare them with the snapshot's.
	mapper *typemap.Mapper
	stream *Stream
	out    chan *model.Txn
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

func startStream(t *testing.T, cfg Config) *running {
	t.Helper()
	return startStreamCap(t, cfg, 16)
}

// startStreamCap runs a stream whose output channel holds capacity Txns.
func startStreamCap(t *testing.T, cfg Config, capacity int) *running {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{t: t, stream: s, mapper: testMapper(t, cfg), out: make(chan *model.Txn, capacity), cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Run(ctx, r.out) }()
	t.Cleanup(func() { r.stop() })
	return r
}

// stop cancels the stream and returns its error.
func (r *running) stop() error {
	r.once.Do(func() {
		r.cancel()
		for range r.out {
		}
		r.err = <-r.done
	})
	return r.err
}

// next returns the next Txn that carries changes or DDL, skipping markers.
func (r *running) next(timeout time.Duration) *model.Txn {
	r.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case txn, ok := <-r.out:
			if !ok {
				r.t.Fatalf("stream ended: %v", r.stop())
			}
			if len(txn.Changes) > 0 || txn.DDL != nil {
				toPG(r.t, r.mapper, txn)
				return txn
			}
		case <-deadline:
			r.t.Fatalf("no transaction within %s", timeout)
		}
	}
}

// failure waits for the stream to stop with an error.
func (r *running) failure(timeout time.Duration) error {
	r.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case _, ok := <-r.out:
			if !ok {
				err := r.stop()
				if err == nil {
					r.t.Fatal("stream ended without an error")
				}
				return err
			}
		case <-deadline:
			r.t.Fatalf("stream still running after %s", timeout)
		}
	}
}

// ignoreOthers is a translator for tests without DDL in the test database:
// statements of other databases (other tests share the server) are ignored,
// anything touching the test database is an error.
func ignoreOthers(db string) Translator {
	return func(_ map[schema.TableID]*schema.Table, stmt, defaultDB string, _ time.Time) (*DDLResult, error) {
		if defaultDB == db || strings.Contains(stmt, db) {
			return nil, errors.New("test translator: unexpected statement")
		}
		return &DDLResult{Ignored: true, Reason: "other database"}, nil
	}
}

// testMapper is a type mapper with the source's character sets (when the
// stream has a source connection).
func testMapper(t *testing.T, cfg Config) *typemap.Mapper {
	t.Helper()
	o := typemap.DefaultOptions()
	if cfg.Source.Host != "" {
		src, err := OpenSource(cfg.Source)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = src.Close() }) // charsets asked for later load through it
		cs, err := typemap.LoadCharsets(context.Background(), src.db)
		if err != nil {
			t.Fatal(err)
		}
		o.Charsets = cs
	}
	return typemap.New(o, nil)
}
