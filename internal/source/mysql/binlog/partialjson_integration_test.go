package binlog

import (
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestPartialJSONUpdateStops: on MySQL a session with
// binlog_row_value_options=PARTIAL_JSON logs JSON_SET/JSON_REPLACE/JSON_REMOVE
// updates as diffs. go-mysql v1.16 decodes only the first diff of such an
// update (a JSON_SET of two paths arrives as one), so applying them would lose
// changes silently: the stream stops at the event, naming the table, column,
// position and the fix, and rows before it were delivered.
func TestPartialJSONUpdateStops(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	f := newFixtureOn(t, env, "bl_pjson", "CREATE TABLE j (id INT PRIMARY KEY, doc JSON)")
	f.exec(`INSERT INTO j VALUES (1, '{"a": 1, "b": [1, 2, 3], "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}')`)
	r := startStream(t, f.config(f.position(), ignoreOthers(f.db)))
	conn, err := f.my.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"UPDATE j SET doc = JSON_SET(doc, '$.a', 2) WHERE id = 1", // a full image: this session logs whole documents
		"SET SESSION binlog_row_value_options = 'PARTIAL_JSON'",
		"UPDATE j SET doc = JSON_SET(doc, '$.a', 3, '$.b[1]', 20) WHERE id = 1",
	} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	full := r.next(10 * time.Second)
	if len(full.Changes) != 1 || !strings.Contains(full.Changes[0].After[1].(string), `"a": 2`) &&
		!strings.Contains(full.Changes[0].After[1].(string), `"a":2`) {
		t.Fatalf("full-image update: %+v", full.Changes)
	}
	err = r.failure(10 * time.Second)
	for _, want := range []string{"column doc (json)", "partial JSON update", "binlog_row_value_options", "binlog."} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}
