package kafka

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

func TestParseLayout(t *testing.T) {
	for _, c := range []struct {
		in     string
		shards int
		want   Layout
		err    string
	}{
		{"", 1, LayoutNone, ""}, {"", 2, LayoutKey, ""}, {"key", 1, LayoutKey, ""}, {"TOPIC", 3, LayoutTopic, ""},
		{"none", 1, LayoutNone, ""}, {"none", 2, "", "would collide"}, {"shard", 1, "", "want key"},
	} {
		got, err := ParseLayout(c.in, c.shards)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseLayout(%q, %d) = %q, %v; want %q, error with %q", c.in, c.shards, got, err, c.want, c.err)
		}
	}
	for in, want := range map[string]string{"10.0.0.5:3306": "10.0.0.5_3306", "[::1]:3306": "___1__3306", "db-1.example.com:3307": "db-1.example.com_3307"} {
		if got := ShardLabel(in); got != want {
			t.Errorf("ShardLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLayoutRecords: where each layout puts a table's events and what their
// keys (with and without the JsonConverter schema) and source.name are.
func TestLayoutRecords(t *testing.T) {
	tbl := &schema.Table{TableID: schema.TableID{Database: "db", Name: "t"}, PrimaryKey: []string{"id"},
		Columns: []schema.Column{{Name: "id", Ordinal: 1, DataType: "int", ColumnType: "int(11)"},
			{Name: "v", Ordinal: 2, DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4", Nullable: true}}}
	keyless := &schema.Table{TableID: schema.TableID{Database: "db", Name: "nokey"}, Columns: tbl.Columns}
	const id = `"__dbz__physicalTableIdentifier":"p.h_3306.db.t"`
	for _, c := range []struct {
		layout                    Layout
		topic, key, name, schemas string
	}{
		{LayoutNone, "p.db.t", `{"id":1}`, "p", "p.db.t.Key [id]"},
		{LayoutKey, "p.db.t", `{"id":1,` + id + `}`, "p", "p.db.t.Key [id __dbz__physicalTableIdentifier]"},
		{LayoutTopic, "p.h_3306.db.t", `{"id":1}`, "p.h_3306", "p.h_3306.db.t.Key [id]"},
	} {
		for _, withSchemas := range []bool{false, true} {
			cfg := Config{Prefix: "p", Version: "dev", ServerID: 7, Layout: c.layout, Shard: "h_3306", Schemas: withSchemas}
			s := &Sink{cfg: cfg, mapper: typemap.New(typemap.Options{ZeroDate: typemap.ZeroDateNull, Nul: typemap.NulError}, nil),
				codecs: map[*schema.Table]*tableCodec{}}
			recs, err := s.rowRecords(&model.RowChange{Table: tbl, Op: model.Delete, Before: []any{int32(1), "x"}}, origin{snapshot: "false"}, 0, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != 2 || recs[1].Value != nil {
				t.Fatalf("%s: a delete and its tombstone, got %d records", c.layout, len(recs))
			}
			for _, r := range recs {
				key := string(r.Key)
				if withSchemas {
					var k struct {
						Schema struct {
							Name   string `json:"name"`
							Fields []struct {
								Field    string `json:"field"`
								Optional bool   `json:"optional"`
							} `json:"fields"`
						} `json:"schema"`
						Payload json.RawMessage `json:"payload"`
					}
					if err := json.Unmarshal(r.Key, &k); err != nil {
						t.Fatal(err)
					}
					var names []string
					for _, f := range k.Schema.Fields {
						names = append(names, f.Field)
					}
					if got := fmt.Sprintf("%s %v", k.Schema.Name, names); got != c.schemas {
						t.Errorf("%s: key schema %s, want %s", c.layout, got, c.schemas)
					}
					key = string(k.Payload)
				}
				if r.Topic != c.topic || key != c.key {
					t.Errorf("%s (schemas %v): record on %s key %s, want %s key %s", c.layout, withSchemas, r.Topic, key, c.topic, c.key)
				}
			}
			var v struct {
				Source  struct{ Name string } `json:"source"`
				Payload struct {
					Source struct{ Name string } `json:"source"`
				} `json:"payload"`
			}
			if err := json.Unmarshal(recs[0].Value, &v); err != nil {
				t.Fatal(err)
			}
			if name := v.Source.Name + v.Payload.Source.Name; name != c.name {
				t.Errorf("%s: source.name %q, want %q", c.layout, name, c.name)
			}
			if got := cfg.DDLTopic() + " " + cfg.TxnTopic(); got != c.name+" "+c.name+".transaction" {
				t.Errorf("%s: DDL and transaction topics %s", c.layout, got)
			}
			txnKey := `{"id":"0-1-42"}`
			if c.layout == LayoutKey {
				txnKey = `{"id":"0-1-42","__dbz__physicalTableIdentifier":"p.h_3306.transaction"}`
			}
			if tr := s.txnRecord(newTxnMeta(&model.Txn{GTID: "0-1-42"}), false); tr.Topic != c.name+".transaction" || string(tr.Key) != txnKey {
				t.Errorf("%s: transaction record on %s key %s, want %s.transaction key %s", c.layout, tr.Topic, tr.Key, c.name, txnKey)
			}
			kl, err := s.rowRecords(&model.RowChange{Table: keyless, Op: model.Insert, After: []any{int32(1), "x"}}, origin{snapshot: "false"}, 0, false)
			if err != nil || len(kl) != 1 || kl[0].Key != nil {
				t.Errorf("%s: a keyless table's record: %v, key %s, want a null key", c.layout, err, kl[0].Key)
			}
		}
	}
}
