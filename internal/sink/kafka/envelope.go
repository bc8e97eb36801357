package kafka

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// sourceInfo is Debezium's io.debezium.connector.mysql.Source block.
type sourceInfo struct {
	Version   string  `json:"version"`
	Connector string  `json:"connector"`
	Name      string  `json:"name"`
	TsMs      int64   `json:"ts_ms"`
	Snapshot  string  `json:"snapshot"`
	DB        string  `json:"db"`
	Sequence  *string `json:"sequence"`
	Table     *string `json:"table"`
	ServerID  uint32  `json:"server_id"`
	GTID      *string `json:"gtid"`
	File      string  `json:"file"`
	Pos       uint32  `json:"pos"`
	Row       int     `json:"row"`
	Thread    *int64  `json:"thread"`
	Query     *string `json:"query"`
}

// envelope is the Debezium change event value. appendEvent writes its
// JSON by hand; this type is the reference it is tested against.
type envelope struct {
	Before      json.RawMessage  `json:"before"`
	After       json.RawMessage  `json:"after"`
	Source      sourceInfo       `json:"source"`
	Op          string           `json:"op"`
	TsMs        int64            `json:"ts_ms"`
	Transaction *json.RawMessage `json:"transaction"`
}

// appendEnvelopeTail appends the envelope's JSON after its after image: the
// bytes json.Marshal writes for an envelope value (its fields in that order;
// the parts are compact JSON from json.Marshal, which re-compacting would
// leave as they are), without encoding/json scanning the row images again.
func appendEnvelopeTail(dst []byte, source json.RawMessage, op string, tsMs int64, tx json.RawMessage) []byte {
	dst = append(append(dst, `,"source":`...), source...)
	dst = append(append(append(dst, `,"op":"`...), op...), `","ts_ms":`...)
	dst = strconv.AppendInt(dst, tsMs, 10)
	dst = append(dst, `,"transaction":`...)
	if tx == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, tx...)
	}
	return append(dst, '}')
}

// origin is where a row event comes from: a binlog transaction, or the snapshot.
type origin struct {
	pos      binlogpos.Position
	gtid     string
	commit   time.Time
	snapshot string   // "false" for binlog events; "true"/"last" in the snapshot
	tx       *txnMeta // with --transaction-metadata: the transaction's counters
}

func txnOrigin(t *model.Txn) origin {
	o := origin{gtid: t.GTID, commit: t.Timestamp, snapshot: "false"}
	if t.End != nil {
		o.pos, _ = binlogpos.From(t.End)
	}
	return o
}

func (s *Sink) source(o origin, id schema.TableID, row int) sourceInfo {
	si := sourceInfo{Version: "sluice-" + s.cfg.Version, Connector: "mysql", Name: s.cfg.DataPrefix(), TsMs: o.commit.UnixMilli(),
		Snapshot: o.snapshot, DB: id.Database, ServerID: s.cfg.ServerID, File: o.pos.File, Pos: o.pos.Pos, Row: row}
	if id.Name != "" {
		name := id.Name
		si.Table = &name
	}
	if o.gtid != "" {
		g := o.gtid
		si.GTID = &g
	}
	return si
}

// appendSource appends json.Marshal(si) (the source block of every event)
// without reflection: it is written once per row change.
func appendSource(dst []byte, si *sourceInfo) []byte {
	optString := func(dst []byte, p *string) []byte {
		if p == nil {
			return append(dst, "null"...)
		}
		return appendJSONString(dst, *p)
	}
	dst = appendJSONString(append(dst, `{"version":`...), si.Version)
	dst = appendJSONString(append(dst, `,"connector":`...), si.Connector)
	dst = appendJSONString(append(dst, `,"name":`...), si.Name)
	dst = strconv.AppendInt(append(dst, `,"ts_ms":`...), si.TsMs, 10)
	dst = appendJSONString(append(dst, `,"snapshot":`...), si.Snapshot)
	dst = appendJSONString(append(dst, `,"db":`...), si.DB)
	dst = optString(append(dst, `,"sequence":`...), si.Sequence)
	dst = optString(append(dst, `,"table":`...), si.Table)
	dst = strconv.AppendUint(append(dst, `,"server_id":`...), uint64(si.ServerID), 10)
	dst = optString(append(dst, `,"gtid":`...), si.GTID)
	dst = appendJSONString(append(dst, `,"file":`...), si.File)
	dst = strconv.AppendUint(append(dst, `,"pos":`...), uint64(si.Pos), 10)
	dst = strconv.AppendInt(append(dst, `,"row":`...), int64(si.Row), 10)
	dst = append(dst, `,"thread":`...)
	if si.Thread == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendInt(dst, *si.Thread, 10)
	}
	dst = optString(append(dst, `,"query":`...), si.Query)
	return append(dst, '}')
}

