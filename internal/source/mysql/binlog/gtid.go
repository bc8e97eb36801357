package binlog

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/google/uuid"
)

// gtidTracker keeps the executed GTID set as of the last complete
// transaction, so that every Txn.End carries the set a restart by GTID
// continues from. It is a no-op when the source has no GTIDs.
type gtidTracker struct {
	flavor string
	set    mysql.GTIDSet // nil when GTIDs are not tracked
	// pending is the GTID of the transaction being read, added to set at commit.
	pendingMaria *mysql.MariadbGTID
	pendingSID   uuid.UUID
	pendingGNO   int64
	pendingTag   mysql.Tag
	hasPending   bool
}

// newGTIDTracker starts from a GTID set ("" = do not track GTIDs).
func newGTIDTracker(flavor, start string, enabled bool) (*gtidTracker, error) {
	g := &gtidTracker{flavor: flavor}
	if !enabled {
		return g, nil
	}
	set, err := mysql.ParseGTIDSet(flavor, start)
	if err != nil {
		return nil, fmt.Errorf("GTID set %q (%s): %w", start, flavor, err)
	}
	g.set = set
	return g, nil
}

func (g *gtidTracker) enabled() bool { return g.set != nil }

// String is the executed set as of the last commit ("" when not tracked).
// It is called for every transaction, so MariaDB sets are formatted here
// rather than by go-mysql (fmt, a sort and a join each time): the same text.
func (g *gtidTracker) String() string {
	if g.set == nil {
		return ""
	}
	switch m := g.set.(type) {
	case *mysql.MariadbGTIDSet:
		return formatMariaDBSet(m)
	case *mysql.MysqlGTIDSet:
		return formatMySQLSet(m)
	}
	return g.set.String()
}

// formatMySQLSet is MysqlGTIDSet.String without fmt and strings.Builder
// growth: UUIDs sorted by their bytes, each with its tags sorted (the empty
// tag first, unnamed), each tag's intervals as start or start-end.
func formatMySQLSet(m *mysql.MysqlGTIDSet) string {
	var sidBuf [4]uuid.UUID
	sids := sidBuf[:0]
	for sid := range *m {
		sids = append(sids, sid)
	}
	if len(sids) > 1 {
		slices.SortFunc(sids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	}
	var buf [128]byte
	b := buf[:0]
	for i, sid := range sids {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendUUID(b, sid)
		byTag := (*m)[sid]
		var tagBuf [2]mysql.Tag
		tags := tagBuf[:0]
		for tag := range byTag {
			tags = append(tags, tag)
		}
		if len(tags) > 1 {
			slices.SortFunc(tags, func(a, b mysql.Tag) int { return strings.Compare(a.String(), b.String()) })
		}
		for _, tag := range tags {
			if tag != (mysql.Tag{}) {
				b = append(append(b, ':'), tag.String()...)
			}
			for _, iv := range byTag[tag] {
				b = strconv.AppendInt(append(b, ':'), iv.Start, 10)
				if iv.Stop != iv.Start+1 {
					b = strconv.AppendInt(append(b, '-'), iv.Stop-1, 10)
				}
			}
		}
	}
	return string(b)
}

// formatMariaDBSet is MariadbGTIDSet.String: "domain-server-seq" per domain,
// sorted as strings, joined by commas.
func formatMariaDBSet(m *mysql.MariadbGTIDSet) string {
	if len(m.Sets) == 1 {
		for _, gt := range m.Sets {
			return formatMariaDBGTID(gt)
		}
	}
	parts := make([]string, 0, len(m.Sets))
	for _, gt := range m.Sets {
		parts = append(parts, formatMariaDBGTID(gt))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// formatMariaDBGTID is MariadbGTID.String without fmt.
func formatMariaDBGTID(gt *mysql.MariadbGTID) string {
	if gt.DomainID == 0 && gt.ServerID == 0 && gt.SequenceNumber == 0 {
		return ""
	}
	var b [64]byte
	out := strconv.AppendUint(b[:0], uint64(gt.DomainID), 10)
	out = append(out, '-')
	out = strconv.AppendUint(out, uint64(gt.ServerID), 10)
	out = append(out, '-')
	out = strconv.AppendUint(out, gt.SequenceNumber, 10)
	return string(out)
}

// clone returns the set for a reconnect.
func (g *gtidTracker) clone() mysql.GTIDSet {
	if g.set == nil {
		return nil
	}
	return g.set.Clone()
}

// begin records the GTID of a transaction that starts; it returns the GTID
// in text form ("" for anonymous transactions).
func (g *gtidTracker) begin(ev replication.Event) string {
	g.hasPending = false
	switch e := ev.(type) {
	case *replication.MariadbGTIDEvent:
		gt := e.GTID
		g.pendingMaria, g.hasPending = &gt, true
		return formatMariaDBGTID(&gt)
	case *replication.GTIDEvent:
		return g.beginMySQL(e)
	case *replication.GtidTaggedLogEvent:
		return g.beginMySQL(&e.GTIDEvent)
	}
	return ""
}

func (g *gtidTracker) beginMySQL(e *replication.GTIDEvent) string {
	sid, err := uuid.FromBytes(e.SID)
	if err != nil || sid == uuid.Nil || e.GNO == 0 {
		return "" // ANONYMOUS_GTID_EVENT: gtid_mode is OFF
	}
	g.pendingSID, g.pendingGNO, g.pendingTag, g.hasPending = sid, e.GNO, e.Tag, true
	var buf [96]byte
	b := appendUUID(buf[:0], sid)
	if tag := e.Tag.String(); tag != "" {
		b = append(append(b, ':'), tag...)
	}
	return string(strconv.AppendInt(append(b, ':'), e.GNO, 10))
}

// appendUUID appends uuid.UUID.String's text.
func appendUUID(b []byte, u uuid.UUID) []byte {
	var text [36]byte
	hex.Encode(text[0:8], u[0:4])
	text[8] = '-'
	hex.Encode(text[9:13], u[4:6])
	text[13] = '-'
	hex.Encode(text[14:18], u[6:8])
	text[18] = '-'
	hex.Encode(text[19:23], u[8:10])
	text[23] = '-'
	hex.Encode(text[24:], u[10:])
	return append(b, text[:]...)
}

// commit adds the pending GTID to the executed set.
func (g *gtidTracker) commit() error {
	if !g.hasPending || g.set == nil {
		g.hasPending = false
		return nil
	}
	g.hasPending = false
	switch s := g.set.(type) {
	case *mysql.MariadbGTIDSet:
		if err := s.AddSet(g.pendingMaria); err != nil {
			return fmt.Errorf("GTID %s: %w", g.pendingMaria, err)
		}
	case *mysql.MysqlGTIDSet:
		// The next GTID of the last interval (nearly every commit) extends
		// it in place: what AddGTIDWithTag's append, sort and merge give,
		// without their allocations.
		if ivs := (*s)[g.pendingSID][g.pendingTag]; len(ivs) > 0 && ivs[len(ivs)-1].Stop == g.pendingGNO {
			ivs[len(ivs)-1].Stop++
			return nil
		}
		s.AddGTIDWithTag(g.pendingSID, g.pendingTag, g.pendingGNO)
	}
	return nil
}
