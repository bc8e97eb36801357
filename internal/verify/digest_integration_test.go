package verify

import (
	"context"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// planOf compiles the comparison of a source table against its copy.
func (s *side) planOf(t *testing.T, tb *schema.Table) *verifydb.Plan {
	t.Helper()
	_, cols, err := pgsink.VerifyTarget(s.pg, schema.Naming{}).Table(context.Background(), tb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := verifydb.NewTablePlan(tb, typemap.New(typemap.DefaultOptions(), nil), schema.Naming{}, s.pgSchm, cols, s.digest)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// engine is a comparison engine on the side's source (one connection) and
// target, closed at cleanup.
func (s *side) engine(t *testing.T) *engine {
	t.Helper()
	src, err := verifydb.OpenSource(context.Background(), s.src, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return &engine{src: src, tgt: pgsink.VerifyTarget(s.pg, schema.Naming{}), digest: s.digest}
}

// TestVerifyDigests: chunk digests are used where they may be, equal data
// give equal digests, and a digest that differs only because the source
// reads rows out of key order never makes verify report a difference.
func TestVerifyDigests(t *testing.T) { testenv.Flavors(t, testVerifyDigests) }

func testVerifyDigests(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_digest")
	s.mustMy(t, `
CREATE TABLE inorder (id INT PRIMARY KEY, n INT NULL, v VARCHAR(20) NULL, c CHAR(5) NOT NULL, d DECIMAL(12,3), t DATETIME(6)) ENGINE=InnoDB;
INSERT INTO inorder SELECT seq, IF(seq % 5 = 0, NULL, seq * 7), IF(seq % 3 = 0, NULL, CONCAT('v|', seq, '\n')), 'ab', seq / 8, '2021-02-03' + INTERVAL seq SECOND FROM seq_1_to_3000;
CREATE TABLE reversed (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL) ENGINE=MyISAM;
INSERT INTO reversed SELECT 3001 - seq, CONCAT('r', seq) FROM seq_1_to_3000;
CREATE TABLE wide (id INT PRIMARY KEY, body TEXT) ENGINE=InnoDB;
INSERT INTO wide VALUES (1, 'x');`)
	names := []string{"inorder", "reversed", "wide"}
	tables := make([]*schema.Table, len(names))
	for i, n := range names {
		tables[i] = loadTable(t, s.my, s.db, n)
	}
	s.snapshot(t, typemap.DefaultOptions(), names...)

	ctx := context.Background()
	e := s.engine(t)
	inorder, reversed, wide := s.planOf(t, tables[0]), s.planOf(t, tables[1]), s.planOf(t, tables[2])
	if inorder.DigestRows < verifydb.DigestMinRows || reversed.DigestRows < verifydb.DigestMinRows {
		t.Fatalf("digest rows: inorder %d, reversed %d; want digests for both", inorder.DigestRows, reversed.DigestRows)
	}
	if wide.DigestRows != 0 {
		t.Errorf("a TEXT column allows digests of %d rows, want none", wide.DigestRows)
	}
	sd, td, err := e.digests(ctx, inorder, verifydb.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	// MySQL 9 has no MD5() without a component: verify hashes with SHA-256 there.
	wantDigest, wantLen := verifydb.DigestMD5, 32
	if s.env.IsMySQL() {
		wantDigest, wantLen = verifydb.DigestSHA256, 64
	}
	if s.digest != wantDigest {
		t.Errorf("%s source: verify hashes with %s, want %s", s.env.Flavor(), s.digest, wantDigest)
	}
	if sd != td || sd.Count != 3000 || len(sd.MD5) != wantLen {
		t.Errorf("digests of equal InnoDB rows: source %+v, target %+v", sd, td)
	}
	sd, td, err = e.digests(ctx, reversed, verifydb.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if sd.Count != 3000 || td.Count != 3000 || sd.MD5 == td.MD5 {
		t.Errorf("digests of rows a MyISAM table reads in reverse key order: source %+v, target %+v; want the same counts and different MD5s", sd, td)
	}

	rep := s.runVerify(t, tables, func(o *Options) { o.ChunkRows = 1000 })
	if rep.Result != ResultEqual || rep.Rows != 6001 {
		t.Fatalf("fresh copy: %s, %d rows %v", rep.Result, rep.Rows, found(rep))
	}

	q := verifydb.QuotePG(s.pgSchm)
	s.mustPG(t, "UPDATE "+q+".inorder SET n = NULL WHERE id = 7")
	s.mustPG(t, "UPDATE "+q+".inorder SET v = 'v|1500'||chr(10)||'x' WHERE id = 1500")
	s.mustPG(t, "UPDATE "+q+".inorder SET t = t + interval '1 microsecond' WHERE id = 2999")
	s.mustPG(t, "DELETE FROM "+q+".reversed WHERE id = 42")
	want := []string{
		"inorder differs id=7 n", "inorder differs id=1500 v", "inorder differs id=2999 t",
		"reversed only_in_source id=42",
	}
	for _, chunk := range []int{0, 1000} {
		rep = s.runVerify(t, tables, func(o *Options) { o.ChunkRows = chunk })
		sameLines(t, "differences", found(rep), want)
	}
}

// TestVerifyDigestKeyNamedT: a key column called t (the digest query's name
// for the row text) must still order the target's rows by the key, so equal
// tables give equal digests instead of falling back to row sums.
func TestVerifyDigestKeyNamedT(t *testing.T) { testenv.Flavors(t, testVerifyDigestKeyNamedT) }

func testVerifyDigestKeyNamedT(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_digest_t")
	s.mustMy(t, `
CREATE TABLE tk (t INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
INSERT INTO tk SELECT seq, seq * 3 FROM seq_1_to_2000;`)
	tb := loadTable(t, s.my, s.db, "tk")
	s.snapshot(t, typemap.DefaultOptions(), "tk")
	ctx := context.Background()
	e := s.engine(t)
	p := s.planOf(t, tb)
	if p.DigestRows < verifydb.DigestMinRows {
		t.Fatalf("digest rows %d: want digests", p.DigestRows)
	}
	sd, td, err := e.digests(ctx, p, verifydb.Scope{})
	if err != nil {
		t.Fatal(err)
	}
	if sd != td || sd.Count != 2000 {
		t.Errorf("digests of equal rows keyed by a column named t: source %+v, target %+v", sd, td)
	}
}
