package kafka

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// Layout is how a stream's events say which shard they come from
// (--shard-layout, docs/kafka.md "Shards: topics and keys"). Shards that
// share a topic must not share keys: a consumer upserting by key, and log
// compaction, would merge their rows and let one shard's delete remove the
// other's row.
type Layout string

const (
	// LayoutNone is Debezium's layout: topic <prefix>.<db>.<table>, the key
	// the primary key. One shard per topic prefix only.
	LayoutNone Layout = "none"
	// LayoutKey shares the topic <prefix>.<db>.<table> between shards and
	// adds the shard to every key, as Debezium's ByLogicalTableRouter does
	// when it merges tables into one topic (key.enforce.uniqueness).
	LayoutKey Layout = "key"
	// LayoutTopic gives each shard its own topics,
	// <prefix>.<shard>.<db>.<table>: each shard as one Debezium connector
	// with topic.prefix <prefix>.<shard>.
	LayoutTopic Layout = "topic"
)

// PhysicalIDField is the key field LayoutKey adds: Debezium's name for it.
const PhysicalIDField = "__dbz__physicalTableIdentifier"

// ParseLayout reads --shard-layout for a run of shards sources: empty is
// the shard in the key with several sources, Debezium's layout with one.
func ParseLayout(s string, shards int) (Layout, error) {
	switch l := Layout(strings.ToLower(strings.TrimSpace(s))); l {
	case "":
		if shards > 1 {
			return LayoutKey, nil
		}
		return LayoutNone, nil
	case LayoutKey, LayoutTopic:
		return l, nil
	case LayoutNone:
		if shards > 1 {
			return "", errors.New("--shard-layout none writes each row's primary key alone as its key, so rows of different shards with the same " +
				"key would collide in the shared topics (a consumer upserting by key, or log compaction, merges them); fix: leave --shard-layout " +
				"out (the shard in the key) or pass --shard-layout topic (a topic per shard)")
		}
		return l, nil
	}
	return "", fmt.Errorf("--shard-layout %q: want key (the shard in every key), topic (a topic per shard) or none (Debezium's, one shard)", s)
}

// layoutOf reads a recorded layout: records of sluice before layouts wrote
// Debezium's.
func layoutOf(s string) Layout {
	if s == "" {
		return LayoutNone
	}
	return Layout(s)
}

// ShardLabel is the name of a shard in topic names and keys: its host:port
// with every character a topic name cannot hold (':' among them) as '_',
// e.g. 10.0.0.5:3306 → 10.0.0.5_3306.
func ShardLabel(addr string) string {
	b := []byte(addr)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// DataPrefix is the Debezium topic.prefix of the stream's events: the
// topic prefix, or with a topic per shard <prefix>.<shard>. It names the
// table topics, the schema-change topic, the transaction topic, the schema
// names and source.name; sluice's own topics (<prefix>.sluice.*) stay under
// the topic prefix.
func (c Config) DataPrefix() string {
	if c.Layout == LayoutTopic {
		return c.Prefix + "." + c.Shard
	}
	return c.Prefix
}

// TableTopic is Debezium's topic of a table's change events.
func (c Config) TableTopic(id schema.TableID) string {
	return c.DataPrefix() + "." + id.Database + "." + id.Name
}

// DDLTopic is Debezium's schema change topic.
func (c Config) DDLTopic() string { return c.DataPrefix() }

// TxnTopic is the topic of --transaction-metadata's BEGIN/END records.
func (c Config) TxnTopic() string { return c.DataPrefix() + ".transaction" }

// keyExtra is what LayoutKey appends to a table's key object: the
// PhysicalIDField with the topic the table would have with a topic per
// shard, as Debezium's router puts the original topic there.
func (c Config) keyExtra(id schema.TableID) []byte {
	if c.Layout != LayoutKey {
		return nil
	}
	v, _ := json.Marshal(c.Prefix + "." + c.Shard + "." + id.Database + "." + id.Name)
	return append([]byte(`,"`+PhysicalIDField+`":`), v...)
}

// placement is what the stream's records say of where its events go.
func (c Config) placement() placement {
	return placement{Layout: string(layoutOf(string(c.Layout))), Shard: c.Shard, SourceID: c.SourceID}
}

// keepPlacement keeps a stream's events where they went: a stream with
// state keeps its shard label (a shard reached at another address keeps
// its keys and topics), and refuses another layout, which would put the
// same rows under other keys or topics and leave the old ones in place.
func (s *Store) keepPlacement() error {
	if s.cfg.Layout == "" {
		s.cfg.Layout = LayoutNone
	}
	if s.state == nil {
		return nil
	}
	was := layoutOf(s.state.Layout)
	if was != s.cfg.Layout {
		fix := fmt.Sprintf("keep --shard-layout %s, or start the new layout as a new stream under another --topic-prefix", was)
		if s.state.Layout == "" && s.cfg.Layout != LayoutNone {
			// Several shards of a sluice before layouts: every shard in the
			// same topics with the primary key alone as key.
			fix = "start the stream anew under another --topic-prefix (this stream was started by a sluice that wrote every shard " +
				"into the same topics with the primary key alone as key, so rows of different shards with the same key collide there)"
		}
		return exitcode.ConfigError(fmt.Errorf("kafka: stream %q writes with --shard-layout %s (%s), not %s: changing it would write the same rows under "+
			"other keys or topics beside the old ones; fix: %s", s.cfg.Stream, was, layoutText(was), s.cfg.Layout, fix))
	}
	if s.state.Shard != "" {
		s.cfg.Shard = s.state.Shard
	}
	return nil
}

func layoutText(l Layout) string {
	switch l {
	case LayoutKey:
		return "the shard in every key"
	case LayoutTopic:
		return "a topic per shard"
	}
	return "Debezium's keys and topics"
}
