package kafka

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestJournalTopic(t *testing.T) {
	if got := JournalTopic("shop", "main@10.0.0.1:3306"); got != "shop.sluice.journal.main_10.0.0.1_3306" {
		t.Errorf("JournalTopic: %s", got)
	}
	if !isJournalTopic("shop", JournalTopic("shop", "s")) || isJournalTopic("shop", "shop.sluice.offsets") {
		t.Error("isJournalTopic")
	}
}

func TestJournalRecords(t *testing.T) {
	j := &Journal{Topic: "p.sluice.journal.s"}
	commit := time.UnixMilli(1700000000123)
	recs := j.journalRows([]*kgo.Record{{Topic: "p.db.t", Value: []byte("{}")}, {Topic: "p.db.t"}, {Topic: "p.transaction", Value: []byte("{}")}},
		commit, "p.transaction")
	if len(recs) != 1 || headerValue(recs[0], hdrTopic) != "p.db.t" || headerValue(recs[0], hdrKind) != "row" || tsHeader(recs[0]) != 1700000000123 {
		t.Fatalf("want the one change event (no tombstone, no BEGIN/END): %+v", recs)
	}
	wm := WatermarkRecord(j.Topic, commit)
	if headerValue(wm, hdrKind) != "wm" || tsHeader(wm) != 1700000000123 {
		t.Errorf("watermark record headers: %v", wm.Headers)
	}
	end := j.journalEnd(commit, nil)
	if headerValue(end, hdrKind) != "end" || tsHeader(end) != 1700000000123 || end.Value != nil {
		t.Errorf("end record: %+v", end)
	}
}
