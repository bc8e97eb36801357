package rowpolicy

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

func TestCovers(t *testing.T) {
	lines := []string{"mask key fingerprint ab12", "mask shop.*.email=hash", "where crm.orders: tenant_id IN (1, 2)",
		"mask crm.people.phone=keep-last:4"}
	for _, c := range []struct {
		db, table string
		want      bool
	}{
		{"shop", "anything", true}, {"SHOP", "x", true}, {"crm", "orders", true}, {"crm", "Orders", true},
		{"crm", "people", true}, {"crm", "other", false}, {"hr", "orders", false},
	} {
		if got := Covers(lines, schema.TableID{Database: c.db, Name: c.table}); got != c.want {
			t.Errorf("Covers(%s.%s) = %v, want %v", c.db, c.table, got, c.want)
		}
	}
	// The fragments of lines a state store joined with commas.
	joined := []string{"where crm.orders: tenant_id IN (1", " 2)", "mask shop.t.c=null"}
	if !Covers(joined, schema.TableID{Database: "crm", Name: "orders"}) || !Covers(joined, schema.TableID{Database: "shop", Name: "t"}) ||
		Covers(joined, schema.TableID{Database: "shop", Name: "u"}) {
		t.Error("joined fragments read wrong")
	}
	if Covers(nil, schema.TableID{Database: "shop", Name: "t"}) || Covers([]string{"*.*.c=hash"}, schema.TableID{Database: "a", Name: "b"}) {
		t.Error("covers without a policy line")
	}
	if !Covers([]string{"mask *.*.email=hash"}, schema.TableID{Database: "a", Name: "b"}) {
		t.Error("a mask on every database does not cover")
	}
}
