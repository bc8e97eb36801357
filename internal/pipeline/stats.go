package pipeline

import "sync/atomic"

// counters are cumulative since Run started.
type counters struct {
	txns      atomic.Int64 // source transactions committed (skipped ones excluded)
	changes   atomic.Int64 // row changes in them
	bytes     atomic.Int64 // their decoded size
	groups    atomic.Int64 // target transactions of the workers
	conflicts atomic.Int64 // times the dispatcher waited for keys owned by several workers
	compacted atomic.Int64 // row changes folded away by compaction
	skipped   atomic.Int64 // transactions found already applied by an earlier run
	ddl       atomic.Int64 // schema changes applied
	large     atomic.Int64 // transactions applied in fragments
	retried   atomic.Int64 // groups PostgreSQL refused, applied again one source transaction at a time
}

// Stats is a snapshot of the applier's counters, for metrics and status.
type Stats struct {
	Txns      int64 // source transactions committed by this run
	Changes   int64 // row changes in them
	Bytes     int64 // their decoded size in bytes
	Groups    int64 // target transactions used by the workers
	Conflicts int64 // dispatches that waited for conflicting workers to commit
	Compacted int64 // row changes folded into an earlier change of the same row
	Skipped   int64 // transactions already applied before a restart
	DDL       int64 // schema changes applied
	Large     int64 // transactions applied in fragments (larger than the memory bound)
	// Retried counts groups PostgreSQL refused that then applied one source
	// transaction at a time: grouping or reordering met a constraint sluice
	// does not know (a trigger or foreign key added on the target only).
	Retried int64
	Queue   int // received, uncommitted transactions
	Keys    int // conflict keys held by in-flight transactions
}

// Stats returns the current counters.
func (a *Applier) Stats() Stats {
	s := &a.stats
	return Stats{
		Txns: s.txns.Load(), Changes: s.changes.Load(), Bytes: s.bytes.Load(), Groups: s.groups.Load(),
		Conflicts: s.conflicts.Load(), Compacted: s.compacted.Load(), Skipped: s.skipped.Load(),
		DDL: s.ddl.Load(), Large: s.large.Load(), Retried: s.retried.Load(), Queue: a.QueueDepth(), Keys: a.caus.size(),
	}
}
