package mysql8compat

import (
	"context"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestBinaryJSONIntoPostgresJSONB sends every corpus document, as typemap
// hands it to pgx, into PostgreSQL's jsonb and reads jsonb's text back:
// PostgreSQL must accept each one and keep the value sluice sent (jsonb
// stores numbers as numeric, so a differently spelled double is a
// different value there).
func TestBinaryJSONIntoPostgresJSONB(t *testing.T) {
	env := testenv.Get(t)
	pool := env.PG(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	corpus := jsonCorpus()
	docs := make([][]byte, len(corpus))
	for i, c := range corpus {
		docs[i] = jsonb(c.doc)
	}
	conv := jsonColumn(t)
	for _, mode := range []parserOptions{{}, {renderJSONAsMySQLText: true}} {
		values := decodeJSONDocs(t, mode, docs)
		for i, c := range corpus {
			sent, err := conv.FromBinlog(values[i])
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var stored string
			if err := pool.QueryRow(ctx, "SELECT $1::jsonb::text", sent).Scan(&stored); err != nil {
				t.Errorf("%+v %s: PostgreSQL refused the document: %v", mode, c.name, err)
				continue
			}
			if got, want := canonical(t, "jsonb text", stored), canonical(t, "sent", sent.(string)); got != want {
				t.Errorf("%+v %s: jsonb holds\n%.300s\nsluice sent\n%.300s", mode, c.name, got, want)
			}
		}
	}
}
