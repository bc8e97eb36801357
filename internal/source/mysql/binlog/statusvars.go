package binlog

import "encoding/binary"

// Status variables of a Query event (MySQL's and MariaDB's log_event.h):
// code, then a value whose length the code determines.
const (
	qFlags2        = 0
	qSQLMode       = 1
	qCatalog       = 2 // length byte, name, NUL (servers before 5.0.4)
	qAutoIncrement = 3
	qCharset       = 4 // character_set_client, collation_connection, collation_server
	qTimeZone      = 5 // length byte, name
	qCatalogNZ     = 6 // length byte, name
	qLCTimeNames   = 7
	qCharsetDB     = 8
	qTableMap      = 9
)

// fixedStatusVar are the lengths of the fixed-size status variables that
// may precede qCharset.
var fixedStatusVar = map[byte]int{qFlags2: 4, qSQLMode: 8, qAutoIncrement: 4, qLCTimeNames: 2, qCharsetDB: 2, qTableMap: 8}

// clientCollation returns the collation id of the character_set_client of
// the session that wrote a Query event (the charset its statement's bytes
// are in), from the event's status variables; ok is false when they do not
// say. Servers write the variables in code order, so the walk stops at the
// first code it does not know.
func clientCollation(vars []byte) (id uint16, ok bool) {
	for i := 0; i < len(vars); {
		code := vars[i]
		i++
		switch code {
		case qCharset:
			if i+6 > len(vars) {
				return 0, false
			}
			return binary.LittleEndian.Uint16(vars[i:]), true
		case qCatalog, qTimeZone, qCatalogNZ:
			if i >= len(vars) {
				return 0, false
			}
			n := int(vars[i])
			i += 1 + n
			if code == qCatalog {
				i++ // its NUL
			}
		default:
			n, known := fixedStatusVar[code]
			if !known {
				return 0, false
			}
			i += n
		}
	}
	return 0, false
}
