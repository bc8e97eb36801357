package typemap

import "strconv"

// Kind groups MySQL types that share one PostgreSQL representation and one
// normalisation rule (verify hashes and compares values per Kind).
type Kind int

const (
	KindInt       Kind = iota // TINYINT..BIGINT signed, TINYINT..INT unsigned → smallint/integer/bigint
	KindUint64                // BIGINT UNSIGNED → numeric(20,0)
	KindDecimal               // DECIMAL/NUMERIC → numeric(p,s)
	KindFloat32               // FLOAT → real
	KindFloat64               // DOUBLE → double precision
	KindBit                   // BIT(n) → bit(n)
	KindDate                  // DATE → date
	KindDateTime              // DATETIME(n) → timestamp(n) without time zone
	KindTimestamp             // TIMESTAMP(n) → timestamp(n) with time zone
	KindTime                  // TIME(n) → interval
	KindYear                  // YEAR → smallint
	KindText                  // CHAR/VARCHAR/TEXT family → varchar(n)/text
	KindBinary                // BINARY/VARBINARY/BLOB family → bytea
	KindEnum                  // ENUM → text with CHECK of the members ('' allowed)
	KindSet                   // SET → text, members comma-separated in definition order
	KindJSON                  // JSON → jsonb
	KindGeometry              // GEOMETRY family → geometry (PostGIS) or bytea (SRID+WKB)
	KindUUID                  // MariaDB UUID → uuid
	KindInet                  // MariaDB INET4/INET6 → inet
)

var kindNames = [...]string{
	KindInt:       "int",
	KindUint64:    "uint64",
	KindDecimal:   "decimal",
	KindFloat32:   "float32",
	KindFloat64:   "float64",
	KindBit:       "bit",
	KindDate:      "date",
	KindDateTime:  "datetime",
	KindTimestamp: "timestamp",
	KindTime:      "time",
	KindYear:      "year",
	KindText:      "text",
	KindBinary:    "binary",
	KindEnum:      "enum",
	KindSet:       "set",
	KindJSON:      "json",
	KindGeometry:  "geometry",
	KindUUID:      "uuid",
	KindInet:      "inet",
}

// String returns the lower-case name used in docs/types.md and error messages.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}
