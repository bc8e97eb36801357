package typemap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// decodeFunc appends the UTF-8 form of src (bytes in a column's charset)
// to dst; it fails on bytes the charset does not define instead of
// replacing them.
type decodeFunc func(dst, src []byte) ([]byte, error)

type invalidBytesError struct {
	charset string
	offset  int
}

func (e *invalidBytesError) Error() string {
	if e.offset < 0 {
		return fmt.Sprintf("bytes invalid in charset %s", e.charset)
	}
	return fmt.Sprintf("bytes invalid in charset %s at offset %d", e.charset, e.offset)
}

// builtinSingleByte are the 8-bit charsets whose golang.org/x/text table is
// identical to MariaDB 10.11's conversion to Unicode, byte for byte
// (charset_integration_test.go checks it). Other 8-bit charsets differ in a
// few bytes (greek, hebrew, latin2, koi8u, tis620, cp866, cp1256...) and are
// decoded with tables read from the source server (LoadCharsets).
var builtinSingleByte = map[string]*charmap.Charmap{
	"latin1": charmap.Windows1252, // plus MySQL's five C1 bytes, see byteTable
	"cp1250": charmap.Windows1250,
	"cp1251": charmap.Windows1251,
	"cp1257": charmap.Windows1257,
	"cp850":  charmap.CodePage850,
	"cp852":  charmap.CodePage852,
	"koi8r":  charmap.KOI8R,
	"latin5": charmap.ISO8859_9,
}

// builtinMultiByte are CJK charsets whose x/text decoder gives MariaDB's
// character for every sequence MariaDB converts (it also accepts a few
// sequences MariaDB rejects). gb18030 (MySQL 8 only) follows the standard.
var builtinMultiByte = map[string]encoding.Encoding{
	"gbk":     simplifiedchinese.GBK,
	"euckr":   korean.EUCKR,
	"gb18030": simplifiedchinese.GB18030,
}

// isUTF8Charset reports whether a text column's bytes are UTF-8 already.
func isUTF8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "utf8mb4", "utf8mb3", "utf8", "":
		return true
	}
	return false
}

// charsetDecoder returns the decoder for a MySQL charset name: built in
// for the Unicode charsets and ascii, else the table read from the source
// server, else a built-in table known to match MariaDB's.
func charsetDecoder(name string, loaded *Charsets) (decodeFunc, error) {
	cs := strings.ToLower(name)
	switch cs {
	case "utf8mb4", "utf8mb3", "utf8", "":
		return decodeUTF8(cs), nil
	case "binary":
		// A text column declared with charset binary: its bytes must already be UTF-8.
		return decodeUTF8(cs), nil
	case "ascii":
		return decodeASCII, nil
	case "ucs2":
		return decodeUTF16(binary.BigEndian, false, cs), nil
	case "utf16":
		return decodeUTF16(binary.BigEndian, true, cs), nil
	case "utf16le":
		return decodeUTF16(binary.LittleEndian, true, cs), nil
	case "utf32":
		return decodeUTF32, nil
	}
	t, err := loaded.table(cs)
	if err != nil {
		return nil, fmt.Errorf("charset %q: %w", name, err)
	}
	if t != nil {
		return t.decode, nil
	}
	if cm, ok := builtinSingleByte[cs]; ok {
		return decodeTable(byteTable(cs, cm), cs), nil
	}
	if enc, ok := builtinMultiByte[cs]; ok {
		return decodeMulti(enc, cs), nil
	}
	return nil, fmt.Errorf("charset %q: sluice decodes it with the source server's own conversion table, "+
		"which was not loaded (typemap.LoadCharsets; an unknown charset is not supported)", name)
}

func decodeUTF8(cs string) decodeFunc {
	return func(dst, src []byte) ([]byte, error) {
		if !utf8.Valid(src) {
			return nil, &invalidBytesError{cs, invalidUTF8Offset(src)}
		}
		return append(dst, src...), nil
	}
}

func invalidUTF8Offset(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func decodeASCII(dst, src []byte) ([]byte, error) {
	for i, ch := range src {
		if ch >= 0x80 {
			return nil, &invalidBytesError{"ascii", i}
		}
	}
	return append(dst, src...), nil
}

// byteTable is the rune of every byte; utf8.RuneError marks undefined bytes.
func byteTable(cs string, cm *charmap.Charmap) *[256]rune {
	var t [256]rune
	for i := range t {
		t[i] = cm.DecodeByte(byte(i))
	}
	if cs == "latin1" {
		// MySQL's latin1 maps the five bytes cp1252 leaves undefined to the
		// C1 control characters of the same value.
		for _, b := range []byte{0x81, 0x8D, 0x8F, 0x90, 0x9D} {
			t[b] = rune(b)
		}
	}
	return &t
}

func decodeTable(t *[256]rune, cs string) decodeFunc {
	return func(dst, src []byte) ([]byte, error) {
		for i, ch := range src {
			r := t[ch]
			switch {
			case r < utf8.RuneSelf && r == rune(ch):
				dst = append(dst, ch)
			case r == utf8.RuneError:
				return nil, &invalidBytesError{cs, i}
			default:
				dst = utf8.AppendRune(dst, r)
			}
		}
		return dst, nil
	}
}

// decodeUTF16 decodes UTF-16 (surrogates allowed) or UCS-2 (BMP only).
func decodeUTF16(order binary.ByteOrder, surrogates bool, cs string) decodeFunc {
	return func(dst, src []byte) ([]byte, error) {
		if len(src)%2 != 0 {
			return nil, &invalidBytesError{cs, len(src) - 1}
		}
		for i := 0; i < len(src); i += 2 {
			r := rune(order.Uint16(src[i:]))
			if r >= 0xD800 && r < 0xE000 {
				if !surrogates || r >= 0xDC00 || i+4 > len(src) {
					return nil, &invalidBytesError{cs, i}
				}
				lo := rune(order.Uint16(src[i+2:]))
				if lo < 0xDC00 || lo >= 0xE000 {
					return nil, &invalidBytesError{cs, i}
				}
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				i += 2
			}
			dst = utf8.AppendRune(dst, r)
		}
		return dst, nil
	}
}

func decodeUTF32(dst, src []byte) ([]byte, error) {
	if len(src)%4 != 0 {
		return nil, &invalidBytesError{"utf32", len(src) - len(src)%4}
	}
	for i := 0; i < len(src); i += 4 {
		r := rune(binary.BigEndian.Uint32(src[i:]))
		if !utf8.ValidRune(r) {
			return nil, &invalidBytesError{"utf32", i}
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, nil
}

// decodeMulti decodes with x/text, which replaces invalid sequences with
// U+FFFD; these charsets cannot encode U+FFFD, so one in the output means
// invalid input.
func decodeMulti(enc encoding.Encoding, cs string) decodeFunc {
	return func(dst, src []byte) ([]byte, error) {
		out, err := enc.NewDecoder().Bytes(src)
		if err != nil {
			return nil, fmt.Errorf("charset %s: %w", cs, err)
		}
		if bytes.IndexRune(out, utf8.RuneError) >= 0 {
			return nil, &invalidBytesError{cs, -1}
		}
		return append(dst, out...), nil
	}
}
