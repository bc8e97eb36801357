package ddl_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// planCorpus are table definitions whose snapshot plans (every phase) are
// kept in testdata/create_table.golden; with PostGIS and a --schema-map.
var planCorpus = []string{
	`CREATE TABLE places (
	  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
	  parent_id BIGINT UNSIGNED,
	  name VARCHAR(100) NOT NULL DEFAULT '' COMMENT 'display name',
	  kind ENUM('city','town','it''s') NOT NULL,
	  tags SET('a','b'),
	  pos POINT NOT NULL,
	  area POLYGON,
	  body TEXT,
	  raw VARBINARY(300),
	  born DATE DEFAULT '0000-00-00',
	  seen TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
	  local_seen DATETIME ON UPDATE CURRENT_TIMESTAMP,
	  flags BIT(10) DEFAULT b'11',
	  ratio FLOAT DEFAULT 0.5,
	  doc JSON DEFAULT '{}',
	  slug VARCHAR(120) AS (LOWER(REPLACE(name, ' ', '-'))) VIRTUAL,
	  crc INT UNSIGNED AS (CRC32(name)) STORED,
	  SPATIAL KEY pos_ix (pos),
	  FULLTEXT KEY body_ft (body),
	  UNIQUE KEY name_kind (name(20), kind),
	  KEY raw_prefix (raw(16)),
	  KEY seen_desc (seen DESC) COMMENT 'recent first',
	  CONSTRAINT places_parent FOREIGN KEY (parent_id) REFERENCES places (id) ON DELETE SET NULL,
	  CONSTRAINT name_len CHECK (CHAR_LENGTH(name) > 0),
	  CONSTRAINT odd CHECK (name REGEXP '^[a-z]')
	) AUTO_INCREMENT=42 COMMENT='where things are'`,
	"CREATE TABLE `" + strings.Repeat("long_table_name_", 3) + "` (`" + strings.Repeat("c", 60) +
		"` INT, KEY `" + strings.Repeat("index_", 10) + "` (`" + strings.Repeat("c", 60) + "`))",
}

func TestCreateTableGolden(t *testing.T) {
	tr := corpusTranslator(t, pureCatalog(), "src", "other")
	m := typemap.New(typemap.Options{ZeroDate: typemap.ZeroDateNull, Nul: typemap.NulStrip, PostGIS: true}, nil)
	n, err := schema.NewNaming([]string{"src=app"})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, stmt := range planCorpus {
		tb, err := tr.TableFromCreate(stmt, "src")
		if err != nil {
			t.Fatalf("%v\n%s", err, stmt)
		}
		p, err := ddl.CreateTable(tb, m, n)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "-- table %s (%s)\n", tb, p.QName)
		var addKey []string
		if p.AddPrimaryKey != "" {
			addKey = []string{p.AddPrimaryKey}
		}
		for _, phase := range []struct {
			name  string
			stmts []string
		}{{"create", p.Create}, {"snapshot create (keyless)", p.CreateKeyless},
			{"snapshot primary key (after the data)", addKey}, {"post-data", p.PostData}, {"foreign keys", p.ForeignKeys}, {"finish", p.Finish}} {
			fmt.Fprintf(&out, "-- %s\n", phase.name)
			for _, s := range phase.stmts {
				fmt.Fprintf(&out, "%s;\n", s)
			}
		}
		for _, w := range p.Warnings {
			fmt.Fprintf(&out, "-- warning: %s\n", w)
		}
		fmt.Fprintf(&out, "-- writable columns: %v\n\n", ddl.WritableColumns(tb))
	}
	golden(t, filepath.Join("testdata", "create_table.golden"), out.String())
}
