package typemap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net/netip"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/jackc/pgx/v5/pgtype"
)

// buildBinary converts BINARY, VARBINARY and the BLOB family into bytea,
// byte for byte. The binlog drops the trailing 0x00 padding of BINARY(n)
// (MySQL's Field_string::pack strips pad characters, and 0x00 is binary's),
// so it is put back here: text reads return the full n bytes.
func buildBinary(c *column, _ target) (convs, error) {
	padTo := 0
	if dataType(c.col) == "binary" {
		padTo = int(c.col.CharMaxLength)
	}
	return convs{
		text: func(b []byte) (any, error) { return cloneBytes(b, 0), nil },
		binlog: func(v any) (any, error) {
			b, ok := bytesOf(v)
			if !ok {
				return nil, c.unexpected(v)
			}
			return cloneBytes(b, padTo), nil
		},
	}, nil
}

// cloneBytes copies b (the input may be a driver or event buffer that is
// reused), right-padded with zero bytes to n.
func cloneBytes(b []byte, n int) []byte {
	if n < len(b) {
		n = len(b)
	}
	out := make([]byte, n)
	copy(out, b)
	return out
}

// buildGeometry converts the GEOMETRY family. Both paths carry MySQL's
// internal value: a 4-byte little-endian SRID followed by WKB. Without
// PostGIS that value goes into bytea as is; with PostGIS it becomes EWKB.
func buildGeometry(c *column, _ target) (convs, error) {
	conv := func(b []byte) (any, error) {
		if !c.m.opts.PostGIS {
			return cloneBytes(b, 0), nil
		}
		e, err := ewkb(b)
		if err != nil {
			return nil, c.errorf("%v", err)
		}
		return EWKB(e), nil
	}
	return convs{
		text:   conv,
		binlog: c.binlogAsText(conv),
	}, nil
}

// EWKB is a PostGIS geometry in extended WKB. pgx does not know the
// geometry type (an extension's OID), so it sends the bytes as they are in
// binary format (COPY: geometry_recv reads EWKB) and TextValue's hex in
// text format (query parameters: geometry_in reads hex EWKB).
type EWKB []byte

// TextValue implements pgtype.TextValuer.
func (g EWKB) TextValue() (pgtype.Text, error) {
	return pgtype.Text{String: hex.EncodeToString(g), Valid: true}, nil
}

// ewkbSRIDFlag marks an EWKB geometry type word that is followed by an SRID.
const ewkbSRIDFlag = 0x20000000

