package ddl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/schema"
)

// maxIdent is PostgreSQL's identifier limit in bytes (NAMEDATALEN-1).
const maxIdent = 63

// shorten returns name unchanged when it fits in 63 bytes, else a prefix cut
// at a character boundary plus "_" and 8 hex digits of the name's SHA-256:
// deterministic, so the snapshot and later DDL replication agree on it.
func shorten(name string) string {
	if len(name) <= maxIdent {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	cut := maxIdent - len(suffix)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + suffix
}

// IndexName is the PostgreSQL name of a MySQL index: index names are
// per-table in MySQL but per-schema in PostgreSQL, so the table name is
// prepended.
func IndexName(table, index string) string { return shorten(table + "_" + index) }

// PrimaryKeyName is the name of a table's primary key constraint (and index).
func PrimaryKeyName(table string) string { return shorten(table + "_pkey") }

// ConstraintName is the PostgreSQL name of a MySQL FOREIGN KEY or CHECK
// constraint (per-table in PostgreSQL, so the MySQL name is kept).
func ConstraintName(name string) string { return shorten(name) }

// EnumCheckName names the CHECK constraint that holds an ENUM column to its members.
func EnumCheckName(column string) string { return shorten(column + "_enum_check") }

// SetCheckName names the CHECK constraint that holds a SET column to its members.
func SetCheckName(column string) string { return shorten(column + "_set_check") }

// OnUpdateFunction is the trigger function for a table's ON UPDATE
// CURRENT_TIMESTAMP columns (schema-wide name, so prefixed with the table).
func OnUpdateFunction(table string) string { return shorten(table + "_on_update") }

// OnUpdateTrigger is the name of the trigger that calls OnUpdateFunction.
const OnUpdateTrigger = "sluice_on_update"

// SequenceName is the sequence behind an AUTO_INCREMENT column whose
// PostgreSQL type cannot be an identity (numeric(20,0) for BIGINT UNSIGNED).
func SequenceName(table, column string) string { return shorten(table + "_" + column + "_seq") }

func q(name string) string { return schema.QuoteIdent(name) }

// pgSystemColumns are names PostgreSQL reserves in every table.
var pgSystemColumns = map[string]bool{"tableoid": true, "xmin": true, "cmin": true, "xmax": true, "cmax": true, "ctid": true}

// checkName refuses target names PostgreSQL cannot hold as they are: longer
// than 63 bytes (PostgreSQL would silently cut them, and writers address
// columns by name) or, for columns, a system column name. src is the
// source's db.table[.column], which --rename takes.
func checkName(kind, name, src string) error {
	if len(name) > maxIdent {
		return fmt.Errorf("%s name %q is %d bytes; PostgreSQL keeps only %d: give it a shorter name with --rename %s=new_name",
			kind, name, len(name), maxIdent, src)
	}
	if kind == "column" && pgSystemColumns[strings.ToLower(name)] {
		return fmt.Errorf("column name %q is a PostgreSQL system column name: give it another name with --rename %s=new_name", name, src)
	}
	return nil
}

// excludedIn returns the first column of ix that --exclude-columns leaves
// out ("" if none): such an index cannot exist on the target.
func excludedIn(t *schema.Table, ix schema.Index, n schema.Naming) string {
	for _, col := range n.ExcludedColumns(t.TableID) {
		for _, ic := range ix.Columns {
			if strings.EqualFold(ic.Name, col) || (ic.Expression != "" && schema.ExprMentions(ic.Expression, col)) {
				return col
			}
		}
	}
	return ""
}

// excludedMentioned returns the first excluded column an expression of t
// refers to ("" if none).
func excludedMentioned(t *schema.Table, expr string, n schema.Naming) string {
	for _, col := range n.ExcludedColumns(t.TableID) {
		if schema.ExprMentions(expr, col) {
			return col
		}
	}
	return ""
}

// checkName is checkName for the statement's target: a target that replays
// the source's statement (Translator.ReplayTarget) takes the source's names.
func (x *translation) checkName(kind, name, src string) error {
	if x.tr.ReplayTarget {
		return nil
	}
	return checkName(kind, name, src)
}
