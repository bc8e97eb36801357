package binlogpos

import (
	gomysql "github.com/go-mysql-org/go-mysql/mysql"
)

// compareAcrossServers orders two positions recorded on different servers
// (a source failover: the checkpoint is on the old primary, the stream
// reads the promoted replica). File:pos of two servers say nothing about
// each other; the GTID sets do: along one replication history each
// transaction adds to the set, so the earlier position's set is contained
// in the later one's. ok is false when the positions are on one server
// (or either lacks a GTID set): file:pos orders them.
func compareAcrossServers(p, o Position) (int, bool) {
	if p.ServerID == o.ServerID || p.GTIDSet == "" || o.GTIDSet == "" || p.Flavor != o.Flavor || p.Flavor == "" {
		return 0, false
	}
	a, err := gomysql.ParseGTIDSet(p.Flavor, p.GTIDSet)
	if err != nil {
		return 0, false
	}
	b, err := gomysql.ParseGTIDSet(o.Flavor, o.GTIDSet)
	if err != nil {
		return 0, false
	}
	ab, ba := b.Contain(a), a.Contain(b)
	switch {
	case ab && ba:
		return 0, true
	case ab:
		return -1, true
	case ba:
		return 1, true
	}
	// Diverged histories (replicate refuses to resume on such a server,
	// binlog.CheckContains); any fixed answer keeps sorting consistent.
	if p.GTIDSet < o.GTIDSet {
		return -1, true
	}
	return 1, true
}