// ewkb turns MySQL's SRID+WKB into PostGIS EWKB: the same WKB with the SRID
// flag in the type word and the SRID right after it (omitted when 0).
func ewkb(v []byte) ([]byte, error) {
	if len(v) < 4+5 {
		return nil, errShortGeometry
	}
	srid := binary.LittleEndian.Uint32(v)
	wkb := v[4:]
	if srid == 0 {
		return cloneBytes(wkb, 0), nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if wkb[0] == 0 {
		order = binary.BigEndian
	}
	out := make([]byte, len(wkb)+4)
	out[0] = wkb[0]
	order.PutUint32(out[1:], order.Uint32(wkb[1:])|ewkbSRIDFlag)
	order.PutUint32(out[5:], srid)
	copy(out[9:], wkb[5:])
	return out, nil
}

type geometryError string

func (e geometryError) Error() string { return string(e) }

const errShortGeometry = geometryError("geometry value shorter than SRID + WKB header")

// buildUUID converts MariaDB UUID. Text is the canonical form; the binlog
// carries the 16 bytes in canonical order with trailing zero bytes dropped
// (it packs UUID like BINARY(16)).
func buildUUID(c *column, _ target) (convs, error) {
	return convs{
		text: func(b []byte) (any, error) {
			u, ok := parseUUID(b)
			if !ok {
				return nil, c.errorf("invalid UUID %q", b)
			}
			return u, nil
		},
		binlog: func(v any) (any, error) {
			b, ok := bytesOf(v)
			if !ok || len(b) > 16 {
				return nil, c.unexpected(v)
			}
			u := pgtype.UUID{Valid: true}
			copy(u.Bytes[:], b)
			return u, nil
		},
	}, nil
}

func parseUUID(b []byte) (pgtype.UUID, bool) {
	u := pgtype.UUID{Valid: true}
	if len(b) != 36 || b[8] != '-' || b[13] != '-' || b[18] != '-' || b[23] != '-' {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if b[i] == '-' {
			i++
			continue
		}
		hi, ok1 := unhex(b[i])
		lo, ok2 := unhex(b[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u.Bytes[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// buildInet converts MariaDB INET4/INET6 into inet host addresses (a full
// prefix). The binlog carries 4 or 16 bytes, trailing zero bytes dropped.
func buildInet(c *column, _ target) (convs, error) {
	v4 := dataType(c.col) == "inet4"
	return convs{
		text: func(b []byte) (any, error) {
			a, err := netip.ParseAddr(string(b))
			if err != nil || a.Zone() != "" {
				return nil, c.errorf("invalid address %q", b)
			}
			return netip.PrefixFrom(a, a.BitLen()), nil
		},
		binlog: func(v any) (any, error) {
			b, ok := bytesOf(v)
			if !ok {
				return nil, c.unexpected(v)
			}
			var a netip.Addr
			switch {
			case v4 && len(b) <= 4:
				var x [4]byte
				copy(x[:], b)
				a = netip.AddrFrom4(x)
			case !v4 && len(b) <= 16:
				var x [16]byte
				copy(x[:], b)
				a = netip.AddrFrom16(x)
			default:
				return nil, c.unexpected(v)
			}
			return netip.PrefixFrom(a, a.BitLen()), nil
		},
	}, nil
}

// buildJSON converts JSON into jsonb, handing pgx the JSON text as a string
// (pgx sends strings to json/jsonb as they are, without re-marshalling).
// MariaDB's JSON is LONGTEXT, so its binlog value is the text in the column
// charset; MySQL 8's binary JSON arrives from go-mysql as JSON text.
func buildJSON(c *column, _ target) (convs, error) {
	nul, err := newNulFilter(c)
	if err != nil {
		return convs{}, err
	}
	decode, err := textDecoder(c)
	if err != nil {
		return convs{}, err
	}
	emptyN := c.counter("empty JSON→null")
	conv := func(b []byte) (any, error) {
		if len(b) == 0 {
			// MySQL reads an empty document (left by INSERT IGNORE or a
			// non-strict sql_mode) as the JSON null literal.
			emptyN.Add(1)
			return "null", nil
		}
		b, err := decode(b)
		if err != nil {
			return nil, err
		}
		if b, err = jsonNul(c, nul, b); err != nil {
			return nil, err
		}
		return string(b), nil
	}
	fromBytes := c.binlogAsText(conv)
	if dataType(c.col) == "json" {
		// MySQL's binary JSON, rendered to text by go-mysql: its doubles are
		// re-rendered as MySQL prints them, as the snapshot read them (jsonnum.go).
		fromBytes = c.binlogAsText(func(b []byte) (any, error) { return conv(mysqlJSONDoubles(b)) })
	}
	return convs{
		text: conv,
		binlog: func(v any) (any, error) {
			if _, partial := v.(*replication.JsonDiff); partial {
				// go-mysql v1.16 decodes only the first diff of a partial update,
				// so applying it could lose changes silently (docs/mysql8.md).
				return nil, c.errorf("partial JSON update in the binlog (binlog_row_value_options=PARTIAL_JSON, " +
					"globally or in the writing session): sluice needs full JSON values; set binlog_row_value_options='' " +
					"globally and in the application's sessions, then restart replication from a fresh snapshot of this table")
			}
			return fromBytes(v)
		},
	}, nil
}

// jsonNul applies the NUL policy to \u0000 escapes, which jsonb rejects.
// A backslash only appears inside JSON strings, so escapes are found
// without tracking quotes.
func jsonNul(c *column, nul *nulFilter, b []byte) ([]byte, error) {
	const esc = `\u0000`
	if !bytes.Contains(b, []byte(esc)) {
		return b, nil
	}
	var out []byte
	found := false
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			out = append(out, b[i])
			continue
		}
		if i+len(esc) <= len(b) && string(b[i:i+len(esc)]) == esc {
			found = true
			if nul.policy == NulReplace {
				out = append(out, `\ufffd`...)
			}
			i += len(esc) - 1
			continue
		}
		if i+1 < len(b) {
			out = append(out, b[i], b[i+1])
			i++
		}
	}
	if !found {
		return b, nil
	}
	if nul.policy == NulError {
		return nil, c.errorf("JSON contains \\u0000, which jsonb cannot store (--nul-char=error; use strip or replace)")
	}
	nul.count.Add(1)
	return out, nil
}
