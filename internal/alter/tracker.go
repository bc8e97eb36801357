package alter

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// tracker reads the binlog from the copy's start position and adds every
// key changed in the table (before and after images: an update of the key
// changes two rows) to the key set. Marker rows, written by sluice into
// sluice.alter_marker, tell it has read past a point: a marker written
// while the table is locked follows every change of the table.
type tracker struct {
	table  schema.TableID
	marker schema.TableID
	kc     *keyCols
	keys   *keySet
	// images: keep the after image of each key's last change (images.go).
	images bool

	mu      sync.Mutex
	cond    *sync.Cond
	markers int64 // highest marker id seen
	// markerSeq: for each marker read and not yet asked for (seqAt), the
	// count of the table's row changes read before it (one per chunk
	// copied, and a few of the checksum's and the cut-over's).
	markerSeq map[int64]int64
	err       error

	// sealed is set once the cut-over drained the set under the lock:
	// from then on a change of the table was written to the old table
	// after the drain (slipped), which must never happen.
	sealed  atomic.Bool
	slipped atomic.Int64
	// renamed: the cut-over's RENAME has been read; later rows named like
	// the table are the new table's.
	renamed atomic.Bool
	events  atomic.Int64
	// reverse: the tracker of a revert window, which reads from the swap's
	// position: the swap's own RENAME, read first, is passed over.
	reverse bool
}

// errTableChanged: a schema change of the table stopped the tracker.
var errTableChanged = errors.New("the table's definition changed")

func newTracker(table, marker schema.TableID, kc *keyCols, keys *keySet, images bool) *tracker {
	t := &tracker{table: table, marker: marker, kc: kc, keys: keys, images: images, markerSeq: map[int64]int64{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// run consumes the stream until ctx ends or the stream fails.
func (t *tracker) run(ctx context.Context, s *binlog.Stream) {
	out := make(chan *model.Txn, 64)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx, out) }()
	for txn := range out {
		if err := t.txn(txn); err != nil {
			t.fail(err)
			// Drain so that the stream can return.
			for range out { //nolint:revive
			}
			break
		}
	}
	if err := <-errc; err != nil {
		t.fail(fmt.Errorf("binlog: %w", err))
	} else {
		t.fail(context.Canceled)
	}
}

func (t *tracker) txn(txn *model.Txn) error {
	if txn.DDL != nil && t.sealed.Load() {
		t.renamed.Store(true)
	}
	for i := range txn.Changes {
		rc := &txn.Changes[i]
		switch rc.Table.TableID {
		case t.table:
			if t.renamed.Load() {
				continue
			}
			seq := t.events.Add(1)
			if t.sealed.Load() {
				t.slipped.Add(1)
			}
			// The before image's key first: an update that keeps its key
			// leaves the after image as the key's last; one that moves it
			// leaves the old key gone.
			for i, img := range [2][]any{rc.Before, rc.After} {
				if img == nil {
					continue
				}
				id, vals, err := t.kc.of(img)
				if err != nil {
					return fmt.Errorf("binlog change of %s: %w", t.table, err)
				}
				var last []any // nil: gone (the before image), or keys are re-read
				if t.images && i == 1 {
					last = img
				}
				t.keys.add(id, vals, last, seq)
			}
		case t.marker:
			if rc.After == nil {
				continue
			}
			id, ok := rc.After[0].(int64)
			if !ok {
				return fmt.Errorf("marker id is %T", rc.After[0])
			}
			t.mu.Lock()
			t.markers = max(t.markers, id)
			t.markerSeq[id] = t.events.Load()
			t.cond.Broadcast()
			t.mu.Unlock()
		}
	}
	return nil
}

// seqAt waits until the tracker has read marker id and returns the count
// of the table's row changes read before it: the changes up to that count
// are before the marker in binlog order. errAwaitTimeout when the marker
// is not read within timeout (asking again later may find it).
func (t *tracker) seqAt(ctx context.Context, id int64, timeout time.Duration) (int64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	if err := t.await(ctx, timeout, func() (ok bool) { n, ok = t.markerSeq[id]; return ok }); err != nil {
		return 0, err
	}
	delete(t.markerSeq, id)
	return n, nil
}

// errAwaitTimeout: await's condition did not hold within its timeout.
var errAwaitTimeout = errors.New("timed out")

// await waits, with t.mu held, until ready holds (nil), the tracker failed
// (its error), ctx ended (ctx.Err()) or timeout passed (errAwaitTimeout).
func (t *tracker) await(ctx context.Context, timeout time.Duration, ready func() bool) error {
	stop := context.AfterFunc(ctx, t.wake)
	defer stop()
	timer := time.AfterFunc(timeout, t.wake)
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	for !ready() {
		switch {
		case t.err != nil:
			return t.err
		case ctx.Err() != nil:
			return ctx.Err()
		case time.Now().After(deadline):
			return errAwaitTimeout
		}
		t.cond.Wait()
	}
	return nil
}

// wake makes every waiter look again (a deadline passed, a context ended).
func (t *tracker) wake() {
	t.mu.Lock()
	t.cond.Broadcast()
	t.mu.Unlock()
}

func (t *tracker) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.cond.Broadcast()
	t.mu.Unlock()
}

