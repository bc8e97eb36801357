package postgres

import (
	"strings"
	"testing"
)

func TestCascadeStatements(t *testing.T) {
	for _, c := range []struct {
		cols []string
		rows int
		want string
	}{
		{[]string{"pid"}, 1, `"pid" IN ($1)`},
		{[]string{"pid"}, 3, `"pid" IN ($1, $2, $3)`},
		{[]string{"a", "b"}, 2, `("a", "b") IN (($1, $2), ($3, $4))`},
	} {
		if got := inList(c.cols, c.rows); got != c.want {
			t.Errorf("inList(%v, %d) = %s, want %s", c.cols, c.rows, got, c.want)
		}
	}
	for _, c := range []struct{ rows, cols, want int }{{1, 1, 1}, {3, 1, 1}, {100, 1, 64}, {1000, 1, 256}, {1000, 300, 64}} {
		if got := inChunk(c.rows, c.cols); got != c.want {
			t.Errorf("inChunk(%d, %d) = %d, want %d", c.rows, c.cols, got, c.want)
		}
	}
	if got := setTo([]string{"a", "b"}, 'n'); got != `"a" = NULL, "b" = NULL` {
		t.Errorf("setTo SET NULL = %s", got)
	}
	if got := setTo([]string{"a"}, 'd'); got != `"a" = DEFAULT` {
		t.Errorf("setTo SET DEFAULT = %s", got)
	}
	acts := []fkAction{{parentCols: []string{"id"}}, {parentCols: []string{"code", "id"}}}
	if got := strings.Join(refColumns(acts), ","); got != "id,code" {
		t.Errorf("refColumns = %s, want id,code", got)
	}
	if got := returning([]string{"id", "code"}); got != ` RETURNING "id", "code"` {
		t.Errorf("returning = %s", got)
	}
	if !overlaps([]string{"a", "b"}, []string{"c", "b"}) || overlaps([]string{"a"}, []string{"b"}) {
		t.Error("overlaps")
	}
	if vals, ok := (refRow{"a": 1, "b": nil}).pick([]string{"a", "b"}); ok || vals != nil {
		t.Errorf("a NULL part references nothing: %v %v", vals, ok)
	}
}
