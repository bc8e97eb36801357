package ddl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// crossCheckCorpus are CREATE TABLE statements whose parsed model must equal
// what information_schema says after MariaDB runs them. This is what keeps
// the snapshot (information_schema) and replication (parsed DDL) agreeing.
var crossCheckCorpus = []string{
	`CREATE TABLE ints (a TINYINT, b TINYINT UNSIGNED, c SMALLINT(3), d MEDIUMINT UNSIGNED ZEROFILL, e INT,
	  f INT(5) UNSIGNED, g BIGINT, h BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, i BOOL, j BOOLEAN DEFAULT TRUE,
	  k INTEGER DEFAULT '5', l INT DEFAULT -1, m INT1, n INT8 DEFAULT 1.6, o MIDDLEINT, p INT ZEROFILL)`,
	`CREATE TABLE nums (a DECIMAL, b DECIMAL(65,30) DEFAULT 1.5, c DECIMAL(5) DEFAULT -3, d NUMERIC(10,2) UNSIGNED,
	  e FLOAT, f FLOAT(7,3) DEFAULT 1.25, g DOUBLE DEFAULT 0.1, h DOUBLE PRECISION, i REAL DEFAULT 1e3,
	  j FLOAT DEFAULT 0.1, k FLOAT(30), l FLOAT(10), m DOUBLE(10,2) UNSIGNED DEFAULT 2, n DEC(4,1), o FIXED(6,2),
	  p DOUBLE DEFAULT 1.25e-5, q FLOAT4, r FLOAT8)`,
	`CREATE TABLE bits_years (a BIT, b BIT(8) DEFAULT b'101', c BIT(64) DEFAULT 7, d BIT(3) DEFAULT 0,
	  e YEAR DEFAULT 2020, f YEAR DEFAULT 99, g YEAR(4) DEFAULT '1999')`,
	`CREATE TABLE temporal (a DATE DEFAULT '2020-1-2', b DATETIME DEFAULT '2020-01-02 03:04:05',
	  c DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
	  d TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, e TIMESTAMP(3) NULL DEFAULT NULL,
	  f TIME DEFAULT '-838:59:59', g TIME(2) DEFAULT '1:2:3', h DATE DEFAULT '0000-00-00', i DATETIME DEFAULT NOW(),
	  j DATETIME(2) DEFAULT '2020-1-2', k TIMESTAMP NULL DEFAULT 0, l DATE DEFAULT curdate(), m TIME DEFAULT 0,
	  n DATETIME(3) DEFAULT current_timestamp(3))`,
	`CREATE TABLE texts (a CHAR, b CHAR(10) DEFAULT 'ab  ', c VARCHAR(100) DEFAULT 'it''s \\ x', d VARCHAR(10) DEFAULT 'NULL',
	  e VARCHAR(10) DEFAULT NULL, f TINYTEXT, g TEXT, h MEDIUMTEXT, i LONGTEXT, j TEXT(100), k TEXT(1000),
	  l VARCHAR(5) DEFAULT 0x41, m VARCHAR(20) DEFAULT 'a\nb\tc\rd', n VARCHAR(10) NOT NULL DEFAULT '',
	  o NATIONAL CHAR(3), p NVARCHAR(4), q CHARACTER VARYING(5), r LONG VARCHAR, s VARCHAR(10) DEFAULT 5)`,
	`CREATE TABLE charsets (a VARCHAR(10) CHARACTER SET latin1, b VARCHAR(10) COLLATE latin1_bin,
	  c VARCHAR(10) CHARACTER SET utf8 COLLATE utf8_bin, d TEXT CHARACTER SET ascii, e CHAR(3) BINARY,
	  f VARCHAR(10) CHARACTER SET latin1 COLLATE latin1_general_ci, g CHAR(4) CHARACTER SET binary,
	  h TEXT CHARACTER SET binary, i ENUM('x','y') CHARACTER SET latin1, j VARCHAR(3) CHARSET utf8mb4)
	  DEFAULT CHARSET=latin1 COLLATE=latin1_german1_ci`,
	`CREATE TABLE binaries (a BINARY, b BINARY(4) DEFAULT 'ab', c VARBINARY(16) DEFAULT 'x', d TINYBLOB, e BLOB,
	  f MEDIUMBLOB, g LONGBLOB, h BLOB(100), i LONG VARBINARY)`,
	`CREATE TABLE enums (a ENUM('a','it''s','') NOT NULL DEFAULT 'a', b SET('x','y','z') DEFAULT 'z,x',
	  c ENUM('one','two') DEFAULT 'two', d SET('p') DEFAULT '', e ENUM('A','b') DEFAULT 'a', f ENUM('sp ', 'q'),
	  g SET('back\\slash','q') DEFAULT 'q')`,
	`CREATE TABLE mariadb_types (a JSON, b UUID DEFAULT uuid(), c INET6, d INET4, e GEOMETRY, f POINT NOT NULL,
	  g LINESTRING, h POLYGON, i MULTIPOINT, j MULTILINESTRING, k MULTIPOLYGON, l GEOMETRYCOLLECTION,
	  m JSON NOT NULL DEFAULT '{}', SPATIAL KEY sp (f))`,
	`CREATE TABLE gen_cols (a INT, b INT AS (a + 1) VIRTUAL, c VARCHAR(20) AS (CONCAT('x', a)) STORED,
	  d INT GENERATED ALWAYS AS (a * 2) PERSISTENT, e INT AS (a DIV 2) COMMENT 'half', f DOUBLE AS (a / 3) STORED)`,
	`CREATE TABLE attrs (a INT NOT NULL COMMENT 'it''s a', b INT INVISIBLE DEFAULT 3, c VARCHAR(10) DEFAULT 'x' COMMENT 'c',
	  d INT NULL, e INT DEFAULT (1 + 2), f VARCHAR(36) DEFAULT (uuid()), g INT DEFAULT NULL)
	  COMMENT 'table comment' ENGINE=InnoDB`,
	`CREATE TABLE keyed (a INT NOT NULL, b VARCHAR(100), c TEXT, d INT, e INT, f VARCHAR(10),
	  PRIMARY KEY (a), UNIQUE KEY (b), UNIQUE KEY uk2 (d, e), KEY (b(10)), KEY (d), KEY pre (c(20)),
	  KEY desc_ix (d DESC, e), FULLTEXT KEY ft (b, c), KEY full_prefix (f(10)) COMMENT 'x', INDEX hash_ix (e) USING HASH)`,
	`CREATE TABLE colkeys (a INT PRIMARY KEY, b INT UNIQUE, c INT UNIQUE KEY, d SERIAL)`,
	`CREATE TABLE colkey2 (a INT KEY, b INT)`,
	`CREATE TABLE composite (a INT, b VARCHAR(10), c INT, PRIMARY KEY (b, a), KEY (c)) AUTO_INCREMENT=10`,
	`CREATE TABLE fk_parent (id INT PRIMARY KEY, x INT, y INT, UNIQUE KEY (x, y))`,
	`CREATE TABLE fk_child (id INT AUTO_INCREMENT PRIMARY KEY, p INT, x INT, y INT, q INT,
	  CONSTRAINT fk_named FOREIGN KEY (p) REFERENCES fk_parent (id) ON DELETE CASCADE,
	  FOREIGN KEY (x, y) REFERENCES fk_parent (x, y) ON UPDATE SET NULL,
	  CONSTRAINT fk_idx FOREIGN KEY my_idx (q) REFERENCES fk_parent (id) ON DELETE NO ACTION,
	  FOREIGN KEY (id) REFERENCES fk_parent (id)) AUTO_INCREMENT=5`,
	`CREATE TABLE checks (a INT CHECK (a > 0), b INT CHECK (b >= 0), c INT,
	  CHECK (c < 10), CONSTRAINT named CHECK (a < b), CHECK (c <> 5))`,
	"CREATE TABLE `Weird Names` (`col``q` INT, `Mixed` INT, `sp ace` VARCHAR(3), PRIMARY KEY (`Mixed`), KEY `ix sp` (`sp ace`))",
	`CREATE TABLE aria_t (a INT) ENGINE=Aria`,
}