// failed returns the error that stopped the tracker, if any.
func (t *tracker) failed() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// waitMarker waits until the tracker has read marker id (every change of
// the table before it is in the key set). The context's end fails the
// tracker.
func (t *tracker) waitMarker(ctx context.Context, id int64, timeout time.Duration) error {
	stop := context.AfterFunc(ctx, func() { t.fail(ctx.Err()) })
	defer stop()
	t.mu.Lock()
	defer t.mu.Unlock()
	err := t.await(ctx, timeout, func() bool { return t.markers >= id })
	if errors.Is(err, errAwaitTimeout) {
		return fmt.Errorf("the binlog reader did not reach marker %d within %s", id, timeout)
	}
	return err
}

// translator passes over every statement but a schema change of the table
// (which the copy cannot follow: the run stops) and, once sealed, the
// cut-over's own RENAME.
func (t *tracker) translator() binlog.Translator {
	parser := sqlparser.NewTestParser()
	return func(_ map[schema.TableID]*schema.Table, stmt, defaultDB string, _ time.Time) (*binlog.DDLResult, error) {
		if !touches(parser, stmt, defaultDB, t.table) {
			return &binlog.DDLResult{Ignored: true, Reason: "not the altered table"}, nil
		}
		if createsShadow(parser, stmt, defaultDB, t.table) {
			// CREATE TABLE t_new LIKE t: the copy's own creation, read by a
			// reader shared with other tables that started before it.
			return &binlog.DDLResult{Ignored: true, Reason: "the copy's creation"}, nil
		}
		if t.reverse && !t.sealed.Load() && forwardSwap(parser, stmt, defaultDB, t.table) {
			// RENAME TABLE t TO t_old, t_new TO t: the swap the window follows.
			return &binlog.DDLResult{Ignored: true, Reason: "the swap the revert window follows"}, nil
		}
		if foreignKeysOnly(parser, stmt) {
			// No row changes and no column: the swap reads the constraints
			// as they are when it starts (fk.go). Also the swap's own, and
			// their repair, replayed by a resumed run.
			return &binlog.DDLResult{Ignored: true, Reason: "foreign keys only"}, nil
		}
		if t.sealed.Load() {
			if !isRename(stmt) {
				// The swap's own move of the foreign keys, under the lock
				// (fk.go): the RENAME follows.
				return &binlog.DDLResult{Ignored: true, Reason: "the swap's foreign keys"}, nil
			}
			// The cut-over's RENAME: emitted in stream order, so that the
			// changes before it (to the old table) and after it (to the new
			// one) are told apart.
			return &binlog.DDLResult{Reason: "cut-over"}, nil
		}
		if t.reverse {
			return nil, fmt.Errorf("%w: a schema change of %s during its revert window: the old table can no longer take its rows back", errTableChanged, t.table)
		}
		return nil, fmt.Errorf("%w: a schema change of %s while sluice alter runs; run sluice alter again after it (the interrupted run resumes or --cleanup removes it)", errTableChanged, t.table)
	}
}

