package binlog

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/google/uuid"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
)

func TestMariaDBGTIDTracking(t *testing.T) {
	g, err := newGTIDTracker(FlavorMariaDB, "0-1-5,2-9-100", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []*replication.MariadbGTIDEvent{
		{GTID: mysql.MariadbGTID{DomainID: 0, ServerID: 1, SequenceNumber: 6}},
		{GTID: mysql.MariadbGTID{DomainID: 3, ServerID: 4, SequenceNumber: 1}},
		{GTID: mysql.MariadbGTID{DomainID: 0, ServerID: 2, SequenceNumber: 7}}, // after a failover
	} {
		if got := g.begin(ev); got != ev.GTID.String() {
			t.Errorf("begin %s: %q", ev.GTID.String(), got)
		}
		if err := g.commit(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := g.String(), "0-2-7,2-9-100,3-4-1"; got != want {
		t.Errorf("set %q, want %q", got, want)
	}
	// Without commit, a begun GTID does not count.
	g.begin(&replication.MariadbGTIDEvent{GTID: mysql.MariadbGTID{DomainID: 0, ServerID: 2, SequenceNumber: 8}})
	if got := g.String(); got != "0-2-7,2-9-100,3-4-1" {
		t.Errorf("uncommitted GTID changed the set: %q", got)
	}
	off, _ := newGTIDTracker(FlavorMySQL, "", false)
	off.begin(&replication.GTIDEvent{SID: make([]byte, 16), GNO: 0})
	if err := off.commit(); err != nil || off.String() != "" || off.enabled() {
		t.Errorf("untracked: %q %v", off.String(), err)
	}
}

func TestAnonymousMySQLGTIDIsNotTracked(t *testing.T) {
	g, err := newGTIDTracker(FlavorMySQL, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5", true)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.begin(&replication.GTIDEvent{SID: make([]byte, 16)}); got != "" {
		t.Errorf("anonymous GTID %q", got)
	}
	if err := g.commit(); err != nil || g.String() != "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5" {
		t.Errorf("set %q %v", g.String(), err)
	}
}

func TestClassifyQuery(t *testing.T) {
	for q, want := range map[string]queryKind{
		"BEGIN": queryBegin, "  begin ": queryBegin, "COMMIT": queryCommit, "ROLLBACK": queryRollback,
		"ROLLBACK TO SAVEPOINT a": querySavepoint, "SAVEPOINT a": querySavepoint, "RELEASE SAVEPOINT a": querySavepoint,
		"XA START 'x'": queryXA, "ALTER TABLE t ADD c INT": queryOther, "BEGINNING": queryOther,
	} {
		if got := classifyQuery(q); got != want {
			t.Errorf("%q: %d, want %d", q, got, want)
		}
	}
	for q, want := range map[string]bool{"INSERT INTO t VALUES (1)": true, " update t set a=1": true,
		"REPLACE INTO t VALUES (1)": true, "LOAD DATA INFILE 'x' INTO TABLE t": true, "ALTER TABLE t": false, "DELETE": true} {
		if got := isRowStatement(q); got != want {
			t.Errorf("isRowStatement(%q) = %v", q, got)
		}
	}
}

func TestStatementTables(t *testing.T) {
	ids, err := statementTables("UPDATE a JOIN other.b ON a.id = b.id SET a.x = 1", "db")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, id := range ids {
		got[id.String()] = true
	}
	if !got["db.a"] || !got["other.b"] {
		t.Errorf("tables %v", ids)
	}
	if _, err := statementTables("INSERT INTO ((", "db"); err == nil {
		t.Error("no error for a statement that does not parse")
	}
}

func TestSuggestSkipAndServerID(t *testing.T) {
	if got, want := suggestSkip("ALTER  TABLE `t`\n ADD COLUMN c INT COMMENT 'x'"), "ALTER TABLE `t` ADD*"; got != want {
		t.Errorf("suggestSkip %q, want %q", got, want)
	}
	if got := suggestSkip("DROP TABLE 'it''s'"); got != "DROP TABLE ?it??s?*" {
		t.Errorf("quotes are not replaced: %q", got)
	}
	a, b := DefaultServerID("default", "postgres://u@h:5432/db"), DefaultServerID("other", "postgres://u@h:5432/db")
	if a == b || a < serverIDBase || b < serverIDBase {
		t.Errorf("derived ids %d %d", a, b)
	}
	if a != DefaultServerID("default", "postgres://u@h:5432/db") {
		t.Error("derived id is not stable")
	}
}

// TestMariaDBSetFormatMatchesGoMySQL: the hand-written formatting must give
// go-mysql's text for any set (it is parsed back by go-mysql on restart).
func TestMariaDBSetFormatMatchesGoMySQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 500; round++ {
		set := &mysql.MariadbGTIDSet{Sets: map[uint32]*mysql.MariadbGTID{}}
		for d := rng.IntN(4); d >= 0; d-- {
			dom := uint32(rng.IntN(12))
			set.Sets[dom] = &mysql.MariadbGTID{DomainID: dom, ServerID: rng.Uint32() >> rng.IntN(32), SequenceNumber: rng.Uint64() >> rng.IntN(64)}
		}
		if round == 0 {
			set.Sets = map[uint32]*mysql.MariadbGTID{0: {}}
		}
		if got, want := formatMariaDBSet(set), set.String(); got != want {
			t.Fatalf("formatMariaDBSet = %q, go-mysql says %q", got, want)
		}
	}
}

// TestMySQLSetFormatMatchesGoMySQL: as for MariaDB, for MySQL sets with
// several UUIDs, tags and intervals.
func TestMySQLSetFormatMatchesGoMySQL(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tags := []string{"", "", "alpha", "b_2", "zz"}
	for round := 0; round < 500; round++ {
		set := mysql.NewMysqlGTIDSet()
		for n := rng.IntN(4); n >= 0; n-- {
			var sid uuid.UUID
			sid[rng.IntN(16)] = byte(rng.IntN(256))
			sid[15] = byte(rng.IntN(3))
			for k := rng.IntN(6); k >= 0; k-- {
				tag, gno := mysql.NewTag(tags[rng.IntN(len(tags))]), 1+rng.Int64N(40)<<rng.IntN(40)
				for r := rng.IntN(3); r >= 0; r-- {
					set.AddGTIDWithTag(sid, tag, gno+int64(r))
				}
			}
		}
		if round == 0 {
			set = mysql.NewMysqlGTIDSet()
		}
		if got, want := formatMySQLSet(&set), set.String(); got != want {
			t.Fatalf("formatMySQLSet = %q, go-mysql says %q", got, want)
		}
	}
}

// toPG converts a transaction's images in place from the source's values
// into PostgreSQL values, as the PostgreSQL sink does when it writes them.
func toPG(t *testing.T, m *typemap.Mapper, txn *model.Txn) {
	t.Helper()
	for i := range txn.Changes {
		c := &txn.Changes[i]
		conv, err := m.Compile(c.Table)
		if err != nil {
			t.Fatal(err)
		}
		for _, img := range [][]any{c.Before, c.After} {
			for j, v := range img {
				if img[j], err = conv.Columns[j].FromBinlog(v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// endOf is a transaction's end as the binlog position it is.
func endOf(t *model.Txn) binlogpos.Position {
	p, _ := binlogpos.From(t.End)
	return p
}

// TestMySQLGTIDTracking: the tracker's GTID texts and executed set, with the
// in-place extension of the last interval, equal go-mysql's own for GTIDs
// in order, with gaps, filling gaps, of a second server and tagged.
func TestMySQLGTIDTracking(t *testing.T) {
	a, b := uuid.MustParse("3e11fa47-71ca-11e1-9e33-c80aa9429562"), uuid.MustParse("0e11fa47-71ca-11e1-9e33-c80aa9429500")
	g, err := newGTIDTracker(FlavorMySQL, a.String()+":1-5", true)
	if err != nil {
		t.Fatal(err)
	}
	ref := mysql.NewMysqlGTIDSet()
	for n := int64(1); n <= 5; n++ {
		ref.AddGTID(a, n)
	}
	tag := mysql.NewTag("Blue")
	for _, c := range []struct {
		sid uuid.UUID
		tag mysql.Tag
		gno int64
	}{{a, mysql.Tag{}, 6}, {a, mysql.Tag{}, 7}, {a, mysql.Tag{}, 10}, {a, mysql.Tag{}, 11}, {a, mysql.Tag{}, 8},
		{a, mysql.Tag{}, 9}, {b, mysql.Tag{}, 1}, {b, mysql.Tag{}, 2}, {a, tag, 1}, {a, tag, 2}, {a, mysql.Tag{}, 12}} {
		ev := &replication.GTIDEvent{SID: c.sid[:], GNO: c.gno, Tag: c.tag}
		want := fmt.Sprintf("%s:%d", c.sid, c.gno)
		if c.tag != (mysql.Tag{}) {
			want = fmt.Sprintf("%s:%s:%d", c.sid, c.tag, c.gno)
		}
		if got := g.begin(ev); got != want {
			t.Errorf("begin: %q, want %q", got, want)
		}
		if err := g.commit(); err != nil {
			t.Fatal(err)
		}
		ref.AddGTIDWithTag(c.sid, c.tag, c.gno)
		if got, want := g.String(), ref.String(); got != want {
			t.Errorf("after %s:%d: set %q, go-mysql says %q", c.sid, c.gno, got, want)
		}
	}
}
