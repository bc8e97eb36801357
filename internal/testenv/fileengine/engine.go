// Package fileengine is a target engine for tests only: a directory on the
// local disk (testfile:///path) holding one append-only, fsync'd log of
// target transactions (store.go), from which the stream's checkpoint,
// schema history, applied records and every table's rows are replayed.
// It is built into sluice only with the sluicetest build tag (one blank
// import in internal/target/all/testengine.go), and it exists to prove
// that an engine is added in its own package: replicate, its kill -9
// resume and status run it through the same code as the real engines.
// One directory holds one stream.
package fileengine

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/preflight"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Scheme is the engine's URL scheme: testfile:///absolute/dir.
const Scheme = "testfile"

func init() { target.Register(open, Scheme) }

type engine struct{ dir, url string }

func open(rawURL string, _ target.Options) (target.Engine, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Path == "" || !filepath.IsAbs(u.Path) {
		return nil, errors.New("target: a testfile:// URL names an absolute directory: testfile:///path/to/dir")
	}
	return engine{dir: filepath.Clean(u.Path), url: rawURL}, nil
}

func (engine) Name() string       { return Scheme }
func (e engine) Redacted() string { return e.url } // no password to hide

// Capabilities: the translated schema history, the source's names and
// every column's value, as the source logged them (as Kafka's events).
func (engine) Capabilities() target.Capabilities {
	return target.Capabilities{DDL: target.DDLTranslate, SourceStatements: true, KeepsSourceNames: true,
		Generated: target.GeneratedAll}
}

// CheckTarget has nothing to check (preflight.TargetChecker).
func (engine) CheckTarget(context.Context, preflight.Needs) (preflight.TargetInfo, []preflight.Problem) {
	return preflight.TargetInfo{}, nil
}

// ReadStatus reads the directory without taking its lock
// (target.StatusReader).
func (e engine) ReadStatus(_ context.Context, _ string) (*target.StreamState, error) {
	s, err := load(e.dir, false)
	if err != nil {
		return nil, err
	}
	st, err := decodeState(s.d.state)
	if err != nil {
		return nil, err
	}
	return &target.StreamState{Checkpoint: st, Replicator: holder(e.dir)}, nil
}

// ConnectReplica takes the directory's lock, which fences a killed run
// (the kernel drops its lock with its process), and replays the log
// (target.Replicated).
func (e engine) ConnectReplica(ctx context.Context, _ target.ReplicaOptions) (target.Replica, error) {
	lock, err := takeLock(ctx, e.dir)
	if err != nil {
		return nil, err
	}
	s, err := load(e.dir, true)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &replica{s: s, lock: lock}, nil
}

// takeLock holds dir/lock (flock) and writes this process's id into it.
func takeLock(ctx context.Context, dir string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt(fmt.Appendf(nil, "pid %d", os.Getpid()), 0)
	return f, nil
}

// holder names the process holding dir's lock ("": none).
func holder(dir string) string {
	f, err := os.Open(filepath.Join(dir, "lock"))
	if err != nil {
		return ""
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		return "" // nobody holds it
	}
	b, _ := os.ReadFile(f.Name())
	return "sluice " + string(b)
}

// replica is one run's open directory (target.Replica).
type replica struct {
	s    *store
	lock *os.File
}

func (r *replica) PostGIS(context.Context) (bool, error) { return false, nil }

func (r *replica) LoadState(context.Context, string) (*pipeline.State, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return decodeState(r.s.d.state)
}

func (r *replica) LoadSchema(_ context.Context, _ string, version int64) (map[schema.TableID]*schema.Table, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	tables, ok := r.s.d.schemas[version]
	if !ok {
		return nil, fmt.Errorf("target: no schema version %d in %s", version, r.s.dir)
	}
	out := make(map[schema.TableID]*schema.Table, len(tables))
	for id, t := range tables {
		out[id] = t
	}
	return out, nil
}

func (r *replica) RecordStart(_ context.Context, _ string, pos model.Position, tables []*schema.Table) error {
	return r.s.commit(&record{Kind: "start", Version: 1, Tables: tables,
		State: &stateRec{Position: pos.Encode(), SchemaVersion: 1, UpdatedAt: time.Now().UTC()}})
}

func (r *replica) Sink(target.SinkConfig) (pipeline.Sink, error) { return &sink{s: r.s}, nil }

func (r *replica) LoadPolicyChanges(context.Context, string) ([]typemap.ChangeCount, error) {
	return nil, nil
}

func (r *replica) SavePolicyChanges(context.Context, string, []typemap.ChangeCount) error { return nil }

func (r *replica) Close() {
	r.s.close()
	r.lock.Close()
}

func decodeState(st *stateRec) (*pipeline.State, error) {
	if st == nil {
		return nil, nil
	}
	pos, err := binlogpos.Decode(st.Position)
	if err != nil {
		return nil, fmt.Errorf("target: checkpoint: %w", err)
	}
	return &pipeline.State{Position: pos, SchemaVersion: st.SchemaVersion, SourceTime: st.SourceTime,
		UpdatedAt: st.UpdatedAt}, nil
}

func encodeState(st pipeline.State) *stateRec {
	return &stateRec{Position: encodePos(st.Position), SchemaVersion: st.SchemaVersion, SourceTime: st.SourceTime,
		UpdatedAt: time.Now().UTC()}
}

func encodePos(p model.Position) string {
	if p == nil {
		return ""
	}
	return p.Encode()
}
