package kafka

import (
	"encoding/base64"
	"math/big"
	"testing"
	"time"
)

// Connect's Decimal is Java's BigInteger.toByteArray of the unscaled value.
func TestDecimalBytes(t *testing.T) {
	for _, c := range []struct {
		digits      string
		exp, scale  int
		wantBase64  string
		description string
	}{
		{"0", 0, 2, "AA==", "zero is one 0x00 byte"},
		{"150", -2, 2, "AJY=", "1.50 at scale 2: 150 = 0x0096 (a leading 0 keeps it positive)"},
		{"-99999", -2, 2, "/nlh", "-999.99: 0xFE7961"},
		{"-1", 0, 0, "/w==", "-1 is 0xFF"},
		{"-128", 0, 0, "gA==", "-128 is 0x80"},
		{"-129", 0, 0, "/38=", "-129 is 0xFF7F"},
		{"15", -1, 3, "Bdw=", "1.5 at scale 3: 1500 = 0x05DC"},
	} {
		i, _ := new(big.Int).SetString(c.digits, 10)
		b, err := decimalBytes(i, c.exp, c.scale)
		if err != nil {
			t.Fatal(err)
		}
		if got := base64.StdEncoding.EncodeToString(b); got != c.wantBase64 {
			t.Errorf("%s: got %s, want %s", c.description, got, c.wantBase64)
		}
	}
	if _, err := decimalBytes(big.NewInt(1234), -3, 2); err == nil {
		t.Error("1.234 at scale 2 must be refused, not rounded")
	}
}

func TestZonedTimestamp(t *testing.T) {
	ts := time.Date(2020, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	for fsp, want := range map[int]string{0: "2020-01-02T03:04:05Z", 3: "2020-01-02T03:04:05.600Z", 6: "2020-01-02T03:04:05.600000Z"} {
		if got := zonedTimestamp(ts, fsp); got != want {
			t.Errorf("fsp %d: %s, want %s", fsp, got, want)
		}
	}
}

func TestFloorDiv(t *testing.T) {
	if floorDiv(-1, 86400) != -1 || floorDiv(86399, 86400) != 0 || floorDiv(-86400, 86400) != -1 {
		t.Error("floorDiv rounds towards zero")
	}
}
