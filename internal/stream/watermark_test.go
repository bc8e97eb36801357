package stream

import (
	"testing"
	"time"
)

func TestParseUnix(t *testing.T) {
	for in, want := range map[string]time.Time{
		"1700000000.123456": time.Unix(1700000000, 123456000),
		"1700000000.5":      time.Unix(1700000000, 500000000),
		"1700000000":        time.Unix(1700000000, 0),
	} {
		got, err := parseUnix(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseUnix(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseUnix("x"); err == nil {
		t.Error("parseUnix(x): no error")
	}
}

func TestMergedTopicCollides(t *testing.T) {
	for topic, want := range map[string]bool{
		"shop": true, "shop.transaction": true, "shop.db.t": true, "shop.sluice.offsets": true,
		"shop.merged": false, "global": false, "shopx.a.b": false,
	} {
		if got := collides("shop", topic); got != want {
			t.Errorf("collides(shop, %s) = %v", topic, got)
		}
	}
}
