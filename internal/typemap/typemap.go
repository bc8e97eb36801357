// Package typemap is the one place where a MySQL/MariaDB value becomes a
// PostgreSQL value. Snapshot (MySQL text protocol), binlog apply (go-mysql
// decoded row images) and verify all go through it, so the three can never
// disagree about what a value is. docs/types.md is the user-facing table.
package typemap

import (
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/schema"
)

// ZeroDatePolicy says what happens to MySQL zero and partial-zero dates
// ('0000-00-00', '2020-00-15', '0000-00-00 00:00:00'), which PostgreSQL cannot hold.
type ZeroDatePolicy string

const (
	// ZeroDateNull writes NULL into nullable columns and -infinity into NOT NULL
	// ones (-infinity is never a MySQL value, so it stays recognisable). Default.
	ZeroDateNull ZeroDatePolicy = "null"
	// ZeroDateInfinity always writes -infinity.
	ZeroDateInfinity ZeroDatePolicy = "-infinity"
	// ZeroDateError stops with an error naming the table, column and value.
	ZeroDateError ZeroDatePolicy = "error"
)

// NulPolicy says what happens to U+0000 inside text, which PostgreSQL rejects.
type NulPolicy string

const (
	NulStrip   NulPolicy = "strip"   // drop the NUL characters (default)
	NulReplace NulPolicy = "replace" // replace each with U+FFFD
	NulError   NulPolicy = "error"   // stop with an error naming table, column and row
)

// Options are the conversion policies, set from the command line.
type Options struct {
	ZeroDate ZeroDatePolicy
	Nul      NulPolicy
	// PostGIS is true when the target has the postgis extension; geometry
	// columns then become geometry, else bytea holding MySQL's SRID+WKB bytes.
	PostGIS bool
	// Charsets are the source server's conversion tables (LoadCharsets) for
	// text columns in 8-bit and CJK charsets. Without one, only the charsets
	// whose built-in table is known to match MariaDB's can be compiled.
	Charsets *Charsets
	// RawVector is true when the target stores MySQL 9's VECTOR as the
	// source does (a MySQL-family target, target.Capabilities.RawVector:
	// verify, and replication's schema changes): its bytes (packed
	// float32s) are compared as binary. PostgreSQL has no mapping for
	// VECTOR in sluice, so without it the column is refused.
	RawVector bool
	// SourceFlavor is the source server's "mariadb" or "mysql" ("" counts as
	// MySQL): where the two compute an expression differently (a DECIMAL
	// quotient's digits), the translated generated columns follow it.
	SourceFlavor string
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{ZeroDate: ZeroDateNull, Nul: NulStrip}
}

// Validate checks the policies, naming the command-line flags, so every
// command rejects a bad --zero-date or --nul-char the same way.
func (o Options) Validate() error {
	var errs []error
	switch o.ZeroDate {
	case ZeroDateNull, ZeroDateInfinity, ZeroDateError:
	default:
		errs = append(errs, fmt.Errorf("--zero-date %q: want null, -infinity or error", o.ZeroDate))
	}
	switch o.Nul {
	case NulStrip, NulReplace, NulError:
	default:
		errs = append(errs, fmt.Errorf("--nul-char %q: want strip, replace or error", o.Nul))
	}
	return errors.Join(errs...)
}

// Mapper compiles columns into converters under one set of policies and
// counts every value a policy changed.
type Mapper struct {
	opts    Options
	changes *Changes
}

// New returns a Mapper; changes may be shared by several mappers (workers).
func New(opts Options, changes *Changes) *Mapper {
	if changes == nil {
		changes = NewChanges()
	}
	return &Mapper{opts: opts, changes: changes}
}

// Options returns the policies this mapper applies.
func (m *Mapper) Options() Options { return m.opts }

// Changes returns the counter of policy-changed values.
func (m *Mapper) Changes() *Changes { return m.changes }

// TableConv converts whole rows of one table (one schema version).
type TableConv struct {
	Table   *schema.Table
	Columns []*ColumnConv // same order as Table.Columns
}

// ColumnConv converts the values of one column. Its methods are safe for
// concurrent use. A nil input is SQL NULL and yields nil.
type ColumnConv struct {
	Column schema.Column
	// PGType is the PostgreSQL column type, as written in CREATE TABLE.
	PGType string
	// Kind groups types that convert alike; verify uses it to pick a normalisation.
	Kind Kind

	fromText   func(b []byte) (any, error)
	fromBinlog func(v any) (any, error)
	textBytes  func(b []byte) ([]byte, error) // text columns only
	textInt    func(b []byte) (int64, error)  // integer columns only
}

// IntFromText converts a text-protocol value of an integer column (the
// columns FromText gives int16, int32 or int64 for) as FromText does, range
// check included, without boxing it in an interface. ok is false for
// columns of other kinds. b must not be nil (NULL).
func (c *ColumnConv) IntFromText(b []byte) (n int64, ok bool, err error) {
	if c.textInt == nil {
		return 0, false, nil
	}
	n, err = c.textInt(b)
	return n, true, err
}

// TextBytes converts a text-protocol value of a text column (KindText) as
// FromText does, but returns the UTF-8 bytes of the string FromText would
// return, aliasing b when the value needs no change. For the snapshot's
// COPY, which encodes the bytes before the driver reuses b: it saves a
// string allocation per value. ok is false for columns of other kinds; nil
// b (NULL) gives nil.
func (c *ColumnConv) TextBytes(b []byte) (out []byte, ok bool, err error) {
	if c.textBytes == nil {
		return nil, false, nil
	}
	if b == nil {
		return nil, true, nil
	}
	out, err = c.textBytes(b)
	return out, true, err
}

// FromText converts a value as the MySQL text protocol returns it for the
// column selected with SelectExpr (what database/sql with go-sql-driver/mysql
// yields as []byte, connection charset utf8mb4, session time_zone '+00:00';
// text in other charsets arrives as its raw bytes) into a value pgx encodes
// for PGType. The result never aliases b, so b may be a reused sql.RawBytes.
func (c *ColumnConv) FromText(b []byte) (any, error) {
	if b == nil {
		return nil, nil
	}
	return c.fromText(b)
}

// FromBinlog converts a value as go-mysql's replication package decodes it
// from a row event (ParseTime=false, TimestampStringLocation=UTC, decimals as
// strings) into the same value FromText gives for the same data. The result
// never aliases v (go-mysql's values may point into the event buffer).
func (c *ColumnConv) FromBinlog(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return c.fromBinlog(v)
}

// SourceSessionTimeZone is the time_zone sluice sets on its MySQL sessions so
// that TIMESTAMP values read as text are UTC, the same instant the binlog carries.
const SourceSessionTimeZone = "+00:00"
