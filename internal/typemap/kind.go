package typemap

// Kind groups MySQL types that share one PostgreSQL representation and one
// normalisation rule (verify hashes and compares values per Kind).
type Kind int

const (
	KindInt      Kind = iota // TINYINT..BIGINT signed, SMALLINT..INT unsigned, YEAR → smallint/integer/bigint
	KindUint64               // BIGINT UNSIGNED → numeric(20,0)
	KindDecimal              // DECIMAL/NUMERIC → numeric(p,s)
	KindFloat32              // FLOAT → real
	KindFloat64              // DOUBLE → double precision
	KindBit                  // BIT(n) → bit(n)
	KindDate                 // DATE → date
	KindDateTime             // DATETIME(n) → timestamp(n) without time zone
	KindTimestamp            // TIMESTAMP(n) → timestamp(n) with time zone
	KindTime                 // TIME(n) → interval
	KindYear                 // YEAR → smallint
	KindText                 // CHAR/VARCHAR/TEXT family → varchar(n)/text
	KindBinary               // BINARY/VARBINARY/BLOB family → bytea
	KindEnum                 // ENUM → text with CHECK of the members ('' allowed)
	KindSet                  // SET → text, members comma-separated in definition order
	KindJSON                 // JSON → jsonb
	KindGeometry             // GEOMETRY family → geometry (PostGIS) or bytea (SRID+WKB)
	KindUUID                 // MariaDB UUID → uuid
	KindInet                 // MariaDB INET4/INET6 → inet
)
