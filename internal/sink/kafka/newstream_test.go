package kafka

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

// TestWriterCollision: only streams of two different servers, both naming
// their shard in the key, may share a topic.
func TestWriterCollision(t *testing.T) {
	me := Config{Prefix: "p", Stream: "s@a:1", Layout: LayoutKey, Shard: "a_1", SourceID: "mysql:A"}
	for _, c := range []struct {
		w    writer
		cfg  Config
		want string // "" no collision, else a part of the reason
	}{
		{writer{stream: "s@b:1", placement: placement{Layout: "key", Shard: "b_1", SourceID: "mysql:B"}}, me, ""},
		{writer{stream: "s@a:1", placement: placement{Layout: "key", Shard: "a_1", SourceID: "mysql:A"}}, me, "an earlier run"},
		{writer{stream: "s@b:1", placement: placement{Layout: "key", Shard: "b_1", SourceID: "mysql:A"}}, me, "of the same server"},
		{writer{stream: "t@a:1", placement: placement{Layout: "key", Shard: "a_1", SourceID: "mysql:X"}}, me, "of the same server"},
		{writer{stream: "old", placement: placement{}}, me, "do not name their shard (--shard-layout none)"},
		{writer{stream: "s@b:1", placement: placement{Layout: "key", Shard: "b_1", SourceID: "mysql:B"}},
			Config{Prefix: "p", Stream: "one", Layout: LayoutNone, Shard: "c_1", SourceID: "mysql:C"}, "where this stream's would not"},
		{writer{stream: "orders", placement: placement{Layout: "none", Shard: "c_1", SourceID: "mariadb:h:1:1"}},
			Config{Prefix: "p", Stream: "Orders", Layout: LayoutNone, Shard: "c_1", SourceID: "mariadb:h:1:1"}, "only in case"},
	} {
		got := c.w.collision(c.cfg)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("writer %+v, stream %s (%s): %q, want %q", c.w, c.cfg.Stream, c.cfg.Layout, got, c.want)
		}
	}
	id := schema.TableID{Database: "db", Name: "t"}
	w := writer{stream: "x", placement: placement{Layout: "topic", Shard: "b_1"}, tables: map[schema.TableID]bool{id: true}}
	if !w.wrote("p", id, "p.b_1.db.t") || w.wrote("p", id, "p.db.t") || w.wrote("p", schema.TableID{Database: "db", Name: "u"}, "p.b_1.db.u") {
		t.Error("a topic-per-shard writer's topics")
	}
}
