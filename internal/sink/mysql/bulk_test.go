package mysql

import (
	"strings"
	"testing"
)

const showCreateFixture = "CREATE TABLE `child` (\n" +
	"  `id` bigint(20) NOT NULL AUTO_INCREMENT,\n" +
	"  `parent_id` int(11) NOT NULL,\n" +
	"  `note` text DEFAULT NULL COMMENT 'ENGINE=MyISAM is not an option here',\n" +
	"  PRIMARY KEY (`id`),\n" +
	"  KEY `child_parent` (`parent_id`),\n" +
	"  CONSTRAINT `child_parent` FOREIGN KEY (`parent_id`) REFERENCES `parent` (`id`) ON DELETE CASCADE\n" +
	") ENGINE=InnoDB AUTO_INCREMENT=101 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"

func TestRetargetKeepsTheDefinition(t *testing.T) {
	mt, err := retarget(showCreateFixture, "app.child", "replica", "child", "")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(showCreateFixture, "CREATE TABLE `child`", "CREATE TABLE `replica`.`child`", 1)
	if mt.create != want {
		t.Errorf("create:\n%s\nwant:\n%s", mt.create, want)
	}
	if strings.Contains(mt.def, "AUTO_INCREMENT=") || !strings.Contains(mt.def, "CREATE TABLE `child`") || len(mt.warnings) != 0 {
		t.Errorf("def:\n%s\nwarnings %v", mt.def, mt.warnings)
	}
}

func TestRetargetRocksDB(t *testing.T) {
	mt, err := retarget(showCreateFixture, "app.child", "replica", "child", "ROCKSDB")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(mt.create, "FOREIGN KEY") || !strings.Contains(mt.create, "KEY `child_parent` (`parent_id`)\n) ENGINE=ROCKSDB AUTO_INCREMENT=101") {
		t.Errorf("create:\n%s", mt.create)
	}
	if !strings.Contains(mt.create, "COMMENT 'ENGINE=MyISAM is not an option here'") {
		t.Errorf("a column comment was rewritten:\n%s", mt.create)
	}
	if len(mt.warnings) != 1 || !strings.Contains(mt.warnings[0], "CONSTRAINT `child_parent` FOREIGN KEY") {
		t.Errorf("warnings %v, want the left-out foreign key named", mt.warnings)
	}
	ft := "CREATE TABLE `doc` (\n  `id` int(11) NOT NULL,\n  `body` text,\n  PRIMARY KEY (`id`),\n  FULLTEXT KEY `body` (`body`)\n) ENGINE=InnoDB"
	if _, err := retarget(ft, "app.doc", "replica", "doc", "ROCKSDB"); err == nil || !strings.Contains(err.Error(), "FULLTEXT KEY `body`") {
		t.Errorf("FULLTEXT into ROCKSDB: %v, want a refusal naming the index", err)
	}
	if _, err := retarget(ft, "app.doc", "replica", "doc", ""); err != nil {
		t.Errorf("FULLTEXT into the source's engine: %v", err)
	}
}

func TestInserterBatchesAndEscapes(t *testing.T) {
	var stmts []string
	in := &inserter{head: "INSERT INTO t (a, b, c) VALUES ", modes: []litMode{litNumber, litBytes, litJSON}, limit: 120,
		exec: func(s string) error { stmts = append(stmts, s); return nil }}
	rows := [][][]byte{
		{[]byte("-12"), []byte("a'b\\c\x00\n\r\x1a"), []byte(`{"k": "é"}`)},
		{[]byte("7"), nil, nil},
		{[]byte("1.5"), []byte(strings.Repeat("x", 100)), []byte("[]")}, // larger than the limit alone
		{[]byte("8"), []byte(""), nil},
	}
	for _, r := range rows {
		if err := in.add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.flush(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`INSERT INTO t (a, b, c) VALUES (-12,_binary'a\'b\\c\0\n\r\Z',CONVERT(_binary'{"k": "é"}' USING utf8mb4)),(7,NULL,NULL)`,
		`INSERT INTO t (a, b, c) VALUES (_binary'1.5',_binary'` + strings.Repeat("x", 100) + `',CONVERT(_binary'[]' USING utf8mb4))`,
		`INSERT INTO t (a, b, c) VALUES (8,_binary'',NULL)`,
	}
	if strings.Join(stmts, "\n") != strings.Join(want, "\n") {
		t.Errorf("statements:\n%s\nwant:\n%s", strings.Join(stmts, "\n"), strings.Join(want, "\n"))
	}
}
