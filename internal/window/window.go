// Package window is the engine-neutral merge of a table copy into a
// running change stream (Netflix DBLog, Debezium's read-only incremental
// snapshot): a key-range chunk of the table is read from the source between
// a low and a high watermark (two positions of the source's change
// stream), and every key of the chunk that a change of the stream touched
// inside the window is dropped from it, because the stream carries that
// key's newer state. What is left is the table's state at the high
// watermark, and is applied there, in the stream's order. The argument is
// in docs/replication.md ("Adding a table to a running stream").
//
// A Window knows nothing of SQL or of targets: the caller reads the
// watermarks and the chunk, feeds it the stream's changes of the table, and
// applies Merge's rows as upserts of full row images when Ready says the
// stream reached the high watermark.
package window

import (
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
)

// Window is one chunk's window, from its low watermark on. It is used by
// one goroutine (the one that hands the stream's transactions to apply).
type Window struct {
	low, high model.Position
	// touched are the keys a change ending in (low, high] touched (both
	// images of an update: a key change touches the old and the new key).
	touched map[string]struct{}
	rows    [][]any
	filled  bool
}

// ErrNoLow is a window opened without a low watermark.
var ErrNoLow = errors.New("window: no low watermark")

// Open starts a window at low, the source's position read before the
// chunk's SELECT. Changes are observed from then on, whether the chunk has
// been read yet or not: the stream may pass low before the SELECT returns.
func Open(low model.Position) (*Window, error) {
	if low == nil {
		return nil, ErrNoLow
	}
	return &Window{low: low, touched: map[string]struct{}{}}, nil
}

// Fill gives the window its chunk (the rows of one SELECT) and its high
// watermark, the source's position read after the SELECT returned.
func (w *Window) Fill(high model.Position, rows [][]any) error {
	if w.filled {
		return errors.New("window: filled twice")
	}
	if high == nil || high.Compare(w.low) < 0 {
		return fmt.Errorf("window: high watermark %s before the low one %s", model.PositionString(high), w.low)
	}
	w.high, w.rows, w.filled = high, rows, true
	return nil
}

// Observe records the keys that a change of the table, in the source
// transaction ending at end, touched. Changes at or before low are in the
// chunk already. Changes past high are recorded too: the merge happens
// where the stream is when it is applied (Ready), which may be past high,
// and every change up to there must be known, or a chunk row older than
// such a change would overwrite it. A fragment of a large transaction has
// no end yet (nil): its keys are recorded. Recording a key too many is
// safe, since a key whose change apply received before the merge holds
// its state from that change; recording one too few is not.
func (w *Window) Observe(end model.Position, keys ...string) {
	if end != nil && end.Compare(w.low) <= 0 {
		return
	}
	for _, k := range keys {
		w.touched[k] = struct{}{}
	}
}

// Ready reports whether the stream has reached the high watermark: at is
// the end of the last transaction handed to apply (every change up to it
// was observed). Merge's rows are then applied at at, before the next
// transaction is handed on: a key the window's changes (L, at] did not
// touch had one state over the whole window, the chunk's.
func (w *Window) Ready(at model.Position) bool {
	return w.filled && at != nil && at.Compare(w.high) >= 0
}

// High is the window's high watermark (nil before Fill).
func (w *Window) High() model.Position { return w.high }

// Merge is the chunk without the rows whose key the window's changes
// touched, in the chunk's order: the state at the high watermark of every
// key the stream did not carry. key is the row's exact key (Key).
func (w *Window) Merge(key func(row []any) (string, error)) ([][]any, error) {
	if !w.filled {
		return nil, errors.New("window: merged before it was filled")
	}
	out := make([][]any, 0, len(w.rows))
	for _, r := range w.rows {
		k, err := key(r)
		if err != nil {
			return nil, err
		}
		if _, ok := w.touched[k]; !ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// Dropped is how many keys the window's changes touched (for the status).
func (w *Window) Dropped() int { return len(w.touched) }
