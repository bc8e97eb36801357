package binlog

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/replication"
)

// A partial JSON update is applied to the before document as go-mysql
// rendered it: the text is parsed into a tree that keeps every scalar and
// every key as the exact token go-mysql wrote, the diffs edit the tree
// (their values rendered by go-mysql too), and the tree is written back
// compact, as go-mysql writes it. So the after document is byte for byte
// what go-mysql would have rendered from a full image of it, and snapshot,
// replicate and verify see the same text.

// jnode is a JSON value: an object ('{'), an array ('[') or a scalar token.
type jnode struct {
	kind byte
	raw  string // scalar: the token as rendered
	keys []jkey // object keys, in MySQL's order (length, then bytes)
	vals []*jnode
}

// jkey is an object key: the quoted token as rendered and its value.
type jkey struct {
	raw, name string
}

// applyDiffs applies diffs in order to the document before and renders the
// result. renderKey renders a new object key as a quoted token.
func applyDiffs(before string, diffs []jsonDiff, renderKey func(string) (string, error)) (string, error) {
	doc, err := parseJSONText(before)
	if err != nil {
		return "", fmt.Errorf("before image: %w", err)
	}
	for i, d := range diffs {
		if doc, err = applyDiff(doc, d, renderKey); err != nil {
			return "", fmt.Errorf("diff %d of %d (%s %s): %w", i+1, len(diffs), d.op, d.path, err)
		}
	}
	var b strings.Builder
	b.Grow(len(before))
	doc.render(&b)
	return b.String(), nil
}

// applyDiff applies one diff as MySQL's Json_diff_vector does (sql/json_diff.cc
// apply_json_diffs): replace needs an existing path, insert adds an object
// member that is not there or an array element (at the end when the index is
// past it), remove needs an existing path.
func applyDiff(doc *jnode, d jsonDiff, renderKey func(string) (string, error)) (*jnode, error) {
	legs, err := parseJSONPath(d.path)
	if err != nil {
		return nil, err
	}
	var value *jnode
	if d.op != replication.JsonDiffOperationRemove {
		if value, err = parseJSONText(d.value); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
	}
	if len(legs) == 0 {
		if d.op != replication.JsonDiffOperationReplace {
			return nil, fmt.Errorf("%s of the whole document", d.op)
		}
		return value, nil
	}
	root := doc
	if d.op == replication.JsonDiffOperationReplace {
		slot, err := seek(&root, legs)
		if err != nil {
			return nil, err
		}
		*slot = value
		return root, nil
	}
	pslot, err := seek(&root, legs[:len(legs)-1])
	if err != nil {
		return nil, err
	}
	parent, last := *pslot, legs[len(legs)-1]
	switch {
	case last.member && parent.kind == '{':
		i, found := parent.find(last.key)
		if d.op == replication.JsonDiffOperationRemove {
			if !found {
				return nil, fmt.Errorf("no member %q to remove", last.key)
			}
			parent.keys = append(parent.keys[:i], parent.keys[i+1:]...)
			parent.vals = append(parent.vals[:i], parent.vals[i+1:]...)
			return root, nil
		}
		if found {
			return nil, fmt.Errorf("member %q to insert is already there", last.key)
		}
		raw, err := renderKey(last.key)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", last.key, err)
		}
		parent.keys = insertAt(parent.keys, i, jkey{raw: raw, name: last.key})
		parent.vals = insertAt(parent.vals, i, value)
		return root, nil
	case !last.member && parent.kind == '[':
		i := last.position(len(parent.vals))
		if d.op == replication.JsonDiffOperationRemove {
			if i < 0 || i >= len(parent.vals) {
				return nil, fmt.Errorf("no element %d to remove in an array of %d", i, len(parent.vals))
			}
			parent.vals = append(parent.vals[:i], parent.vals[i+1:]...)
			return root, nil
		}
		i = min(max(i, 0), len(parent.vals))
		parent.vals = insertAt(parent.vals, i, value)
		return root, nil
	}
	return nil, fmt.Errorf("the parent of the last path leg is not an %s", map[bool]string{true: "object", false: "array"}[last.member])
}

