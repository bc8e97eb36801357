package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// litMode is how a value read from the source is written back as a SQL
// literal, so that the target stores the source's bytes.
type litMode uint8

const (
	// litBytes: a binary string literal. The target session's charset is
	// binary, so the bytes reach the column without conversion: text in
	// its own charset (read with CAST AS BINARY), binary, and the text form
	// of numbers, dates and times the server parses back to the same value.
	litBytes litMode = iota
	// litNumber: a bare integer: integers, and ENUM, SET and BIT read as
	// their number (col+0), which a number literal stores exactly (the
	// label of an invalid ENUM value '' or a BIT's bytes would not).
	litNumber
	// litJSON: a utf8mb4 string: MySQL's JSON type refuses binary strings.
	litJSON
	// litText: a utf8mb4 string, for MariaDB's UUID, INET4 and INET6, which
	// read a binary string as their binary form, not as the text read.
	litText
)

// mySelect is how a column is read for a MySQL target and how its value is
// written there.
func mySelect(c schema.Column) (string, litMode) {
	q := schema.QuoteMySQL(c.Name)
	if c.IsJSON {
		return q, litJSON // utf8mb4 text on both flavors (MySQL's binary JSON prints as text)
	}
	switch strings.ToLower(c.DataType) {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		// The stored bytes, not converted to the connection's utf8mb4.
		return "CAST(" + q + " AS BINARY)", litBytes
	case "enum", "set", "bit":
		return q + " + 0", litNumber
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return q, litNumber
	case "year":
		// As a number: the string '0000' would be the year 2000.
		return q, litNumber
	case "uuid", "inet4", "inet6":
		return q, litText
	case "float":
		// The text protocol prints FLOAT with 6 digits; as DOUBLE it is the
		// exact value, which the target rounds back to the same FLOAT.
		return "CAST(" + q + " AS DOUBLE)", litBytes
	case "double", "real":
		if strings.Contains(c.ColumnType, "(") {
			// DOUBLE(M,D) prints rounded to D decimals.
			return "CAST(" + q + " AS DOUBLE)", litBytes
		}
	}
	return q, litBytes
}

// inserter builds multi-row INSERT statements of one chunk, each at most
// limit bytes (one row larger than that goes alone), and runs them.
type inserter struct {
	head  string
	modes []litMode
	// checks refuse values per column (myTable.checks); nil for none.
	checks []func(v []byte) error
	limit  int
	buf    []byte
	n      int // rows in buf
	exec   func(stmt string) error
}

func (in *inserter) add(raw [][]byte) error {
	if in.n == 0 {
		in.buf = append(in.buf[:0], in.head...)
	}
	mark := len(in.buf)
	if in.n > 0 {
		in.buf = append(in.buf, ',')
	}
	in.buf = append(in.buf, '(')
	for i, v := range raw {
		if i > 0 {
			in.buf = append(in.buf, ',')
		}
		if v != nil && in.checks != nil && in.checks[i] != nil {
			if err := in.checks[i](v); err != nil {
				return err
			}
		}
		in.buf = appendLiteral(in.buf, v, in.modes[i])
	}
	in.buf = append(in.buf, ')')
	if in.n > 0 && len(in.buf) > in.limit {
		// This row does not fit: send the others, then start over with it.
		row := append([]byte(nil), in.buf[mark+1:]...)
		in.buf = in.buf[:mark]
		if err := in.flush(); err != nil {
			return err
		}
		in.buf = append(append(in.buf[:0], in.head...), row...)
	}
	in.n++
	if len(in.buf) >= in.limit {
		return in.flush()
	}
	return nil
}

func (in *inserter) flush() error {
	if in.n == 0 {
		return nil
	}
	err := in.exec(string(in.buf))
	in.buf, in.n = in.buf[:0], 0
	if cap(in.buf) > 4*in.limit {
		in.buf = nil // one huge row: do not keep its buffer
	}
	return err
}

// appendLiteral writes one value as a literal; nil is NULL.
func appendLiteral(b, v []byte, m litMode) []byte {
	if v == nil {
		return append(b, "NULL"...)
	}
	switch m {
	case litNumber:
		if isInteger(v) {
			return append(b, v...)
		}
	case litJSON, litText:
		b = append(b, "CONVERT("...)
		b = appendQuoted(b, v)
		return append(b, " USING utf8mb4)"...)
	}
	return appendQuoted(b, v)
}

// appendQuoted writes _binary'...' (the escapes: Quote).
func appendQuoted(b, v []byte) []byte {
	return Quote(append(b, "_binary"...), v)
}

func isInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// mySessionSetup is what every target session runs before it writes: the
// binary charset (the bytes read are written unconverted), a sql_mode that
// takes what the source stored (zero dates, an explicit 0 in an
// AUTO_INCREMENT column, no NO_BACKSLASH_ESCAPES for appendQuoted), UTC for
// TIMESTAMP values read in UTC, and no foreign key or unique checks during
// the load (the source's data already satisfied them; tables load in any
// order). A session may sit idle for the whole copy (the stream's lock):
// wait_timeout at its maximum, a year.
var mySessionSetup = []string{
	"SET NAMES binary",
	"SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'",
	"SET SESSION time_zone = '+00:00'",
	"SET SESSION foreign_key_checks = 0, unique_checks = 0",
	"SET SESSION wait_timeout = 31536000",
}

// withUniqueChecks runs fn, state writes with INSERT … ON DUPLICATE KEY
// UPDATE, with unique checks on: the load sessions turn them off, and
// MyRocks (the state tables' engine under --target-engine ROCKSDB) refuses
// ON DUPLICATE KEY UPDATE without them (error 4058). A session variable,
// so it changes inside the transaction and is put back for the next chunk.
func withUniqueChecks(ctx context.Context, tx *sql.Tx, fn func() error) error {
	if _, err := tx.ExecContext(ctx, "SET SESSION unique_checks = 1"); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	if err := fn(); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "SET SESSION unique_checks = 0"); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	return nil
}

// mariaDBSessionSetup: CHECK constraints (MariaDB checks them, e.g. a JSON
// column's json_valid) are the source's, which its rows already passed.
const mariaDBSessionSetup = "SET SESSION check_constraint_checks = 0"

// setupConnector runs the session setup on every new connection of the
// target pool, so that any of its connections writes the same way.
type setupConnector struct {
	driver.Connector
	stmts []string
}

func (c setupConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := dc.(driver.ExecerContext)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("target: the driver cannot run the session setup")
	}
	for _, s := range c.stmts {
		if _, err := ex.ExecContext(ctx, s, nil); err != nil {
			dc.Close()
			return nil, fmt.Errorf("target: session setup %q: %w", s, err)
		}
	}
	return dc, nil
}
