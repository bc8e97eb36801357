-- sluice DDL corpus (internal/ddl/testdata/corpus/build): table DDL from other projects' test suites,
-- one statement a line, each accepted by MariaDB 10.11 in this order (a line "-- mysql 9.7 rejects"
-- before one says MySQL 9.7 did not); "DROP TABLE" lines before a CREATE of a name already
-- taken were added by the build, since those origins' statements are independent.

-- group: mariadb_innodb_instant_alter.test
-- origin: github.com/MariaDB/server mysql-test/suite/innodb/t/instant_alter.test (00372075, its DDL, $engine as ENGINE=InnoDB ROW_FORMAT=DYNAMIC)
CREATE TABLE t(a INT UNIQUE)ENGINE=InnoDB ROW_FORMAT=COMPACT;
ALTER TABLE t ADD e INT, ROW_FORMAT=DYNAMIC;
ALTER TABLE t ADD b INT NOT NULL, ALGORITHM=COPY;
ALTER TABLE t ADD c INT NOT NULL, FORCE;
ALTER TABLE t ADD d INT NOT NULL;
DROP TABLE t;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'ST_GeomFromText('POINT(3 4)'), SPATIAL INDEX(c3)) ENGINE=InnoDB ROW_FORMAT=DYNAM' at line 1
CREATE TABLE t1 (id INT PRIMARY KEY, c2 INT UNIQUE, c3 POINT NOT NULL DEFAULT ST_GeomFromText('POINT(3 4)'), SPATIAL INDEX(c3)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN ( d1 INT, d2 INT UNSIGNED DEFAULT 10, d3 VARCHAR(20) NOT NULL DEFAULT 'abcde', d4 TIMESTAMP NOT NULL DEFAULT current_timestamp());
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD INDEX(d3);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 CHANGE d1 d1 INT DEFAULT 5, CHANGE d2 d2 INT DEFAULT 15, CHANGE d3 d3 VARCHAR(20) NOT NULL DEFAULT 'fghij', CHANGE d4 dfour TIMESTAMP NOT NULL DEFAULT now();
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN e1 INT AS (id * 3);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN e2 VARCHAR(30) AS (d3);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN e3 INT AS (id * 2);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 CHANGE d3 d3 VARCHAR(20) NOT NULL DEFAULT 'foobar', ADD COLUMN (d5 CHAR(20) DEFAULT 'hijkl', d6 INT DEFAULT -12345, d7 INT), DROP INDEX d3;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN (f1 VARCHAR(20) AS (concat('x', e2)) STORED);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 ADD COLUMN (d8 VARCHAR(20) DEFAULT 'omnopq');
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 CHANGE c2 c2 INT DEFAULT 42, CHANGE d1 d1 INT DEFAULT 1, CHANGE d2 d2 INT DEFAULT 20, CHANGE d3 d3 VARCHAR(20) NOT NULL DEFAULT 'boofar';
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t1' doesn't exist
ALTER TABLE t1 DROP c3;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'ST_GeomFromText('LINESTRING(0 0,0 1,1 1)'), SPATIAL INDEX(p)) ENGINE=InnoDB ROW_' at line 1
CREATE TABLE t2 (id INT primary key, c1 VARCHAR(4000), p GEOMETRY NOT NULL DEFAULT ST_GeomFromText('LINESTRING(0 0,0 1,1 1)'), SPATIAL INDEX(p)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'REPEAT('asdf',500)' at line 1
ALTER TABLE t2 ADD COLUMN d1 VARCHAR(2000) DEFAULT REPEAT('asdf',500);
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t2' doesn't exist
ALTER TABLE t2 DROP p;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'ST_PolyFromText('POLYGON((1 1,2 2,3 3,1 1))'), SPATIAL INDEX(c3)) ENGINE=InnoDB ' at line 1
CREATE TABLE t3 (id INT PRIMARY KEY, c2 INT UNSIGNED NOT NULL UNIQUE, c3 POLYGON NOT NULL DEFAULT ST_PolyFromText('POLYGON((1 1,2 2,3 3,1 1))'), SPATIAL INDEX(c3)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t3' doesn't exist
ALTER TABLE t3 ADD COLUMN (c4 DATETIME DEFAULT current_timestamp(), c5 TIMESTAMP NOT NULL DEFAULT current_timestamp(), c6 POINT);
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'c7'
ALTER TABLE t3 ADD COLUMN c7 TIME NOT NULL DEFAULT current_timestamp();
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'c8'
ALTER TABLE t3 ADD COLUMN c8 DATE NOT NULL DEFAULT current_timestamp();
-- mysql 9.7 rejects: Error 1101 (42000): BLOB, TEXT, GEOMETRY or JSON column 't' can't have a default value
ALTER TABLE t3 ADD COLUMN t TEXT CHARSET utf8 DEFAULT 'The quick brown fox jumps over the lazy dog';
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t3' doesn't exist
ALTER TABLE t3 ADD COLUMN b BLOB NOT NULL;
-- mysql 9.7 rejects: Error 1101 (42000): BLOB, TEXT, GEOMETRY or JSON column 'phrase' can't have a default value
ALTER TABLE t3 CHANGE t phrase TEXT DEFAULT 0xc3a4c3a448, CHANGE b b BLOB NOT NULL DEFAULT 'binary line of business';
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t3' doesn't exist
ALTER TABLE t3 DROP c3, DROP c7;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'ST_GeomFromText('LINESTRING(0 0,0 1,1 1)'), PRIMARY KEY(id,foo)) ENGINE=InnoDB R' at line 1
CREATE TABLE t4 (id INT, foo INT DEFAULT 0, c1 VARCHAR(4000), p GEOMETRY NOT NULL DEFAULT ST_GeomFromText('LINESTRING(0 0,0 1,1 1)'), PRIMARY KEY(id,foo)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.t4' doesn't exist
ALTER TABLE t4 ADD COLUMN d1 INT;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'ST_GeomFromText('POINT(0 0)'), SPATIAL INDEX(p)) ENGINE=InnoDB ROW_FORMAT=DYNAMI' at line 1
CREATE TABLE big (id INT PRIMARY KEY, c1 VARCHAR(4000), c2 VARCHAR(4000), c3 VARCHAR(1000), p POINT NOT NULL DEFAULT ST_GeomFromText('POINT(0 0)'), SPATIAL INDEX(p)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.big' doesn't exist
ALTER TABLE big ADD COLUMN (d1 INT DEFAULT 0, d2 VARCHAR(20) DEFAULT 'abcde', d3 TIMESTAMP NOT NULL DEFAULT current_timestamp ON UPDATE current_timestamp);
-- mysql 9.7 rejects: Error 1051 (42S02): Unknown table 'zz_sluice_ddlcorpus_build.t1,zz_sluice_ddlcorpus_build.t2,zz_sluice_ddlcorpus_build.t3,zz_sluice_ddlcorpus_build.t4,zz_sluice_ddl'
DROP TABLE t1,t2,t3,t4,big;
CREATE TABLE t1 (a VARCHAR(1) PRIMARY KEY) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN b INT NOT NULL DEFAULT 0;
DROP TABLE t1;
CREATE TABLE t1 (a INT, b VARCHAR(8), PRIMARY KEY(b,a)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN c INT;
DROP TABLE t1;
CREATE TABLE t1 (a INT PRIMARY KEY) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE t2 (b INT PRIMARY KEY, FOREIGN KEY(b) REFERENCES t1(a)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t2 ADD COLUMN a INT, DROP FOREIGN KEY t2_ibfk_1;
ALTER TABLE t2 ADD INDEX(a);
DROP TABLE t2, t1;
CREATE TABLE t1 (a INT PRIMARY KEY) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN b TEXT;
DROP TABLE t1;
CREATE TABLE t1 (a INT, b INT UNIQUE) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP a, ADD COLUMN a INT;
DROP TABLE t1;
CREATE TABLE t1 (a INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN b INT FIRST, ADD COLUMN c INT AFTER b;
DROP TABLE t1;
CREATE TABLE t1 (t TEXT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN a INT FIRST;
DROP TABLE t1;
CREATE TABLE t1 (t TEXT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP COLUMN t, ADD COLUMN i INT NOT NULL DEFAULT 1;
ALTER TABLE t1 ADD COLUMN t TEXT;
DROP TABLE t1;
CREATE TABLE t1 (a INT AUTO_INCREMENT, b INT, KEY(a)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP COLUMN b;
ALTER TABLE t1 ADD COLUMN c INT NOT NULL DEFAULT 42;
DROP TABLE t1;
CREATE TABLE t1 (i INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN b BIT FIRST;
ALTER TABLE t1 ADD COLUMN v INT AS (i) VIRTUAL;
DROP TABLE t1;
CREATE TABLE t1 (ts TIMESTAMP) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN f VARCHAR(8), ADD COLUMN dt DATETIME;
ALTER TABLE t1 ADD COLUMN b BIT, DROP COLUMN f, ADD COLUMN t TIME FIRST;
ALTER TABLE t1 ADD COLUMN ts2 TIMESTAMP;
DROP TABLE t1;
CREATE TABLE t1 (f1 INT, f2 INT, f3 INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP f1, DROP f2, ADD f4 INT, ADD f5 INT;
ALTER TABLE t1 DROP COLUMN f4;
DROP TABLE t1;
CREATE TABLE t1 (f1 INT, f2 INT, f3 INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP f2, ADD COLUMN f4 INT;
ALTER TABLE t1 DROP f4;
ALTER TABLE t1 DROP f1;
DROP TABLE t1;
CREATE TABLE t1 (id INT NOT NULL AUTO_INCREMENT, f INT, KEY(id)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP COLUMN id;
ALTER TABLE t1 ADD COLUMN id INT NOT NULL AUTO_INCREMENT FIRST, ADD KEY(id);
DROP TABLE t1;
CREATE TABLE t1 ( pk INT PRIMARY KEY, f1 INT, f2 CHAR(255), f3 BIGINT, f4 INT, f5 CHAR(255), f6 CHAR(255), f7 CHAR(255) NOT NULL, f8 INT, f9 CHAR(10) ) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP COLUMN f1;
DROP TABLE t1;
CREATE TABLE t1 (f1 VARCHAR(1), f2 VARCHAR(2)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 MODIFY f2 VARCHAR (8) FIRST;
DROP TABLE t1;
CREATE TABLE t1 (a INT UNIQUE, b INT UNIQUE, PRIMARY KEY(a,b)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 DROP PRIMARY KEY;
ALTER TABLE t1 CHANGE COLUMN a a INT;
DROP TABLE t1;
CREATE TABLE t1 (a INT, b INT, c INT NOT NULL, d INT, e INT, f INT, g INT, h INT, j INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 MODIFY COLUMN c INT, MODIFY COLUMN a INT AFTER b;
DROP TABLE t1;
CREATE TABLE t1 (a INT NOT NULL) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
ALTER TABLE t1 ADD COLUMN b INT;
ALTER TABLE t1 MODIFY COLUMN a INT NULL;

-- group: mariadb_main_alter_table.test
-- origin: github.com/MariaDB/server mysql-test/main/alter_table.test (03acdd67, the DDL of the first 48,000 characters)
create table t1 ( col1 int not null auto_increment primary key, col2 varchar(30) not null, col3 varchar (20) not null, col4 varchar(4) not null, col5 enum('PENDING', 'ACTIVE', 'DISABLED') not null, col6 int not null, to_be_deleted int);
alter table t1 add column col4_5 varchar(20) not null after col4, add column col7 varchar(30) not null after col5, add column col8 datetime not null, drop column to_be_deleted, change column col2 fourth varchar(30) not null after col3, modify column col6 int not null first;
DROP TABLE t1;
create table t1 (bandID MEDIUMINT UNSIGNED NOT NULL PRIMARY KEY, payoutID SMALLINT UNSIGNED NOT NULL);
alter table t1 add column new_col int, order by payoutid,bandid;
alter table t1 order by bandid,payoutid;
DROP TABLE t1;
CREATE TABLE t1 ( GROUP_ID int(10) unsigned DEFAULT '0' NOT NULL, LANG_ID smallint(5) unsigned DEFAULT '0' NOT NULL, NAME varchar(80) DEFAULT '' NOT NULL, PRIMARY KEY (GROUP_ID,LANG_ID), KEY NAME (NAME));
ALTER TABLE t1 CHANGE NAME NAME CHAR(80) not null;
DROP TABLE t1;
create table t1 (n int);
alter table t1 order by n;
DROP TABLE t1;
CREATE TABLE t1 ( id int(11) unsigned NOT NULL default '0', category_id tinyint(4) unsigned NOT NULL default '0', type_id tinyint(4) unsigned NOT NULL default '0', body text NOT NULL, user_id int(11) unsigned NOT NULL default '0', status enum('new','old') NOT NULL default 'new', PRIMARY KEY (id) ) ENGINE=MyISAM;
ALTER TABLE t1 ORDER BY t1.id, t1.status, t1.type_id, t1.user_id, t1.body;
DROP TABLE t1;
CREATE TABLE t1 (AnamneseId int(10) unsigned NOT NULL auto_increment,B BLOB,PRIMARY KEY (AnamneseId)) engine=myisam;
ALTER TABLE t1 ADD Column new_col int not null;
DROP TABLE t1;
create table t1 (i int unsigned not null auto_increment primary key);
alter table t1 drop i,add i int unsigned not null auto_increment, drop primary key, add primary key (i);
DROP TABLE t1;
create table t1 (name char(15));
DROP TABLE t1;
create table t1 (n1 int not null, n2 int, n3 int, n4 float, unique(n1), key (n1, n2, n3, n4), key (n2, n3, n4, n1), key (n3, n4, n1, n2), key (n4, n1, n2, n3) );
alter table t1 disable keys;
alter table t1 enable keys;
DROP TABLE t1;
create table t1 (i int unsigned not null auto_increment primary key);
alter table t1 rename t2;
alter table t2 rename t1, add c char(10) comment "no comment";
DROP TABLE t1;
create table t1 (a int, b int);
alter table t1 add unique (a,b), add key (b);
DROP TABLE t1;
CREATE TABLE t1 (i int(10), index(i) ) ENGINE=MyISAM;
DROP TABLE t1;
CREATE TABLE t1 ( Host varchar(16) binary NOT NULL default '', User varchar(16) binary NOT NULL default '', PRIMARY KEY (Host,User) ) ENGINE=MyISAM;
DROP TABLE t1;
CREATE TABLE t1 ( Host varchar(16) binary NOT NULL default '', User varchar(16) binary NOT NULL default '', PRIMARY KEY (Host,User), KEY (Host) ) ENGINE=MyISAM;
DROP TABLE t1;
CREATE TABLE t1 ( Host varchar(16) binary NOT NULL default '', User varchar(16) binary NOT NULL default '', PRIMARY KEY (Host,User), KEY (Host) ) ENGINE=MyISAM;
DROP TABLE t1;
create table t1 (a int);
DROP TABLE t1;
create table t1 (a int, b int, c int, d int, e int, f int, g int, h int,i int, primary key (a,b,c,d,e,f,g,i,h)) engine=MyISAM;
alter table t1 modify a int;
DROP TABLE t1;
create table t1 (a int not null, b int not null, c int not null, d int not null, e int not null, f int not null, g int not null, h int not null,i int not null, primary key (a,b,c,d,e,f,g,i,h)) engine=MyISAM;
DROP TABLE t1;
create table t1 (a char(10) character set koi8r);
alter table t1 change a a char(10) character set cp1251;
alter table t1 change a a binary(4);
alter table t1 change a a char(10) character set koi8r;
alter table t1 change a a varchar(10) character set cp1251;
alter table t1 change a a text character set cp1251;
alter table t1 DEFAULT CHARACTER SET latin1;
alter table t1 CONVERT TO CHARACTER SET latin1;
alter table t1 DEFAULT CHARACTER SET cp1251;
DROP TABLE t1;
create table t1 (myblob longblob,mytext longtext) default charset latin1 collate latin1_general_cs;
alter table t1 character set latin2;
DROP TABLE t1;
CREATE TABLE t1 (a int PRIMARY KEY, b INT UNIQUE);
DROP TABLE t1;
create table t1 (a int, b int, key(a));
alter table t1 drop key a;
DROP TABLE t1;
create table t1 (a text) character set koi8r;
alter table t1 convert to character set cp1251;
DROP TABLE t1;
create table t1 ( a timestamp );
drop table if exists t1;
create table t1 (a int, key(a));
alter table t1 modify a int, disable keys;
alter table t1 modify a bigint, disable keys;
alter table t1 add b char(10), disable keys;
alter table t1 add c decimal(10,2), enable keys;
alter table t1 add d decimal(15,5);
DROP TABLE t1;
create table t1(a int, b char(10), unique(a));
alter table t1 modify a bigint;
DROP TABLE t1;
create table t1(a int, b char(10), unique(a), key(b));
DROP TABLE t1;
DROP TABLE IF EXISTS bug24219;
DROP TABLE IF EXISTS bug24219_2;
CREATE TABLE bug24219 (a INT, INDEX(a));
ALTER TABLE bug24219 RENAME TO bug24219_2, DISABLE KEYS;
DROP TABLE bug24219_2;
drop table if exists table_24562;
create table table_24562( section int, subsection int, title varchar(50));
alter table table_24562 add column reviewer varchar(20), order by title;
alter table table_24562 order by section ASC, subsection DESC;
alter table table_24562 order by table_24562.subsection ASC, table_24562.section DESC;
drop table table_24562;
create table t1 (mycol int(10) not null);
alter table t1 alter column mycol set default 0;
DROP TABLE t1;
create table t1(id int(8) primary key auto_increment) engine=heap;
alter table t1 auto_increment = 50;
alter table t1 engine = myisam;
alter table t1 engine = heap;
DROP TABLE t1;
create table t1(f1 int);
alter table t1 add column f2 datetime not null, add column f21 date not null;
alter table t1 add column f4 datetime not null default '2002-02-02', add column f41 date not null default '2002-02-02';
DROP TABLE t1;
create table t1 (v varchar(32));
alter table t1 change v v2 varchar(32);
alter table t1 change v2 v varchar(64);
alter table t1 add i int auto_increment not null primary key first;
alter table t1 change i i bigint;
alter table t1 add unique key (i, v);
DROP TABLE t1;
create table t1 (t varchar(255) default null, key t (t(80))) engine=myisam default charset=latin1;
alter table t1 change t t text;
DROP TABLE t1;
CREATE TABLE t1 (a varchar(500));
ALTER TABLE t1 ADD b GEOMETRY NOT NULL, ADD SPATIAL INDEX(b);
-- mysql 9.7 rejects: Error 1089 (HY000): Incorrect prefix key; the used key part isn't a string, the used length is longer than the key part, or the storage engine doesn't support unique prefix keys
ALTER TABLE t1 ADD KEY(b(50));
ALTER TABLE t1 ADD c POINT;
ALTER TABLE t1 ADD d INT;
DROP TABLE t1;
CREATE TABLE t1 (s CHAR(8) BINARY);
ALTER TABLE t1 MODIFY s CHAR(10) BINARY;
DROP TABLE t1;
CREATE TABLE t1 (s BINARY(8));
ALTER TABLE t1 MODIFY s BINARY(10);
DROP TABLE t1;
CREATE TABLE t1 (v VARCHAR(3), b INT);
ALTER TABLE t1 MODIFY COLUMN v VARCHAR(4);
DROP TABLE t1;
create table t1 (a tinytext character set latin1);
alter table t1 convert to character set utf8;
DROP TABLE t1;
create table t1 (a mediumtext character set latin1);
drop table if exists t1, t2, t3;
create table t1 (i int);
create table t3 (j int);
alter table t1 modify i int default 1;
alter table t1 change i c char(10) default "Two";
alter table t1 modify c char(10) default "Three", rename to t2;
alter table t2 change c vc varchar(100) default "Four", rename to t1;
drop tables t1, t3;
DROP TABLE IF EXISTS `t+1`, `t+2`;
CREATE TABLE `t+1` (c1 INT);
ALTER TABLE `t+1` RENAME `t+2`;
CREATE TABLE `t+1` (c1 INT);
DROP TABLE `t+1`, `t+2`;
CREATE TABLE `#sql1` (c1 INT);
CREATE TABLE `@0023sql2` (c1 INT);
RENAME TABLE `#sql1` TO `@0023sql1`;
RENAME TABLE `@0023sql2` TO `#sql2`;
ALTER TABLE `@0023sql1` RENAME `#sql-1`;
ALTER TABLE `#sql2` RENAME `@0023sql-2`;
DROP TABLE `#sql-1`, `@0023sql-2`;
DROP TABLE IF EXISTS t2;
CREATE TABLE t1 ( int_field INTEGER UNSIGNED NOT NULL, char_field CHAR(10), INDEX(`int_field`) );
ALTER TABLE t1 CHANGE int_field unsigned_int_field INTEGER UNSIGNED NOT NULL, RENAME t2;
ALTER TABLE t2 MODIFY unsigned_int_field BIGINT UNSIGNED NOT NULL;
CREATE TABLE t1 (f1 INT, f2 INT, f3 INT);
ALTER TABLE t1 MODIFY COLUMN f3 INT AFTER f1;
ALTER TABLE t1 MODIFY COLUMN f3 INT AFTER f2;
DROP TABLE t1;
create table t1 (c char(10) default "Two");
alter table t1 modify c char(10) default "Three";
DROP TABLE t1;
CREATE TABLE t1 (id int, c int) character set latin1;
ALTER TABLE t1 CHANGE c d int;
ALTER TABLE t1 CHANGE d c int;
ALTER TABLE t1 MODIFY c VARCHAR(10);
ALTER TABLE t1 CHANGE c d varchar(10);
ALTER TABLE t1 CHANGE d c varchar(10);
DROP TABLE t1;
CREATE TABLE t1 (id int, c int) character set utf8;
DROP TABLE t1;
create table t1(f1 int not null, f2 int not null, key (f1), key (f2));
alter table t1 pack_keys=1;
alter table t1 max_rows=100;
DROP TABLE t1;
CREATE TABLE t1(a INT AUTO_INCREMENT PRIMARY KEY, b ENUM('a', 'b', 'c') NOT NULL);
ALTER TABLE t1 MODIFY b ENUM('a', 'z', 'b', 'c') NOT NULL;
DROP TABLE t1;
CREATE TABLE t1 (a int NOT NULL default 42);
ALTER TABLE t1 ALTER COLUMN a DROP DEFAULT;
DROP TABLE t1;
CREATE TABLE t1 (a ENUM('a1','a2'));
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2');
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a3');
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','xx','a5');
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','xx');
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a0','xx');
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a0','xx','a5','a6');
DROP TABLE t1;
CREATE TABLE t1 (a SET('a1','a2'));
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a3');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','xx','a5');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','xx');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx','a5','a6');
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx','a5','a6','a7','a8','a9','a10');
DROP TABLE t1;
CREATE TABLE t1 (f1 TIMESTAMP NULL DEFAULT NULL, f2 INT(11) DEFAULT NULL) ENGINE=MYISAM DEFAULT CHARSET=utf8;
ALTER TABLE t1 CHANGE COLUMN f1 f1_no_real_change TIMESTAMP NULL DEFAULT NULL;
DROP TABLE t1;
CREATE TABLE t1 (a TEXT, id INT, b INT);
ALTER TABLE t1 DROP COLUMN a, ADD COLUMN c TEXT FIRST;
DROP TABLE t1;
create table t1 (i int, j int) engine=myisam;
alter table t1 modify column j int first;
alter table t1 drop column i, add column k int default 0;
DROP TABLE t1;
CREATE TABLE t1(c CHAR(10), i INT UNSIGNED AUTO_INCREMENT NOT NULL PRIMARY KEY);
ALTER TABLE t1 DROP i, ADD i INT UNSIGNED NOT NULL AUTO_INCREMENT, AUTO_INCREMENT = 1;
DROP TABLE t1;
CREATE TABLE t1 (a CHAR(1));
DROP TABLE t1;
CREATE TABLE t1 (id int);
ALTER TABLE t1 ADD COLUMN (f1 INT), ADD COLUMN (f2 INT), ADD KEY f2k(f2);