func insertAt[T any](s []T, i int, v T) []T {
	var zero T
	s = append(s, zero)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// seek returns the slot holding the value at legs. As in MySQL's path
// evaluation, [0] (or [last]) of a value that is not an array is the value
// itself.
func seek(root **jnode, legs []pathLeg) (**jnode, error) {
	slot := root
	for _, l := range legs {
		n := *slot
		if l.member {
			if n.kind != '{' {
				return nil, fmt.Errorf("member %q of a value that is not an object", l.key)
			}
			i, found := n.find(l.key)
			if !found {
				return nil, fmt.Errorf("no member %q", l.key)
			}
			slot = &n.vals[i]
			continue
		}
		if n.kind != '[' {
			if l.position(1) != 0 {
				return nil, fmt.Errorf("element %s of a value that is not an array", l)
			}
			continue
		}
		i := l.position(len(n.vals))
		if i < 0 || i >= len(n.vals) {
			return nil, fmt.Errorf("no element %s in an array of %d", l, len(n.vals))
		}
		slot = &n.vals[i]
	}
	return slot, nil
}

// find returns the index of key in an object, or where it would be
// inserted: MySQL keeps keys sorted by length, then by their bytes.
func (n *jnode) find(key string) (int, bool) {
	for i, k := range n.keys {
		if len(k.name) > len(key) || len(k.name) == len(key) && k.name >= key {
			return i, k.name == key
		}
	}
	return len(n.keys), false
}

func (n *jnode) render(b *strings.Builder) {
	switch n.kind {
	case '{':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k.raw)
			b.WriteByte(':')
			n.vals[i].render(b)
		}
		b.WriteByte('}')
	case '[':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			v.render(b)
		}
		b.WriteByte(']')
	default:
		b.WriteString(n.raw)
	}
}

// parseJSONText parses JSON text into a tree that keeps the tokens.
func parseJSONText(s string) (*jnode, error) {
	p := textParser{s: s}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(s) {
		return nil, fmt.Errorf("JSON text: trailing data at offset %d", p.i)
	}
	return n, nil
}

type textParser struct {
	s string
	i int
}

func (p *textParser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *textParser) fail(what string) error {
	return fmt.Errorf("JSON text: %s at offset %d", what, p.i)
}

// maxDepth is above MySQL's JSON nesting limit (100).
const maxDepth = 1000

func (p *textParser) value(depth int) (*jnode, error) {
	if depth > maxDepth {
		return nil, p.fail("nesting too deep")
	}
	p.ws()
	if p.i >= len(p.s) {
		return nil, p.fail("unexpected end")
	}
	switch p.s[p.i] {
	case '{':
		p.i++
		n := &jnode{kind: '{'}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return n, nil
		}
		for {
			p.ws()
			raw, name, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.fail("':' expected")
			}
			p.i++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, jkey{raw: raw, name: name})
			n.vals = append(n.vals, v)
			if done, err := p.next('}'); done || err != nil {
				return n, err
			}
		}
	case '[':
		p.i++
		n := &jnode{kind: '['}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return n, nil
		}
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
			if done, err := p.next(']'); done || err != nil {
				return n, err
			}
		}
	case '"':
		raw, _, err := p.str()
		return &jnode{raw: raw}, err
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(",]} \t\r\n", p.s[p.i]) < 0 {
		p.i++
	}
	if p.i == start {
		return nil, p.fail("value expected")
	}
	return &jnode{raw: p.s[start:p.i]}, nil
}

// next consumes ',' (more follows) or end (done).
func (p *textParser) next(end byte) (bool, error) {
	p.ws()
	if p.i >= len(p.s) {
		return false, p.fail("unexpected end")
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, nil
	case end:
		p.i++
		return true, nil
	}
	return false, p.fail("',' or '" + string(end) + "' expected")
}

// str reads a quoted string: its token and its value.
func (p *textParser) str() (raw, value string, err error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", "", p.fail("string expected")
	}
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			raw = p.s[start:p.i]
			value, err = unquoteJSON(raw)
			return raw, value, err
		}
		p.i++
	}
	return "", "", p.fail("unterminated string")
}