func TestTableFromCreateMatchesInformationSchema(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	dbName := env.NewDatabase(t, "ddl_xcheck")
	my := env.MySQL(t, dbName)
	for _, stmt := range crossCheckCorpus {
		if _, err := my.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("MariaDB rejects corpus statement: %v\n%s", err, stmt)
		}
	}
	f, _ := schema.NewFilter(nil, nil, dbName)
	cat, err := schema.Load(ctx, my, f)
	if err != nil {
		t.Fatal(err)
	}
	sch := ddl.NewTranslator(cat, nil, schema.Naming{}, f)
	for _, stmt := range crossCheckCorpus {
		parsed, err := sch.TableFromCreate(stmt, dbName)
		if err != nil {
			t.Errorf("TableFromCreate: %v\n%s", err, stmt)
			continue
		}
		loaded := cat.Table(parsed.TableID)
		if loaded == nil {
			t.Errorf("table %s not loaded", parsed.TableID)
			continue
		}
		compareTables(t, "statement", loaded, parsed)
		var name, show string
		if err := my.QueryRowContext(ctx, "SHOW CREATE TABLE "+quoteMy(parsed.Name)).Scan(&name, &show); err != nil {
			t.Fatal(err)
		}
		fromShow, err := sch.TableFromCreate(show, dbName)
		if err != nil {
			t.Errorf("TableFromCreate(SHOW CREATE TABLE): %v\n%s", err, show)
			continue
		}
		compareTables(t, "SHOW CREATE TABLE", loaded, fromShow)
	}
}

func quoteMy(s string) string { return "`" + s + "`" }

// compareTables reports every field that differs, column by column.
func compareTables(t *testing.T, how string, loaded, parsed *schema.Table) {
	t.Helper()
	for i := 0; i < max(len(loaded.Columns), len(parsed.Columns)); i++ {
		var l, p schema.Column
		if i < len(loaded.Columns) {
			l = loaded.Columns[i]
		}
		if i < len(parsed.Columns) {
			p = parsed.Columns[i]
		}
		if !reflect.DeepEqual(l, p) {
			t.Errorf("%s %s column %d differs:\n information_schema %s\n parsed             %s",
				how, loaded.TableID, i+1, js(l), js(p))
		}
	}
	lt, pt := *loaded, *parsed
	lt.Columns, pt.Columns = nil, nil
	if !reflect.DeepEqual(lt, pt) {
		t.Errorf("%s %s table differs:\n information_schema %s\n parsed             %s", how, loaded.TableID, js(lt), js(pt))
	}
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
