package rowpolicy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"sync"
)

// keyedHash is HMAC-SHA256 under the mask key, the hash mask's function.
// hmac.New costs more than hashing a short value (it hashes the padded key
// twice and allocates seven times), so keyed states are kept in a pool and
// Reset between values: Reset returns an HMAC to its keyed state, so every
// digest equals a fresh hmac.New's (TestHashDigestsUnchanged). Safe for
// concurrent use; the key lives only in the states (never printed).
type keyedHash struct{ pool sync.Pool }

// hmacState is one pooled HMAC with the scratch its inputs and output go
// through (hash.Hash takes and gives slices: a string value is copied in
// chunks through buf rather than converted whole, which would allocate).
type hmacState struct {
	h   hash.Hash
	buf [512]byte
	sum [sha256.Size]byte
}

func newKeyedHash(key []byte) *keyedHash {
	if len(key) == 0 {
		return nil
	}
	k := &keyedHash{}
	k.pool.New = func() any { return &hmacState{h: hmac.New(sha256.New, key)} }
	return k
}

// string is HMAC(key, s).
func (k *keyedHash) string(s string) [sha256.Size]byte {
	st := k.pool.Get().(*hmacState)
	st.h.Reset()
	for len(s) > 0 {
		n := copy(st.buf[:], s)
		st.h.Write(st.buf[:n])
		s = s[n:]
	}
	return k.done(st)
}

// bytes is HMAC(key, b).
func (k *keyedHash) bytes(b []byte) [sha256.Size]byte {
	st := k.pool.Get().(*hmacState)
	st.h.Reset()
	st.h.Write(b)
	return k.done(st)
}

func (k *keyedHash) done(st *hmacState) [sha256.Size]byte {
	st.h.Sum(st.sum[:0])
	d := st.sum
	k.pool.Put(st)
	return d
}

// int is HMAC(key, the decimal text of x): the text form the snapshot's
// rows give, so both paths mask a BIGINT alike.
func (k *keyedHash) int(x int64) [sha256.Size]byte {
	st := k.pool.Get().(*hmacState)
	st.h.Reset()
	st.h.Write(strconv.AppendInt(st.buf[:0], x, 10))
	return k.done(st)
}

// value is HMAC(key, v) for a text or binary value; false for any other.
func (k *keyedHash) value(v any) ([sha256.Size]byte, bool) {
	switch x := v.(type) {
	case string:
		return k.string(x), true
	case []byte:
		return k.bytes(x), true
	}
	return [sha256.Size]byte{}, false
}

// hexMask is the hash mask of a text column: 64 hex characters.
func (k *keyedHash) hexMask(v any) any {
	d, ok := k.value(v)
	if !ok {
		return v
	}
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], d[:])
	return string(out[:])
}

// binaryMask is the hash mask of a binary column: the 32 bytes.
func (k *keyedHash) binaryMask(v any) any {
	d, ok := k.value(v)
	if !ok {
		return v
	}
	out := make([]byte, sha256.Size)
	copy(out, d[:])
	return out
}

// bigintMask is the hash mask of a signed BIGINT: 63 bits of the digest
// (non-negative). The binlog gives an int64, the snapshot its text.
func (k *keyedHash) bigintMask(v any) any {
	var d [sha256.Size]byte
	switch x := v.(type) {
	case nil:
		return nil
	case int64:
		d = k.int(x)
	default:
		var ok bool
		if d, ok = k.value(v); !ok {
			d = k.string(fmt.Sprint(v))
		}
	}
	return int64(binary.BigEndian.Uint64(d[:]) >> 1)
}