// unquoteJSON decodes a quoted JSON string. Bytes other than escapes pass
// through unchanged (MySQL JSON is byte-transparent).
func unquoteJSON(q string) (string, error) {
	s := q[1 : len(q)-1]
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("bad escape in %s", q)
		}
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n, err := hex4(s[i+1:])
			if err != nil {
				return "", fmt.Errorf("bad escape in %s", q)
			}
			i += n
			if utf16.IsSurrogate(r) && strings.HasPrefix(s[i+1:], `\u`) {
				if r2, n2, err := hex4(s[i+3:]); err == nil {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 2 + n2
					}
				}
			}
			b.WriteRune(r)
		default:
			return "", fmt.Errorf("bad escape in %s", q)
		}
	}
	return b.String(), nil
}

func hex4(s string) (rune, int, error) {
	if len(s) < 4 {
		return 0, 0, fmt.Errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	return rune(v), 4, err
}

// pathLeg is one leg of a MySQL JSON path: an object member or an array
// index, counted from the start or, with last, from the end.
type pathLeg struct {
	member bool
	key    string
	index  int
	last   bool // index counts back from the last element: [last-index]
}

// position resolves an array leg against an array of n elements.
func (l pathLeg) position(n int) int {
	if l.last {
		return n - 1 - l.index
	}
	return l.index
}

func (l pathLeg) String() string {
	if l.member {
		return strconv.Quote(l.key)
	}
	if l.last {
		return fmt.Sprintf("[last-%d]", l.index)
	}
	return fmt.Sprintf("[%d]", l.index)
}

// parseJSONPath parses the path of a diff as MySQL writes it: $ followed by
// .member, ."quoted member" and [index] legs ([last], [last-N] too).
// Wildcards and ranges never occur in diffs and are refused.
func parseJSONPath(path string) ([]pathLeg, error) {
	p := textParser{s: path}
	p.ws()
	if p.i >= len(path) || path[p.i] != '$' {
		return nil, fmt.Errorf("JSON path %q does not start with $", path)
	}
	p.i++
	var legs []pathLeg
	for {
		p.ws()
		if p.i >= len(path) {
			return legs, nil
		}
		bad := fmt.Errorf("JSON path %q: unsupported at offset %d", path, p.i)
		switch path[p.i] {
		case '.':
			p.i++
			p.ws()
			if p.i >= len(path) {
				return nil, bad
			}
			if path[p.i] == '"' {
				_, key, err := p.str()
				if err != nil {
					return nil, fmt.Errorf("JSON path %q: %w", path, err)
				}
				legs = append(legs, pathLeg{member: true, key: key})
				continue
			}
			start := p.i
			for p.i < len(path) && strings.IndexByte(".[ \t\r\n*\"", path[p.i]) < 0 {
				p.i++
			}
			if p.i == start {
				return nil, bad
			}
			legs = append(legs, pathLeg{member: true, key: path[start:p.i]})
		case '[':
			p.i++
			end := strings.IndexByte(path[p.i:], ']')
			if end < 0 {
				return nil, bad
			}
			leg, err := parseIndex(strings.TrimSpace(path[p.i : p.i+end]))
			if err != nil {
				return nil, fmt.Errorf("JSON path %q: %w", path, err)
			}
			legs = append(legs, leg)
			p.i += end + 1
		default:
			return nil, bad
		}
	}
}

func parseIndex(s string) (pathLeg, error) {
	if rest, ok := strings.CutPrefix(s, "last"); ok {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			return pathLeg{last: true}, nil
		}
		if rest[0] != '-' {
			return pathLeg{}, fmt.Errorf("bad array index %q", s)
		}
		n, err := strconv.ParseUint(strings.TrimSpace(rest[1:]), 10, 31)
		if err != nil {
			return pathLeg{}, fmt.Errorf("bad array index %q", s)
		}
		return pathLeg{last: true, index: int(n)}, nil
	}
	n, err := strconv.ParseUint(s, 10, 31)
	if err != nil {
		return pathLeg{}, fmt.Errorf("bad array index %q", s)
	}
	return pathLeg{index: int(n)}, nil
}
