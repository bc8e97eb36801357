package binlog

import "encoding/binary"

// Status variables of a Query event (MySQL's and MariaDB's log_event.h):
// code, then a value whose length the code determines. Not always in code order.
const (
	qFlags2          = 0
	qSQLMode         = 1
	qCatalog         = 2 // length byte, name, NUL (servers before 5.0.4)
	qAutoIncrement   = 3
	qCharset         = 4 // character_set_client, collation_connection, collation_server
	qTimeZone        = 5 // length byte, name
	qCatalogNZ       = 6 // length byte, name
	qLCTimeNames     = 7
	qCharsetDB       = 8
	qTableMap        = 9
	qMasterData      = 10
	qInvoker         = 11 // user and host, each a length byte and the name
	qUpdatedDBNames  = 12 // a count, then NUL-terminated names (254: none listed)
	qMicroseconds    = 13 // MySQL: the statement time's microseconds
	qExplicitDefTS   = 16
	qDDLWithXID      = 17
	qDefaultUTF8MB4  = 18
	qRequirePK       = 19
	qTableEncryption = 20
	qHRNow           = 128 // MariaDB: the statement time's microseconds
	qXID             = 129
	qGTIDFlags3      = 130
	// qCharsetCollations: MariaDB 11.2+'s character_set_collations, written when the
	// statement names a charset without a collation: a count byte, then per charset its
	// default collation id and the id it maps to (2 bytes each). MariaDB writes it after
	// Q_CATALOG_NZ, before Q_CHARSET: the walk stopped there, and an 11.8 DDL had no client
	// charset (its non-ASCII text refused).
	qCharsetCollations = 131
)

// fixedStatusVar are the lengths of the fixed-size status variables.
var fixedStatusVar = map[byte]int{qFlags2: 4, qSQLMode: 8, qAutoIncrement: 4, qCharset: 6, qLCTimeNames: 2, qCharsetDB: 2,
	qTableMap: 8, qMasterData: 4, qMicroseconds: 3, qExplicitDefTS: 1, qDDLWithXID: 8, qDefaultUTF8MB4: 2, qRequirePK: 1,
	qTableEncryption: 1, qHRNow: 3, qXID: 8, qGTIDFlags3: 1}

// statusVar returns the value of one status variable of a Query event;
// ok is false when the event does not have it. Servers write the variables
// mostly in code order (MariaDB's 131 comes before 4); the walk stops at the first code it
// does not know.
func statusVar(vars []byte, want byte) (val []byte, ok bool) {
	for i := 0; i < len(vars); {
		code := vars[i]
		i++
		start := i
		switch code {
		case qCatalog, qTimeZone, qCatalogNZ:
			if i >= len(vars) {
				return nil, false
			}
			i += 1 + int(vars[i])
			if code == qCatalog {
				i++ // its NUL
			}
		case qCharsetCollations:
			if i >= len(vars) {
				return nil, false
			}
			i += 1 + 4*int(vars[i])
		case qInvoker:
			for k := 0; k < 2 && i < len(vars); k++ {
				i += 1 + int(vars[i])
			}
		case qUpdatedDBNames:
			if i >= len(vars) {
				return nil, false
			}
			count := int(vars[i])
			i++
			for k := 0; count != 254 && k < count && i < len(vars); k++ {
				for i < len(vars) && vars[i] != 0 {
					i++
				}
				i++ // the NUL
			}
		default:
			n, known := fixedStatusVar[code]
			if !known {
				return nil, false
			}
			i += n
		}
		if i > len(vars) {
			return nil, false
		}
		if code == want {
			return vars[start:i], true
		}
	}
	return nil, false
}

// clientCollation returns the collation id of the character_set_client of
// the session that wrote a Query event (the charset its statement's bytes
// are in), from the event's status variables; ok is false when they do not
// say.
func clientCollation(vars []byte) (id uint16, ok bool) {
	v, ok := statusVar(vars, qCharset)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(v), true
}

// charsetCollations returns the pairs of a Query event's character_set_collations (MariaDB
// 11.2+): a charset's default collation id and the collation id it maps to.
func charsetCollations(vars []byte) [][2]uint16 {
	v, ok := statusVar(vars, qCharsetCollations)
	if !ok {
		return nil
	}
	n := int(v[0])
	if len(v) < 1+4*n {
		return nil
	}
	out := make([][2]uint16, n)
	for k := range out {
		b := v[1+4*k:]
		out[k] = [2]uint16{binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:])}
	}
	return out
}

// statementMicros returns the microseconds of a Query event's statement
// time (MariaDB's Q_HRNOW, MySQL's Q_MICROSECONDS), 0 when not logged.
func statementMicros(vars []byte) uint32 {
	for _, code := range []byte{qHRNow, qMicroseconds} {
		if v, ok := statusVar(vars, code); ok {
			return uint32(v[0]) | uint32(v[1])<<8 | uint32(v[2])<<16
		}
	}
	return 0
}

// optionNoForeignKeyChecks is OPTION_NO_FOREIGN_KEY_CHECKS in a Query
// event's Q_FLAGS2: the session had foreign_key_checks = 0.
const optionNoForeignKeyChecks = 1 << 26

// noForeignKeyChecks reports whether the session that wrote a Query event
// had foreign_key_checks off (false when the event does not say).
func noForeignKeyChecks(vars []byte) bool {
	v, ok := statusVar(vars, qFlags2)
	return ok && binary.LittleEndian.Uint32(v)&optionNoForeignKeyChecks != 0
}