// rowRecords turns one row change into its Kafka records: c/u/d (r in the
// snapshot), a tombstone after a delete, and for an update that changes
// the key, a delete of the old key and a create of the new one (as Debezium).
func (s *Sink) rowRecords(rc *model.RowChange, o origin, row int, fromText bool) ([]*kgo.Record, error) {
	return s.appendRowRecords(nil, rc, o, row, fromText)
}

// appendRowRecords appends rowRecords' records to out.
func (s *Sink) appendRowRecords(out []*kgo.Record, rc *model.RowChange, o origin, row int, fromText bool) ([]*kgo.Record, error) {
	tc, err := s.codec(rc.Table)
	if err != nil {
		return out, err
	}
	si := s.source(o, rc.Table.TableID, row)
	var srcBuf [320]byte
	now := time.Now().UnixMilli
	if s.nowMs != nil {
		now = s.nowMs
	}
	ev := event{tc: tc, src: appendSource(srcBuf[:0], &si), now: now(), fromText: fromText, tx: o.tx}
	switch {
	case o.snapshot != "false":
		return s.appendEvent(out, &ev, "r", nil, rc.After)
	case rc.Op == model.Insert:
		return s.appendEvent(out, &ev, "c", nil, rc.After)
	case rc.Op == model.Delete:
		return s.appendEvent(out, &ev, "d", rc.Before, nil)
	}
	kb, err := tc.keyOf(rc.Before, fromText)
	if err != nil {
		return out, err
	}
	ka, err := tc.keyOf(rc.After, fromText)
	if err != nil {
		return out, err
	}
	if bytes.Equal(kb, ka) {
		return s.appendEvent(out, &ev, "u", rc.Before, rc.After)
	}
	if out, err = s.appendEvent(out, &ev, "d", rc.Before, nil); err != nil {
		return out, err
	}
	return s.appendEvent(out, &ev, "c", nil, rc.After)
}

// event is what the events of one row change share.
type event struct {
	tc       *tableCodec
	src      []byte // the source block's JSON
	now      int64  // the envelope's ts_ms
	fromText bool
	tx       *txnMeta
}

// appendEvent appends the record of one change event (and a delete's
// tombstone): key and value are encoded into one buffer, the key first.
func (s *Sink) appendEvent(out []*kgo.Record, ev *event, op string, before, after []any) ([]*kgo.Record, error) {
	tc := ev.tc
	img := after
	if img == nil {
		img = before
	}
	var tx json.RawMessage
	if ev.tx != nil {
		tx = *ev.tx.next(tc.table.Database + "." + tc.table.Name)
	}
	per := 64 + 16*len(tc.fields)
	buf := make([]byte, 0, per+2*per+len(ev.src)+len(tx)+96)
	var key []byte
	if tc.key != nil {
		var err error
		if buf, err = tc.appendKey(buf, img, ev.fromText); err != nil {
			return out, err
		}
		key = buf[:len(buf):len(buf)]
	}
	k := len(buf)
	buf = append(buf, `{"before":`...)
	buf, err := tc.appendObject(buf, before, nil, ev.fromText)
	if err != nil {
		return out, err
	}
	buf = append(buf, `,"after":`...)
	if buf, err = tc.appendObject(buf, after, nil, ev.fromText); err != nil {
		return out, err
	}
	buf = appendEnvelopeTail(buf, ev.src, op, ev.now, tx)
	out = append(out, &kgo.Record{Topic: tc.topic, Key: s.wrapKey(tc, key), Value: s.wrapValue(tc, buf[k:])})
	if op == "d" && !s.cfg.NoTombstones {
		out = append(out, &kgo.Record{Topic: tc.topic, Key: s.wrapKey(tc, key)})
	}
	return out, nil
}

