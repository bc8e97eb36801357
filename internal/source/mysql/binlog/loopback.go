package binlog

import (
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"
)

// LoopbackDatabase is the database of sluice's state on a MySQL target. The
// reverse stream (PostgreSQL → MySQL) writes its applied record there first
// in each of its transactions, so a transaction whose FIRST row event is on
// this database is the reverse stream's own write: replicating it forward
// would send PostgreSQL's rows back to PostgreSQL (a loop). Such
// transactions are skipped whole (a position-only marker is still emitted so
// the checkpoint moves past them). A transaction of the application that
// happens to touch database sluice after its own rows is not affected.
const LoopbackDatabase = "sluice"

// loopback decides, at a rows event, whether the open transaction is the
// reverse stream's and reports whether the event is to be passed over.
func (s *Stream) loopback(tm *replication.TableMapEvent, h *replication.EventHeader, logPos uint32) bool {
	t := s.txn
	if t == nil || !s.cfg.SkipLoopback {
		return false
	}
	if !t.rowsSeen {
		t.rowsSeen = true
		if tm != nil && strings.EqualFold(string(tm.Schema), LoopbackDatabase) {
			t.loopback = true
			s.stats.Loopback.Add(1)
			s.logger().Debug("skipping a transaction whose first row event is on database sluice (the reverse stream's own write)",
				"table", string(tm.Schema)+"."+string(tm.Table), "gtid", t.gtid, "position", s.statementAt(h, logPos).String())
		}
	}
	return t.loopback
}
