package kafka

import (
	"encoding/json"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/model"
)

// txnMeta counts the events of one source transaction for Debezium's
// transaction metadata (--transaction-metadata): the "transaction" block of
// each event and the BEGIN/END records on the topic <prefix>.transaction.
type txnMeta struct {
	id    string
	total int64
	per   map[string]int64
	order []string // data collections in first-seen order
}

func newTxnMeta(t *model.Txn) *txnMeta {
	id := t.GTID
	if id == "" && t.End != nil {
		id = t.End.Key()
	}
	return &txnMeta{id: id, per: map[string]int64{}}
}

// next counts one event of a data collection (db.table) and returns its block.
func (m *txnMeta) next(collection string) *json.RawMessage {
	m.total++
	if _, ok := m.per[collection]; !ok {
		m.order = append(m.order, collection)
	}
	m.per[collection]++
	b, _ := json.Marshal(struct {
		ID    string `json:"id"`
		Total int64  `json:"total_order"`
		Coll  int64  `json:"data_collection_order"`
	}{m.id, m.total, m.per[collection]})
	raw := json.RawMessage(b)
	return &raw
}

type collectionCount struct {
	Collection string `json:"data_collection"`
	Count      int64  `json:"event_count"`
}

// record is the BEGIN or END record of the transaction.
func (s *Sink) txnRecord(m *txnMeta, end bool) *kgo.Record {
	v := struct {
		Status      string            `json:"status"`
		ID          string            `json:"id"`
		EventCount  *int64            `json:"event_count"`
		Collections []collectionCount `json:"data_collections"`
		TsMs        int64             `json:"ts_ms"`
	}{Status: "BEGIN", ID: m.id, TsMs: time.Now().UnixMilli()}
	if end {
		v.Status = "END"
		n := m.total
		v.EventCount = &n
		v.Collections = []collectionCount{}
		for _, c := range m.order {
			v.Collections = append(v.Collections, collectionCount{c, m.per[c]})
		}
	}
	val, _ := json.Marshal(v)
	key, _ := json.Marshal(map[string]string{"id": m.id})
	if s.cfg.Layout == LayoutKey {
		// The shards share the topic and their ids can coincide (MariaDB
		// shards of one gtid_domain_id and server_id): the key names the shard.
		key, _ = json.Marshal(struct {
			ID    string `json:"id"`
			Shard string `json:"__dbz__physicalTableIdentifier"`
		}{m.id, s.cfg.Prefix + "." + s.cfg.Shard + ".transaction"})
	}
	return &kgo.Record{Topic: s.cfg.TxnTopic(), Key: key, Value: val}
}
