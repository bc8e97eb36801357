package fileengine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
)

// The target directory holds one append-only file, log: one line per
// committed target transaction, "<crc32 hex> <json record>\n", written
// with one write and fsync'd before the commit returns. A kill -9 can
// leave only a torn last line, which load drops (the transaction did not
// commit), so every line read back was whole.
const logName = "log"

// record is one target transaction.
type record struct {
	Kind    string           `json:"k"` // start | apply | ddl | ckpt | forget
	Version int64            `json:"version,omitempty"`
	Tables  []*schema.Table  `json:"tables,omitempty"` // start: version 1; ddl: the new versions
	Dropped []schema.TableID `json:"dropped,omitempty"`
	Rows    []rowOp          `json:"rows,omitempty"`
	Applied *appliedRec      `json:"applied,omitempty"`
	State   *stateRec        `json:"state,omitempty"`
	Covered []string         `json:"covered,omitempty"` // applied records' Last positions deleted
	// Clear empties tables before Rows; Bulk are snapshot state records
	// (target.BulkState: nil deletes).
	Clear []string          `json:"clear,omitempty"`
	Bulk  map[string][]byte `json:"bulk,omitempty"`
}

// rowOp sets (Row != nil) or deletes one row of a table, by its key.
type rowOp struct {
	Table string    `json:"t"`
	Key   string    `json:"key"`
	Row   []*string `json:"row,omitempty"`
}

type stateRec struct {
	Position      string    `json:"pos"`
	SchemaVersion int64     `json:"version"`
	SourceTime    time.Time `json:"source_time"`
	UpdatedAt     time.Time `json:"updated_at"`
}

type appliedRec struct {
	Last  string   `json:"last"`
	Ends  []string `json:"ends"`
	Start string   `json:"start,omitempty"`
}

// data is the directory's contents as replayed from the log.
type data struct {
	state   *stateRec
	schemas map[int64]map[schema.TableID]*schema.Table
	applied map[string]appliedRec
	rows    map[string]map[string][]*string // table → key → row
	bulk    map[string][]byte               // the snapshot's state records
}

func newData() *data {
	return &data{schemas: map[int64]map[schema.TableID]*schema.Table{}, applied: map[string]appliedRec{},
		rows: map[string]map[string][]*string{}, bulk: map[string][]byte{}}
}

// apply replays one record.
func (d *data) apply(r *record) {
	switch r.Kind {
	case "start", "ddl":
		next := map[schema.TableID]*schema.Table{}
		if r.Kind == "ddl" && d.state != nil {
			for id, t := range d.schemas[d.state.SchemaVersion] {
				next[id] = t
			}
		}
		for _, t := range r.Tables {
			next[t.TableID] = t
		}
		for _, id := range r.Dropped {
			delete(next, id)
		}
		d.schemas[r.Version] = next
	}
	for _, name := range r.Clear {
		delete(d.rows, name)
	}
	for k, v := range r.Bulk {
		if v == nil {
			delete(d.bulk, k)
		} else {
			d.bulk[k] = v
		}
	}
	for _, op := range r.Rows {
		tbl := d.rows[op.Table]
		if tbl == nil {
			tbl = map[string][]*string{}
			d.rows[op.Table] = tbl
		}
		if op.Row == nil {
			delete(tbl, op.Key)
		} else {
			tbl[op.Key] = op.Row
		}
	}
	if r.Applied != nil {
		d.applied[r.Applied.Last] = *r.Applied
	}
	for _, last := range r.Covered {
		delete(d.applied, last)
	}
	if r.State != nil {
		st := *r.State
		d.state = &st
	}
}

// store is an open target directory: its replayed data and its log.
type store struct {
	mu  sync.Mutex
	dir string
	f   *os.File // the log, for appending (nil: opened read-only)
	d   *data
}

// load replays dir's log; with write it opens the log for appending and
// cuts a torn last line off.
func load(dir string, write bool) (*store, error) {
	path := filepath.Join(dir, logName)
	flag := os.O_RDONLY
	if write {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		flag = os.O_RDWR | os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if errors.Is(err, os.ErrNotExist) && !write {
		return &store{dir: dir, d: newData()}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	d, good, err := replay(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	if !write {
		f.Close()
		return &store{dir: dir, d: d}, nil
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, fmt.Errorf("target: cut the torn end of %s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("target: %w", err)
	}
	return &store{dir: dir, f: f, d: d}, nil
}

// replay reads every whole line; good is the offset after the last one.
func replay(f *os.File) (*data, int64, error) {
	d := newData()
	rd := bufio.NewReaderSize(f, 1<<20)
	var good int64
	for {
		line, err := rd.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return d, good, nil // a line without its newline was torn
		}
		if err != nil {
			return nil, 0, fmt.Errorf("target: read log: %w", err)
		}
		sum, body, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
		if !ok || fmt.Sprintf("%08x", crc32.ChecksumIEEE(body)) != string(sum) {
			return d, good, nil
		}
		var r record
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, 0, fmt.Errorf("target: log record at byte %d: %w", good, err)
		}
		d.apply(&r)
		good += int64(len(line))
	}
}

// commit appends r durably, then applies it to the replayed data: the
// record is the target transaction.
func (s *store) commit(r *record) error {
	body, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("target: encode %s record: %w", r.Kind, err)
	}
	line := fmt.Appendf(nil, "%08x %s\n", crc32.ChecksumIEEE(body), body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(line); err != nil {
		return fmt.Errorf("target: write log: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("target: sync log: %w", err)
	}
	s.d.apply(r)
	return nil
}

func (s *store) close() {
	if s.f != nil {
		s.f.Close()
	}
}

// Rows is every row of every table the directory holds, as text (nil:
// NULL), keyed by table ("db.table") and row key: what a test compares with
// the source.
func Rows(dir string) (map[string]map[string][]*string, error) {
	s, err := load(dir, false)
	if err != nil {
		return nil, err
	}
	return s.d.rows, nil
}
