package rowpolicy

import (
	"fmt"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// Filter is one table's --where condition, compiled against one version of
// the table.
type Filter struct {
	Table schema.TableID
	Cond  string // as the user wrote it
	sql   string // as sent to the source (the parsed text, re-printed)
	root  *node
	cols  []int // the columns the condition reads
}

// CompileFilter parses cond and checks it against t: unknown columns,
// syntax errors and constructs outside the subset are configuration errors
// (exit 2) naming the part to change.
func CompileFilter(t *schema.Table, cond string) (*Filter, error) {
	e, err := parser.ParseExpr(cond)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("--where %s=%s: syntax error: %v", t.TableID, cond, err))
	}
	c := &compiler{t: t}
	root, err := c.expr(e)
	if err == nil {
		err = boolean(root, e)
	}
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("--where %s=%s: %w", t.TableID, cond, err))
	}
	return &Filter{Table: t.TableID, Cond: cond, sql: sqlparser.String(e), root: root, cols: c.cols}, nil
}

// SQL is the condition as MySQL reads it, for a WHERE clause on the
// table (snapshot chunks, verify): the same tree the evaluator runs.
func (f *Filter) SQL() string { return f.sql }

// Match reports whether a row image (Table.Columns order) satisfies the
// condition: only TRUE matches, NULL and FALSE do not (WHERE's rule). An
// error is a value the evaluator cannot judge exactly; the caller stops.
func (f *Filter) Match(row []any) (bool, error) {
	v, err := f.root.eval(row)
	if err != nil {
		return false, fmt.Errorf("--where %s=%s: %w", f.Table, f.Cond, err)
	}
	return v.truth() == isTrue, nil
}

// same reports whether two images of a row agree on every column the
// condition reads, so that it gives both the same result: an UPDATE that
// leaves those columns alone is evaluated once. It may say false for equal
// values (pipeline.ValueEqual), never true for different ones.
func (f *Filter) same(a, b []any) bool {
	for _, i := range f.cols {
		if i >= len(a) || i >= len(b) || !pipeline.ValueEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