func (s *Sink) wrapKey(tc *tableCodec, key json.RawMessage) []byte {
	if key == nil {
		return nil
	}
	if !s.cfg.Schemas {
		return key
	}
	b, _ := json.Marshal(map[string]any{"schema": tc.keySchema, "payload": key})
	return b
}

func (s *Sink) wrapValue(tc *tableCodec, val []byte) []byte {
	if !s.cfg.Schemas {
		return val
	}
	b, _ := json.Marshal(struct {
		Schema  map[string]any  `json:"schema"`
		Payload json.RawMessage `json:"payload"`
	}{tc.envelopeSchema(), val})
	return b
}

func (tc *tableCodec) envelopeSchema() map[string]any {
	base := tc.topic
	before := copyMap(tc.rowSchema)
	before["field"] = "before"
	after := copyMap(tc.rowSchema)
	after["field"] = "after"
	return map[string]any{"type": "struct", "optional": false, "name": base + ".Envelope", "version": 2,
		"fields": []any{before, after, sourceSchema(),
			map[string]any{"type": "string", "optional": false, "field": "op"},
			map[string]any{"type": "int64", "optional": true, "field": "ts_ms"},
			map[string]any{"type": "struct", "optional": true, "name": "event.block", "version": 1, "field": "transaction",
				"fields": []any{
					map[string]any{"type": "string", "optional": false, "field": "id"},
					map[string]any{"type": "int64", "optional": false, "field": "total_order"},
					map[string]any{"type": "int64", "optional": false, "field": "data_collection_order"},
				}},
		}}
}

func sourceSchema() map[string]any {
	f := func(t, name string, optional bool) map[string]any {
		return map[string]any{"type": t, "optional": optional, "field": name}
	}
	snap := f("string", "snapshot", true)
	snap["name"] = "io.debezium.data.Enum"
	snap["version"] = 1
	snap["parameters"] = map[string]string{"allowed": "true,last,false,incremental"}
	return map[string]any{"type": "struct", "optional": false, "name": "io.debezium.connector.mysql.Source", "field": "source",
		"fields": []any{f("string", "version", false), f("string", "connector", false), f("string", "name", false),
			f("int64", "ts_ms", false), snap, f("string", "db", false), f("string", "sequence", true),
			f("string", "table", true), f("int64", "server_id", false), f("string", "gtid", true),
			f("string", "file", false), f("int64", "pos", false), f("int32", "row", false),
			f("int64", "thread", true), f("string", "query", true)}}
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ddlRecord is the schema change event on the topic <prefix> (Debezium's
// schema change topic), keyed by the database.
func (s *Sink) ddlRecord(t *model.Txn) (*kgo.Record, error) {
	d := t.DDL
	// databaseName is the database the statement changes: the session's
	// default database, else that of a table it names, else the source URL's.
	db := d.Database
	switch {
	case db != "":
	case len(d.Tables) > 0:
		db = d.Tables[0].Database
	case len(d.Dropped) > 0:
		db = d.Dropped[0].Database
	default:
		db = s.cfg.DefaultDatabase
	}
	src := s.source(txnOrigin(t), schema.TableID{Database: db}, 0)
	val, err := json.Marshal(struct {
		Source       sourceInfo `json:"source"`
		TsMs         int64      `json:"ts_ms"`
		DatabaseName string     `json:"databaseName"`
		SchemaName   *string    `json:"schemaName"`
		DDL          string     `json:"ddl"`
		TableChanges []any      `json:"tableChanges"`
	}{src, time.Now().UnixMilli(), db, nil, d.Statement, []any{}})
	if err != nil {
		return nil, err
	}
	key, _ := json.Marshal(map[string]string{"databaseName": db})
	return &kgo.Record{Topic: s.cfg.DDLTopic(), Key: key, Value: val}, nil
}
