package rowpolicy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// KeyEnv is the environment variable holding the hash mask key.
const KeyEnv = "SLUICE_MASK_KEY"

// Policy is a stream's row filters and column masks. It compiles them per
// table version (a schema change gives the table a new version, which is
// compiled again: a filter or an explicit mask whose column went away stops
// the stream; a new column matching a db.*.c pattern is masked from its
// first row). Safe for concurrent use.
type Policy struct {
	where map[schema.TableID]string
	masks []MaskSpec
	key   []byte
	hash  *keyedHash // HMAC-SHA256 under key; nil without one

	mu     sync.Mutex
	tables map[*schema.Table]*tablePolicy
}

type tablePolicy struct {
	filter *Filter
	masks  []columnMask
}

// New reads --where (db.table=condition) and --mask values; key is the
// hash key (nil when none was given). Nothing is checked against tables
// yet: see Check.
func New(where, masks []string, key []byte) (*Policy, error) {
	p := &Policy{where: map[schema.TableID]string{}, key: key, hash: newKeyedHash(key), tables: map[*schema.Table]*tablePolicy{}}
	for _, w := range where {
		name, cond, ok := strings.Cut(w, "=")
		db, tbl, ok2 := strings.Cut(strings.TrimSpace(name), ".")
		if !ok || !ok2 || db == "" || tbl == "" || strings.TrimSpace(cond) == "" || strings.Contains(tbl, ".") {
			return nil, exitcode.ConfigError(fmt.Errorf("--where %q: want db.table=<condition>, e.g. --where 'shop.orders=tenant_id = 42'", w))
		}
		id := schema.TableID{Database: db, Name: tbl}
		if _, dup := p.where[id]; dup {
			return nil, exitcode.ConfigError(fmt.Errorf("--where: two conditions for %s; combine them with AND", id))
		}
		p.where[id] = strings.TrimSpace(cond)
	}
	for _, m := range masks {
		spec, err := ParseMask(m)
		if err != nil {
			return nil, exitcode.ConfigError(err)
		}
		p.masks = append(p.masks, spec)
	}
	return p, nil
}

// Empty reports whether the policy neither filters nor masks anything.
func (p *Policy) Empty() bool { return p == nil || (len(p.where) == 0 && len(p.masks) == 0) }

// LoadKey reads the hash mask key from file (--mask-key-file) or else the
// environment. The key never comes from a flag value or the config file.
func LoadKey(file string) ([]byte, error) {
	if file != "" {
		// As a password file: private (mode 0600), one line.
		s, err := config.ReadPasswordFile(file, "--mask-key-file")
		if err != nil {
			return nil, exitcode.ConfigError(err)
		}
		k := []byte(s)
		if len(k) < 16 {
			return nil, exitcode.ConfigError(fmt.Errorf("--mask-key-file %s: the key has %d bytes; use at least 16 (e.g. head -c 32 /dev/urandom | base64 > %s)", file, len(k), file))
		}
		return k, nil
	}
	if v := os.Getenv(KeyEnv); v != "" {
		if len(v) < 16 {
			return nil, exitcode.ConfigError(fmt.Errorf("%s has %d bytes; use at least 16", KeyEnv, len(v)))
		}
		return []byte(v), nil
	}
	return nil, nil
}

