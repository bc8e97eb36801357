package mysqlstate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// RowPolicies are the row filters and column masks every stream of a
// MySQL target recorded (stream → rowpolicy.Policy.Describe lines): a
// replicator's in its owner settings (the line row-policy=, its entries
// joined by commas, so read back as fragments), a snapshot's in its run's
// fingerprint. None without sluice's tables.
func RowPolicies(ctx context.Context, q Querier) (map[string][]string, error) {
	out := map[string][]string{}
	owners, err := streamTexts(ctx, q, `SELECT stream, settings FROM sluice.stream_owner`)
	if err != nil {
		return nil, err
	}
	for stream, settings := range owners {
		for _, s := range strings.Split(settings, "\n") {
			if p, ok := strings.CutPrefix(s, "row-policy="); ok && p != "" {
				out[stream] = append(out[stream], strings.Split(p, ",")...)
			}
		}
	}
	runs, err := streamTexts(ctx, q, `SELECT stream, CAST(fingerprint AS CHAR) FROM sluice.snapshot_run`)
	if err != nil {
		return nil, err
	}
	for stream, fingerprint := range runs {
		var fp struct {
			RowPolicy []string `json:"row_policy"`
		}
		if json.Unmarshal([]byte(fingerprint), &fp) == nil && len(fp.RowPolicy) > 0 {
			out[stream] = append(out[stream], fp.RowPolicy...)
		}
	}
	return out, nil
}

// streamTexts reads (stream, text) pairs; none when the table was never
// created.
func streamTexts(ctx context.Context, q Querier, query string) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, query)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the streams' row policies: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var stream string
		var text []byte
		if err := rows.Scan(&stream, &text); err != nil {
			return nil, fmt.Errorf("read the streams' row policies: %w", err)
		}
		out[stream] = string(text)
	}
	return out, rows.Err()
}