// touches reports whether stmt names table id.
func touches(p *sqlparser.Parser, stmt, defaultDB string, id schema.TableID) bool {
	st, err := p.Parse(stmt)
	if err != nil {
		return touchesText(stmt, defaultDB, id)
	}
	found := false
	check := func(tn sqlparser.TableName) {
		db := tn.Qualifier.String()
		if db == "" {
			db = defaultDB
		}
		if strings.EqualFold(tn.Name.String(), id.Name) && strings.EqualFold(db, id.Database) {
			found = true
		}
	}
	if rt, ok := st.(*sqlparser.RenameTable); ok {
		// Walk does not descend into the rename pairs.
		for _, p := range rt.TablePairs {
			check(p.FromTable)
			check(p.ToTable)
		}
		return found
	}
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if tn, ok := n.(sqlparser.TableName); ok {
			check(tn)
		}
		return !found, nil
	}, st)
	return found
}

// touchesText is touches for statements the parser does not know (MariaDB's
// ALTER ONLINE TABLE, ...): by name, conservatively, the name qualified with
// the database, or bare when the statement's default database is the
// table's.
func touchesText(stmt, defaultDB string, id schema.TableID) bool {
	name := regexp.QuoteMeta(id.Name)
	db := regexp.QuoteMeta(id.Database)
	qualified := "(?i)(`" + db + "`|\\b" + db + ")\\s*\\.\\s*(`" + name + "`|" + name + "\\b)"
	if regexp.MustCompile(qualified).MatchString(stmt) {
		return true
	}
	if !strings.EqualFold(defaultDB, id.Database) {
		return false
	}
	bare := "(?i)(^|[^\\w$.`])(`" + name + "`|" + name + ")($|[^\\w$`])"
	return regexp.MustCompile(bare).MatchString(stmt)
}

// createsShadow: stmt is a CREATE TABLE of the copy of id (shadowName).
func createsShadow(p *sqlparser.Parser, stmt, defaultDB string, id schema.TableID) bool {
	st, err := p.Parse(stmt)
	if err != nil {
		return false
	}
	ct, ok := st.(*sqlparser.CreateTable)
	if !ok {
		return false
	}
	db := ct.Table.Qualifier.String()
	if db == "" {
		db = defaultDB
	}
	return strings.EqualFold(db, id.Database) && ct.Table.Name.String() == shadowName(id.Name)
}

// forwardSwap: stmt is the copy's swap of id, a RENAME TABLE that renames
// the copy (shadowName) to id.
func forwardSwap(p *sqlparser.Parser, stmt, defaultDB string, id schema.TableID) bool {
	st, err := p.Parse(stmt)
	if err != nil {
		return false
	}
	rt, ok := st.(*sqlparser.RenameTable)
	if !ok {
		return false
	}
	in := func(tn sqlparser.TableName, name string) bool {
		db := tn.Qualifier.String()
		if db == "" {
			db = defaultDB
		}
		return strings.EqualFold(db, id.Database) && tn.Name.String() == name
	}
	for _, pair := range rt.TablePairs {
		if in(pair.FromTable, shadowName(id.Name)) && in(pair.ToTable, id.Name) {
			return true
		}
	}
	return false
}

// isRename: stmt is a RENAME TABLE (the cut-over's), not another DDL.
func isRename(stmt string) bool {
	f := strings.Fields(stmt)
	return len(f) > 0 && strings.EqualFold(f[0], "RENAME")
}

// foreignKeysOnly: stmt is an ALTER TABLE that only drops or adds foreign
// keys (of the table, or of a child referencing it).
func foreignKeysOnly(p *sqlparser.Parser, stmt string) bool {
	st, err := p.Parse(stmt)
	if err != nil {
		return false
	}
	at, ok := st.(*sqlparser.AlterTable)
	if !ok || len(at.AlterOptions) == 0 || at.PartitionSpec != nil || at.PartitionOption != nil {
		return false
	}
	fk := false
	for _, o := range at.AlterOptions {
		switch o := o.(type) {
		case *sqlparser.DropKey:
			if o.Type != sqlparser.ForeignKeyType {
				return false
			}
			fk = true
		case *sqlparser.AddConstraintDefinition:
			if _, ok := o.ConstraintDefinition.Details.(*sqlparser.ForeignKeyDefinition); !ok {
				return false
			}
			fk = true
		case sqlparser.AlgorithmValue:
		default:
			return false
		}
	}
	return fk
}