// KeyFingerprint names the key without revealing it (an HMAC of a fixed
// label under the key), so a stream can tell a later run used another key.
func (p *Policy) KeyFingerprint() string {
	if len(p.key) == 0 {
		return ""
	}
	h := hmac.New(sha256.New, p.key)
	h.Write([]byte("sluice mask key fingerprint"))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Check compiles the policy against the tables in scope: a --where for a
// table not in scope, a mask on a column no table has, a bad condition or
// a mask that does not fit are configuration errors (exit 2).
func (p *Policy) Check(tables []*schema.Table) error {
	if p.Empty() {
		return nil
	}
	byID := map[schema.TableID]bool{}
	for _, t := range tables {
		byID[t.TableID] = true
		if _, err := p.For(t); err != nil {
			return err
		}
	}
	for id := range p.where {
		if !byID[id] {
			return exitcode.ConfigError(fmt.Errorf("--where %s: no such table in scope (check --include/--exclude and the name)", id))
		}
	}
	for _, m := range p.masks {
		found := false
		for _, t := range tables {
			if m.matches(t.TableID, m.Column) && t.Column(m.Column) != nil {
				found = true
				break
			}
		}
		if !found && m.Table != "*" {
			return exitcode.ConfigError(fmt.Errorf("--mask %s: table %s.%s in scope has no column %q", m, m.Database, m.Table, m.Column))
		}
	}
	return nil
}

// For compiles (once per table version) what applies to t; nil when
// nothing does.
func (p *Policy) For(t *schema.Table) (*tablePolicy, error) {
	if p.Empty() {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if tp, ok := p.tables[t]; ok {
		return tp, nil
	}
	tp := &tablePolicy{}
	if cond, ok := p.where[t.TableID]; ok {
		f, err := CompileFilter(t, cond)
		if err != nil {
			return nil, err
		}
		tp.filter = f
	}
	inKey := map[string]bool{}
	for _, k := range t.UniqueKeys() {
		for _, c := range k {
			inKey[strings.ToLower(c)] = true
		}
	}
	for _, m := range p.masks {
		if !strings.EqualFold(m.Database, t.Database) || (m.Table != "*" && !strings.EqualFold(m.Table, t.Name)) {
			continue
		}
		i := t.ColumnIndex(m.Column)
		if i < 0 {
			if m.Table != "*" {
				return nil, exitcode.ConfigError(fmt.Errorf("--mask %s: table %s has no column %q (a schema change dropped or renamed it?): "+
					"drop the mask or re-copy the table", m, t.TableID, m.Column))
			}
			continue
		}
		f, err := resolveMask(m, t, &t.Columns[i], p.hash, inKey[strings.ToLower(t.Columns[i].Name)])
		if err != nil {
			return nil, exitcode.ConfigError(err)
		}
		tp.masks = slices.DeleteFunc(tp.masks, func(c columnMask) bool { return c.index == i }) // db.t.c wins over db.*.c below
		if m.Table == "*" && slices.ContainsFunc(p.masks, func(o MaskSpec) bool { return o.Table != "*" && o.matches(t.TableID, m.Column) }) {
			continue
		}
		tp.masks = append(tp.masks, columnMask{spec: m, index: i, apply: f})
	}
	if tp.filter == nil && len(tp.masks) == 0 {
		tp = nil
	}
	p.tables[t] = tp
	return tp, nil
}

// Filter is the compiled condition for t, or nil.
func (p *Policy) Filter(t *schema.Table) (*Filter, error) {
	tp, err := p.For(t)
	if err != nil || tp == nil {
		return nil, err
	}
	return tp.filter, nil
}

// MaskRow rewrites the masked columns of one row image in place.
func (tp *tablePolicy) MaskRow(row []any) {
	if tp == nil || row == nil {
		return
	}
	for _, m := range tp.masks {
		row[m.index] = m.apply(row[m.index])
	}
}

// maskImages masks both images of a change in place. Every mask is a
// function of the value alone, so a column an UPDATE leaves unchanged
// takes the before image's result instead of masking it again (a hash is
// most of a policy's cost, and most UPDATEs leave most columns alone).
func (tp *tablePolicy) maskImages(before, after []any) {
	if tp == nil {
		return
	}
	if before == nil || after == nil || len(before) != len(after) {
		tp.MaskRow(before)
		tp.MaskRow(after)
		return
	}
	for _, m := range tp.masks {
		i := m.index
		unchanged := pipeline.ValueEqual(before[i], after[i])
		before[i] = m.apply(before[i])
		if !unchanged {
			after[i] = m.apply(after[i])
			continue
		}
		after[i] = before[i]
		if b, ok := before[i].([]byte); ok {
			after[i] = bytes.Clone(b) // the images own their values
		}
	}
}

// Changes applies the policy to a transaction's row changes, in place
// where it can: filters with row-move semantics (an UPDATE leaving the
// filter is a DELETE of the before image, one entering it an INSERT of the
// after image, one outside before and after is dropped), then masks on
// every image left.
func (p *Policy) Changes(cs []model.RowChange) ([]model.RowChange, error) {
	if p.Empty() {
		return cs, nil
	}
	out := cs[:0]
	var last *schema.Table
	var tp *tablePolicy
	for _, c := range cs {
		if c.Table != last || last == nil {
			var err error
			if tp, err = p.For(c.Table); err != nil {
				return nil, err
			}
			last = c.Table
		}
		if tp != nil && tp.filter != nil {
			keep, err := tp.move(&c)
			if err != nil {
				return nil, exitcode.ConfigError(err)
			}
			if !keep {
				continue
			}
		}
		tp.maskImages(c.Before, c.After)
		out = append(out, c)
	}
	return out, nil
}

// move applies the filter's row-move semantics to c; false drops it.
func (tp *tablePolicy) move(c *model.RowChange) (bool, error) {
	var before, after bool
	var err error
	if c.Before != nil {
		if before, err = tp.filter.Match(c.Before); err != nil {
			return false, err
		}
	}
	switch {
	case c.After == nil:
	case c.Before != nil && tp.filter.same(c.Before, c.After):
		after = before // the UPDATE left the columns the condition reads alone
	default:
		if after, err = tp.filter.Match(c.After); err != nil {
			return false, err
		}
	}
	switch c.Op {
	case model.Insert:
		return after, nil
	case model.Delete:
		return before, nil
	}
	switch {
	case before && !after:
		c.Op, c.After = model.Delete, nil
	case after && !before:
		c.Op, c.Before = model.Insert, nil
	}
	return before || after, nil
}

// Describe lists the policy, one line per filter and mask, sorted, with
// the key's fingerprint (never the key): what a stream records and a
// later run must match, and what --dry-run shows.
func (p *Policy) Describe() []string {
	if p.Empty() {
		return nil
	}
	var out []string
	for id, c := range p.where {
		out = append(out, "where "+id.String()+": "+c)
	}
	for _, m := range p.masks {
		out = append(out, "mask "+m.String())
	}
	sort.Strings(out)
	if fp := p.KeyFingerprint(); fp != "" && slices.ContainsFunc(p.masks, func(m MaskSpec) bool { return m.Kind == MaskHash }) {
		out = append(out, "mask key fingerprint "+fp)
	}
	return out
}
