package mysqlstate

import (
	"encoding/json"
	"strings"
	"time"
)

// InsertAppliedText is InsertApplied's statement with its values as
// literals (lit quotes a string for the caller's session), for a sink that
// sends it in one round trip with the rows of its transaction.
func InsertAppliedText(stream, lastKey string, endKeys []string, startKey string, lit func(string) string) (string, error) {
	ends, err := json.Marshal(endKeys)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("INSERT INTO sluice.applied (stream, last_key, ends, start_key, recorded_at) VALUES (")
	for i, v := range []string{stream, lastKey, string(ends), startKey, time.Now().UTC().Format("2006-01-02 15:04:05.999999")} {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(lit(v))
	}
	b.WriteByte(')')
	return b.String(), nil
}
