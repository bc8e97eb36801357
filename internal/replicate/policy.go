package replicate

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/typemap"
)

// policyWatch makes values changed by a policy during replication (zero
// dates → NULL/-infinity, NUL characters stripped or replaced) visible: it
// logs each (table, column, policy) the first time it happens in a run,
// keeps the stream's cumulative counts in the target (status shows them,
// the next run continues from them), and exports them as a metric. The
// converters count; this only reads their counters.
type policyWatch struct {
	changes *typemap.Changes
	mu      sync.Mutex          // guards base and logged
	check   sync.Mutex          // one checkPolicies at a time (the status loop and the stop report); guards saved
	base    map[policyKey]int64 // counts of earlier runs, from the target
	logged  map[policyKey]bool
	saved   map[policyKey]int64
}

type policyKey struct{ table, column, policy string }

func newPolicyWatch(changes *typemap.Changes, earlier []typemap.ChangeCount) *policyWatch {
	w := &policyWatch{changes: changes, base: map[policyKey]int64{}, logged: map[policyKey]bool{}, saved: map[policyKey]int64{}}
	for _, c := range earlier {
		k := policyKey{c.Table, c.Column, c.Policy}
		w.base[k] = c.Count
		w.saved[k] = c.Count
	}
	return w
}

// totals are the stream's cumulative counts: earlier runs plus this one.
func (w *policyWatch) totals() []typemap.ChangeCount {
	w.mu.Lock()
	defer w.mu.Unlock()
	sum := map[policyKey]int64{}
	for k, n := range w.base {
		sum[k] = n
	}
	for _, c := range w.changes.Counts() {
		sum[policyKey{c.Table, c.Column, c.Policy}] += c.Count
	}
	out := make([]typemap.ChangeCount, 0, len(sum))
	for k, n := range sum {
		out = append(out, typemap.ChangeCount{Table: k.table, Column: k.column, Policy: k.policy, Count: n})
	}
	typemap.SortChangeCounts(out)
	return out
}

// check logs what is new in this run and saves the counts that moved.
func (r *runner) checkPolicies(ctx context.Context) {
	w := r.policies
	if w == nil {
		return
	}
	w.check.Lock()
	defer w.check.Unlock()
	for _, c := range w.changes.Counts() {
		k := policyKey{c.Table, c.Column, c.Policy}
		w.mu.Lock()
		first := !w.logged[k]
		w.logged[k] = true
		w.mu.Unlock()
		if first {
			r.log.Warn("replicate: a policy changed source values (counted per table and column; see `sluice status`, the metric sluice_replicate_policy_changed_values_total, and --zero-date/--nul-char error to stop instead)",
				"table", c.Table, "column", c.Column, "policy", c.Policy, "count", c.Count)
		}
	}
	var moved []typemap.ChangeCount
	for _, c := range w.totals() {
		if w.saved[policyKey{c.Table, c.Column, c.Policy}] != c.Count {
			moved = append(moved, c)
		}
	}
	if len(moved) == 0 || r.tgt == nil {
		return
	}
	if err := r.tgt.SavePolicyChanges(ctx, r.o.Stream, moved); err != nil {
		r.log.Warn("replicate: could not save the policy counts (retried with the next status line)", "err", err)
		return
	}
	for _, c := range moved {
		w.saved[policyKey{c.Table, c.Column, c.Policy}] = c.Count
	}
}

// reportPolicies saves the final counts and lists them in the stop report
// (the log), when a policy changed anything in the stream's life.
func (r *runner) reportPolicies() {
	if r.policies == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.checkPolicies(ctx)
	for _, c := range r.policies.totals() {
		r.log.Warn("values changed by policy (cumulative for the stream)", "table", c.Table, "column", c.Column,
			"policy", c.Policy, "count", c.Count)
	}
}

// policyCollector exports the cumulative counts when scraped.
type policyCollector struct {
	w    *policyWatch
	desc *prometheus.Desc
}

func newPolicyCollector(w *policyWatch, stream string) *policyCollector {
	return &policyCollector{w: w, desc: prometheus.NewDesc("sluice_replicate_policy_changed_values_total",
		"Source values a policy changed while replicating (--zero-date, --nul-char), cumulative over the stream's runs.",
		[]string{"table", "column", "policy"}, prometheus.Labels{"stream": stream})}
}

func (c *policyCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *policyCollector) Collect(ch chan<- prometheus.Metric) {
	for _, t := range c.w.totals() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(t.Count), t.Table, t.Column, t.Policy)
	}
}
