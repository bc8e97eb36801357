package reverse

import (
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// DuplicateError is MySQL refusing a row of the way back for a unique key:
// PostgreSQL held both rows because it compares text byte for byte, while
// the MySQL column's collation sees the two values as equal (case, accents,
// trailing spaces). The error says so; nothing of the transaction is applied.
type DuplicateError struct{ Err error }

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%v: MySQL's unique key holds a row equal to this one under its collation (case, accents or trailing spaces "+
		"are ignored there; PostgreSQL compares text byte for byte and held both); nothing of this PostgreSQL transaction was applied. "+
		"Make the values differ for MySQL (or remove one) on both sides, on MySQL first, then start the stream again; "+
		"a unique index on PostgreSQL that compares as MySQL does keeps the application from writing such pairs (docs/reverse.md)", e.Err)
}

func (e *DuplicateError) Unwrap() error { return e.Err }

// explainDuplicate wraps a MySQL duplicate key refusal (1062) in a DuplicateError.
func explainDuplicate(err error) error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1062 {
		return &DuplicateError{Err: err}
	}
	return err
}
