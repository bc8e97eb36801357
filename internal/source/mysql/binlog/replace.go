package binlog

import (
	"bytes"
	"reflect"

	"github.com/sluice-db/sluice/internal/model"
)

// MySQL 9 runs foreign keys in the SQL layer (innodb_native_foreign_keys=OFF):
// the rows a foreign key action changes are logged as row events of their own,
// before the parent's. But a REPLACE that finds its row logs a DELETE and an
// INSERT of the parent and runs no ON DELETE action: the children keep
// pointing at the key, which exists again. A target applying that DELETE
// would run its own foreign key's action (SET NULL, CASCADE) on rows the
// source left alone. So on such a source a row deleted and inserted again
// with the same primary key by the next row event becomes one UPDATE that
// keeps the key, which fires no action on any target, exactly what the
// source did. Any other DELETE's actions are already in the binlog, and a
// target repeating them finds nothing left to change.
//
// On MariaDB and MySQL before 9 InnoDB runs the actions (REPLACE's too) and
// does not log them, so the target's foreign keys must run them: no fold.
// Nor with Config.KeepReplace (sluice stream): Kafka events are the row
// changes as logged, a delete and a create, as Debezium emits them.

// foldReplace folds next (the first change of a row event) into last (the
// last change buffered in the transaction) when last deletes the row next
// inserts again with the same primary key, and says whether it did.
func foldReplace(last, next *model.RowChange) bool {
	if last.Op != model.Delete || next.Op != model.Insert || last.Table != next.Table || last.Table == nil {
		return false
	}
	t := last.Table
	if len(t.PrimaryKey) == 0 {
		return false
	}
	for _, name := range t.PrimaryKey {
		i := t.ColumnIndex(name)
		if i < 0 || i >= len(last.Before) || i >= len(next.After) || !sameValue(last.Before[i], next.After[i]) {
			return false
		}
	}
	last.Op, last.After = model.Update, next.After
	return true
}

// sameValue compares two values go-mysql decoded for one column, exactly.
func sameValue(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}
