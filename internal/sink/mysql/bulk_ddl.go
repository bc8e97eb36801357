package mysql

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// myTable is a table's plan on a MySQL target: the source's own CREATE
// TABLE, re-targeted.
type myTable struct {
	db, name string // target database and table
	qname    string // `db`.`name`
	// create is the CREATE TABLE run on the target (qualified name);
	// def is the definition as the target's SHOW CREATE TABLE prints it,
	// without AUTO_INCREMENT=, to compare with an existing table.
	create, def string
	warnings    []string
	// transactional: the table's engine on the target has transactions, so
	// a chunk's rows commit with its done row and an interrupted chunk
	// leaves nothing behind; otherwise a chunk's range is emptied first.
	transactional bool
	lits          []litMode // per copied column: how a value is written
	// checks, per copied column (nil entries, or nil for none): a value the target refuses
	// to hold (CheckTimestamp on a target whose TIMESTAMP ends at 2038).
	checks     []func(v []byte) error
	insertHead string // INSERT INTO `db`.`t` (`c`, ...) VALUES

	// this run's copy time and bytes (the report's MB/s per table)
	mu      sync.Mutex
	seconds float64
	bytes   int64
}

var (
	engineRe  = regexp.MustCompile(`(?i)\bENGINE\s*=\s*[A-Za-z0-9_]+`)
	autoIncRe = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)
)

// retarget turns a source table's (src, for messages) SHOW CREATE TABLE (as printed with an empty sql_mode,
// so with backquotes) into the plan of the target table db.name: ENGINE=
// rewritten when engine is set; with ROCKSDB, foreign keys are left out
// (MyRocks has none: a warning names each; a foreign key whose action the
// binlog does not carry was refused before, CascadeRefusal) and
// FULLTEXT/SPATIAL indexes are
// refused (MyRocks has neither, and dropping an index silently would change
// what the target answers). AUTO_INCREMENT= is kept.
func retarget(showCreate, src, db, name, engine string) (*myTable, error) {
	prefix := "CREATE TABLE " + schema.QuoteMySQL(name) + " ("
	if !strings.HasPrefix(showCreate, prefix) {
		return nil, fmt.Errorf("unexpected SHOW CREATE TABLE output for %s: %.80q", name, showCreate)
	}
	lines := strings.Split(showCreate, "\n")
	end := -1
	for i := len(lines) - 1; i > 0; i-- {
		if strings.HasPrefix(lines[i], ")") {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, fmt.Errorf("unexpected SHOW CREATE TABLE output for %s: no closing parenthesis", name)
	}
	rocks := strings.EqualFold(engine, "rocksdb")
	t := &myTable{db: db, name: name, qname: schema.QuoteMySQL(db) + "." + schema.QuoteMySQL(name)}
	var body, refused []string
	for _, l := range lines[1:end] {
		d := strings.TrimSuffix(strings.TrimSpace(l), ",")
		switch {
		case rocks && strings.HasPrefix(d, "CONSTRAINT ") && strings.Contains(d, " FOREIGN KEY "):
			// Those with an action the binlog does not carry are refused
			// before (CascadeRefusal).
			t.warnings = append(t.warnings, fmt.Sprintf("%s: foreign key left out (ROCKSDB has no foreign keys; the source "+
				"enforces it and the binlog carries every row it lets change): %s", src, d))
			continue
		case rocks && (strings.HasPrefix(d, "FULLTEXT ") || strings.HasPrefix(d, "SPATIAL ")):
			refused = append(refused, d)
		}
		body = append(body, "  "+d)
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("table %s has indexes ROCKSDB does not support: %s; exclude the table (--exclude) or use another --target-engine",
			src, strings.Join(refused, "; "))
	}
	tail := strings.Join(lines[end:], "\n")
	if engine != "" {
		tail = engineRe.ReplaceAllString(tail, "ENGINE="+engine)
	}
	rest := strings.TrimPrefix(lines[0], prefix)
	def := prefix + rest + "\n" + strings.Join(body, ",\n") + "\n" + tail
	t.def = normalizeDef(def)
	t.create = "CREATE TABLE " + t.qname + " (" + rest + "\n" + strings.Join(body, ",\n") + "\n" + tail
	return t, nil
}

// normalizeDef drops what changes with the data from a SHOW CREATE TABLE:
// the next AUTO_INCREMENT value.
func normalizeDef(s string) string { return autoIncRe.ReplaceAllString(strings.TrimSpace(s), "") }

// firstDifference names the first line where two definitions differ.
func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var a, b string
		if i < len(h) {
			a = strings.TrimSpace(h[i])
		}
		if i < len(w) {
			b = strings.TrimSpace(w[i])
		}
		if a != b {
			return fmt.Sprintf("the target has %q where the source has %q", a, b)
		}
	}
	return ""
}

// checkEngineTypes refuses columns the target engine cannot store (MyRocks
// has no spatial types and no generated columns).
func checkEngineTypes(t *schema.Table, engine string) error {
	if !strings.EqualFold(engine, "rocksdb") {
		return nil
	}
	var bad []string
	for _, c := range t.Columns {
		if c.GenerationExpr != "" {
			bad = append(bad, c.Name+" (generated)")
			continue
		}
		if c.IsSpatial() {
			bad = append(bad, c.Name+" "+c.ColumnType)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("table %s has columns ROCKSDB cannot store: %s; exclude the table (--exclude) or use another --target-engine",
			t.TableID, strings.Join(bad, ", "))
	}
	return nil
}

func (t *myTable) TargetName() string     { return t.qname }
func (t *myTable) PlanWarnings() []string { return t.warnings }
func (t *myTable) DryRunDDL() []string    { return []string{t.create} }

// FillReport adds this run's copy rate of the table.
func (t *myTable) FillReport(tr *bulkrun.TableReport) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tr.Seconds = t.seconds
	if t.seconds > 0 {
		tr.MBPerSec = float64(t.bytes) / 1e6 / t.seconds
	}
}
