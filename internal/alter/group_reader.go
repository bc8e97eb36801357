package alter

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
)

// track registers a member's tracker and its stream's configuration; the
// last member to register starts one binlog reader for all of them, from
// the earliest of their start positions (a member whose copy started later
// gets its table's earlier changes too: applying a key whose row the copy
// already holds writes the same row again).
func (g *swapGroup) track(r *runner, cfg binlog.Config) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trackers = append(g.trackers, r.tr)
	g.configs = append(g.configs, cfg)
	if len(g.trackers) < g.n {
		return
	}
	merged := mergeStreamConfigs(g.configs, g.trackers)
	trs := g.trackers
	stream, err := binlog.New(merged)
	if err != nil {
		for _, t := range trs {
			t.fail(err)
		}
		return
	}
	ctx, cancel := context.WithCancel(g.ctx)
	done := make(chan struct{})
	g.stopReader = func() { cancel(); <-done }
	go func() {
		defer close(done)
		fanOut(ctx, stream, trs)
	}()
	r.log.Info("one binlog reader for every table of the change", "tables", len(trs), "start", merged.Start.String())
}

// mergeStreamConfigs is one stream of every member's table and the
// markers, from the earliest start position.
func mergeStreamConfigs(cfgs []binlog.Config, trs []*tracker) binlog.Config {
	out := cfgs[0]
	out.Tables = map[schema.TableID]*schema.Table{}
	var names []string
	for i, c := range cfgs {
		for id, t := range c.Tables {
			out.Tables[id] = t
		}
		if c.Start.Compare(out.Start) < 0 {
			out.Start = c.Start
		}
		names = append(names, trs[i].table.Name)
	}
	scopes := make([]func(schema.TableID) bool, len(cfgs))
	for i, c := range cfgs {
		scopes[i] = c.InScope
	}
	out.InScope = func(id schema.TableID) bool {
		for _, in := range scopes {
			if in(id) {
				return true
			}
		}
		return false
	}
	out.Translate = groupTranslator(trs)
	joined := trs[0].table.Database + "." + strings.Join(names, ",")
	out.Stream = "alter-" + joined
	out.ServerID = binlog.DefaultServerID("alter:"+joined, out.Source.Redacted())
	return out
}

// groupTranslator asks every member's translator: a schema change any of
// them stops on stops the stream; the swap's RENAME, which every member
// sees, is emitted once.
func groupTranslator(trs []*tracker) binlog.Translator {
	fs := make([]binlog.Translator, len(trs))
	for i, t := range trs {
		fs[i] = t.translator()
	}
	return func(tables map[schema.TableID]*schema.Table, stmt, defaultDB string, at time.Time) (*binlog.DDLResult, error) {
		var out *binlog.DDLResult
		for _, f := range fs {
			res, err := f(tables, stmt, defaultDB, at)
			if err != nil {
				return nil, err
			}
			if !res.Ignored {
				out = res
			}
		}
		if out == nil {
			return &binlog.DDLResult{Ignored: true, Reason: "not an altered table"}, nil
		}
		return out, nil
	}
}

// fanOut hands every transaction of the stream to each member's tracker;
// one that fails stops getting them, the others go on.
func fanOut(ctx context.Context, s *binlog.Stream, trs []*tracker) {
	out := make(chan *model.Txn, 64)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx, out) }()
	failed := make([]bool, len(trs))
	for txn := range out {
		for i, t := range trs {
			if failed[i] {
				continue
			}
			if err := t.txn(txn); err != nil {
				t.fail(err)
				failed[i] = true
			}
		}
	}
	err := <-errc
	for _, t := range trs {
		if err != nil {
			t.fail(fmt.Errorf("binlog: %w", err))
		} else {
			t.fail(context.Canceled)
		}
	}
}
