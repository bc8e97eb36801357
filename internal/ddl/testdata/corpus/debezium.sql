-- sluice DDL corpus (internal/ddl/testdata/corpus/build): table DDL from other projects' test suites,
-- one statement a line, each accepted by MariaDB 10.11 in this order (a line "-- mysql 9.7 rejects"
-- before one says MySQL 9.7 did not); "DROP TABLE" lines before a CREATE of a name already
-- taken were added by the build, since those origins' statements are independent.

-- group: debezium/examples/ddl_alter.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mariadb/examples/fast/ddl_alter.sql
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'IF EXISTS T1 MODIFY COLUMN IF EXISTS status ENUM ('PENDING', 'SENDING', 'SENT', ' at line 1
ALTER TABLE IF EXISTS T1 MODIFY COLUMN IF EXISTS status ENUM ('PENDING', 'SENDING', 'SENT', 'SUCCESS', 'FAILED', 'FATAL') NOT NULL, RENAME COLUMN IF EXISTS col TO new_col;

-- group: debezium/examples/ddl_create.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mariadb/examples/fast/ddl_create.sql
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'row varchar(512))' at line 1
create table log_table(row varchar(512));
create table new_t (c national char);
create table ships(name varchar(255), class_id int, id int);
create table ships_guns(guns_id int, ship_id int);
create table guns(id int, power decimal(7,2), callibr decimal(10,3));
create table ship_class(id int, class_name varchar(100), tonange decimal(10,2), max_length decimal(10,2), start_build year, end_build year(4), max_guns_size int);
create table `parent_table`(id int primary key, column1 varchar(30), index parent_table_i1(column1(20)), check(char_length(column1)>10)) engine InnoDB;
create table child_table(id int unsigned auto_increment primary key, id_parent int references parent_table(id) match full on update cascade on delete set null) engine=InnoDB;
create table `actor` (`last_update` timestamp default CURRENT_TIMESTAMP, `birthday` datetime default CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP);
create table boolean_table(c1 bool, c2 boolean default true);
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'default' at line 1
create table table_with_character_set_eq (id int, data varchar(50)) character set = default;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'default' at line 1
create table table_with_character_set (id int, data varchar(50)) character set default;
create table table_with_visible_index (id int, data varchar(50), UNIQUE INDEX `data_UNIQUE` (`data` ASC) VISIBLE);
create table table_with_index (id int, data varchar(50), UNIQUE INDEX `data_UNIQUE` (`data` ASC));
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'transactional=1' at line 1
create table transactional_table(name varchar(255), class_id int, id int) transactional=1;
create table transactional(name varchar(255), class_id int, id int);
create table add_test(col1 varchar(255), col2 int, col3 int);
create table blob_test(id int, col1 blob(45));
create table žluťoučký (kůň int);
CREATE TABLE staff (PRIMARY KEY (staff_num), staff_num INT(5) NOT NULL, first_name VARCHAR(100) NOT NULL, pens_in_drawer INT(2) NOT NULL, CONSTRAINT pens_in_drawer_range CHECK(pens_in_drawer BETWEEN 1 AND 99));
create table column_names_as_aggr_funcs(min varchar(100), max varchar(100), sum varchar(100), count varchar(100));
CREATE TABLE char_table (c1 CHAR VARYING(10), c2 CHARACTER VARYING(10), c3 NCHAR VARYING(10));
create table invisible_column_test(id int, col1 int INVISIBLE);
create table statement(id int);
CREATE TABLE table_items (id INT, purchased DATE) PARTITION BY RANGE( YEAR(purchased) ) SUBPARTITION BY HASH( TO_DAYS(purchased) ) SUBPARTITIONS 2 ( PARTITION p0 VALUES LESS THAN (1990), PARTITION p1 VALUES LESS THAN (2000), PARTITION p2 VALUES LESS THAN MAXVALUE );
CREATE TABLE table_items_with_subpartitions (id INT, purchased DATE) PARTITION BY RANGE( YEAR(purchased) ) SUBPARTITION BY HASH( TO_DAYS(purchased) ) ( PARTITION p0 VALUES LESS THAN (1990) ( SUBPARTITION s0, SUBPARTITION s1 ), PARTITION p1 VALUES LESS THAN (2000) ( SUBPARTITION s2, SUBPARTITION s3 ), PARTITION p2 VALUES LESS THAN MAXVALUE ( SUBPARTITION s4, SUBPARTITION s5 ) );
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'DEFAULT ENGINE = InnoDB )' at line 1
CREATE TABLE positions_rollover ( id bigint(20) NOT NULL AUTO_INCREMENT, time datetime NOT NULL, partition_index int(10) unsigned NOT NULL DEFAULT 0, PRIMARY KEY (id,partition_index), KEY time (time) ) ENGINE=InnoDB DEFAULT CHARSET=utf8 PARTITION BY LIST (partition_index) ( PARTITION positions_rollover_partition VALUES IN (0) ENGINE = InnoDB, PARTITION default_positions_rollover_partition DEFAULT ENGINE = InnoDB );
CREATE TABLE CustomerTable ( table_type varchar(5) );
CREATE TABLE `daily_intelligences`( `id` bigint(20) NOT NULL AUTO_INCREMENT COMMENT '', `partner_code` varchar(32) DEFAULT NULL COMMENT '', `text` LONGTEXT DEFAULT NULL COMMENT '', `monitor_time` TIMESTAMP DEFAULT NULL COMMENT '', `gmt_modify` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP COMMENT '', `gmt_create` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP COMMENT '', PRIMARY KEY (`id`) ) ENGINE=innodb DEFAULT CHAR SET=utf8 COMMENT '';
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'CAST(CURRENT_TIMESTAMP() as DATE) COMMENT 'error test', PRIMARY KEY (`id`) ) ENG' at line 1
CREATE TABLE `t_test_curdate` ( `id` int(11) NOT NULL AUTO_INCREMENT, `c1` datetime NOT NULL DEFAULT CAST(CURRENT_TIMESTAMP() as DATE) COMMENT 'error test', PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- mysql 9.7 rejects: Error 1051 (42S02): Unknown table 'zz_sluice_ddlcorpus_build.t_test_curdate'
DROP TABLE `t_test_curdate`;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'CURDATE() COMMENT 'error test', PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARS' at line 1
CREATE TABLE `t_test_curdate` ( `id` int(11) NOT NULL AUTO_INCREMENT, `c1` datetime NOT NULL DEFAULT CURDATE() COMMENT 'error test', PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'TABLE `t_table` ( `info_no` int(11) unsigned NOT NULL AUTO_INCREMENT, `product_n' at line 1
CREATE OR REPLACE TABLE `t_table` ( `info_no` int(11) unsigned NOT NULL AUTO_INCREMENT, `product_no` int(11) unsigned NOT NULL, `member_id` varchar(30) COLLATE utf8mb4_unicode_ci NOT NULL, `app_url` varchar(500) COLLATE utf8mb4_unicode_ci DEFAULT NULL, `redirect_url` varchar(200) COLLATE utf8mb4_unicode_ci DEFAULT NULL, `scope` varchar(200) COLLATE utf8mb4_unicode_ci DEFAULT NULL, PRIMARY KEY (`info_no`), UNIQUE KEY `UN_member_id` (`member_id`) USING BTREE, UNIQUE KEY `UN_product_no` (`product_no`) USING BTREE ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'unix_timestamp())' at line 1
CREATE TABLE `table_default_fn`(`quote_id` varchar(32) NOT NULL,`created_at` bigint(20) NOT NULL DEFAULT unix_timestamp());
create table `site_checker_b_sonet_group_favorites` ( USER_ID int(11) not null, GROUP_ID int(11) not null, DATE_ADD datetime DEFAULT NULL, primary key (USER_ID, GROUP_ID) );
CREATE TABLE `test_table\\`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
CREATE TABLE `\\test_table`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
CREATE TABLE `\\test\\_table\\`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'IF EXISTS EMPLOYEE TO employee' at line 1
RENAME TABLE IF EXISTS EMPLOYEE TO employee;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'IF EXISTS TABLE11 to TABLE12, TABLE21 to TABLE22' at line 1
RENAME TABLES IF EXISTS TABLE11 to TABLE12, TABLE21 to TABLE22;
create index ix_add_test_col1 on add_test(col1) comment 'test index' using btree;
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'PAGE_CHECKSUM=1 TRANSACTIONAL=1 COMMENT='Users and global privileges'' at line 1
CREATE TABLE `global_priv` ( `Host` CHAR(60) COLLATE utf8_bin NOT NULL DEFAULT '', `User` CHAR(80) COLLATE utf8_bin NOT NULL DEFAULT '', `Privilege` LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '{}' CHECK (json_valid(`Privilege`)), PRIMARY KEY (`Host`,`User`) ) ENGINE=Aria DEFAULT CHARSET=utf8 COLLATE=utf8_bin PAGE_CHECKSUM=1 TRANSACTIONAL=1 COMMENT='Users and global privileges';
CREATE TABLE `tab1` ( f4 FLOAT4, f8 FLOAT8, i1 INT1, i2 INT2, i3 INT3, i4 INT4, i8 INT8, lvb LONG VARBINARY, lvc LONG VARCHAR, lvcfull LONG BINARY CHARSET utf8 COLLATE utf8_bin, l LONG, mi MIDDLEINT ) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- group: debezium/examples/ext_tests.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mariadb/examples/fast/ext_tests.sql
create table t1(col1 binary(20));
create table t2(col varchar(10) binary character set cp1251);
DROP TABLE t2;
create table t2(col varchar(10) binary character set binary);

-- group: debezium/examples/smoke_tests.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mariadb/examples/fast/smoke_tests.sql
create table t1(col1 binary(20));
create table t2(col varchar(10) binary character set cp1251);
DROP TABLE t2;
create table t2(col varchar(10) binary character set binary);

-- group: debezium/mariadb/function_call_default_without_parentheses.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mariadb/examples/function_call_default_without_parentheses.sql
-- mysql 9.7 rejects: Error 1064 (42000): You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'UUID())' at line 1
CREATE TABLE t1 (id INT, uid VARCHAR(36) DEFAULT UUID());

-- group: debezium/mysql/aggregate_function_names_as_identifiers.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mysql/examples/aggregate_function_names_as_identifiers.sql
CREATE TABLE t1 (sum INT, count INT, avg INT, min INT, max INT);

-- group: debezium/mysql/ddl_create.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mysql/examples/ddl_create.sql
create table ships(name varchar(255), class_id int, id int);
create table ships_guns(guns_id int, ship_id int);
create table guns(id int, power decimal(7,2), callibr decimal(10,3));
create table ship_class(id int, class_name varchar(100), tonange decimal(10,2), max_length decimal(10,2), start_build year, end_build year(4), max_guns_size int);
create table quengine(id int auto_increment key, class varchar(10), data binary) engine='InnoDB';
DROP TABLE quengine;
create table quengine(id int auto_increment key, class varchar(10), data binary) engine="Memory";
DROP TABLE quengine;
create table quengine(id int auto_increment key, class varchar(10), data binary COMMENT 'CSV') engine=MyISAM;
DROP TABLE quengine;
-- mysql 9.7 rejects: Error 1286 (42000): Unknown storage engine 'Aria'
create table quengine(id int auto_increment key, class varchar(10), data binary) engine=Aria;
create table `parent_table`(id int primary key, column1 varchar(30), index parent_table_i1(column1(20)), check(char_length(column1)>10)) engine InnoDB;
create table child_table(id int unsigned auto_increment primary key, id_parent int references parent_table(id) match full on update cascade on delete set null) engine=InnoDB;
create table `actor` (`last_update` timestamp default CURRENT_TIMESTAMP, `birthday` datetime default CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP);
create table boolean_table(c1 bool, c2 boolean default true);
create table ts_table( ts1 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, ts2 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIME, ts3 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP, ts4 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP(), ts5 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIME(), ts6 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP(), ts7 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE NOW(), ts8 TIMESTAMP(6) NOT NULL, ts9 TIMESTAMP(6) NOT NULL DEFAULT NOW(6) ON UPDATE NOW(6), ts10 TIMESTAMP DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, ts11 TIMESTAMP NOT NULL DEFAULT '2038-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP );
create table dt_table( dt1 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, dt2 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIME, dt3 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP, dt4 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP(), dt5 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIME(), dt6 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE LOCALTIMESTAMP(), dt7 DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE NOW(), dt10 DATETIME DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, dt11 DATETIME DEFAULT '2038-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP );
create table with_check (c1 integer not null,c2 varchar(22),constraint c1 check (c2 in ('a', 'b', 'c')));
CREATE TABLE genvalue1 (id binary(16) NOT NULL, val char(32) GENERATED ALWAYS AS (hex(id)) STORED, PRIMARY KEY (id));
CREATE TABLE genvalue2 (id binary(16) NOT NULL, val char(32) AS (hex(id)) STORED, PRIMARY KEY (id));
CREATE TABLE genvalue3 (id binary(16) NOT NULL, val char(32) GENERATED ALWAYS AS (hex(id)) VIRTUAL, PRIMARY KEY (id));
CREATE TABLE cast_charset (col BINARY(16) GENERATED ALWAYS AS (CAST('xx' as CHAR(16) CHARACTER SET BINARY)) VIRTUAL);
DROP TABLE cast_charset;
CREATE TABLE cast_charset (col BINARY(16) GENERATED ALWAYS AS (CAST('xx' as CHAR(16) CHARSET BINARY)) VIRTUAL);
CREATE TABLE check_table_kw (id int primary key, upgrade varchar(256), quick varchar(256), fast varchar(256), medium varchar(256), extended varchar(256), changed varchar(256));
CREATE TABLE sercol1 (id SERIAL, val INT);
CREATE TABLE sercol2 (id SERIAL PRIMARY KEY, val INT);
CREATE TABLE sercol4 (id SERIAL NOT NULL, val INT);
CREATE TABLE serval1 (id SMALLINT SERIAL DEFAULT VALUE, val INT);
CREATE TABLE serval2 (id SMALLINT SERIAL DEFAULT VALUE PRIMARY KEY, val INT);
CREATE TABLE serval3 (id SMALLINT(3) NULL SERIAL DEFAULT VALUE, val INT);
CREATE TABLE serval4 (id SMALLINT(5) UNSIGNED SERIAL DEFAULT VALUE NOT NULL, val INT);
CREATE TABLE serial (serial INT);
CREATE TABLE float_table (f1 FLOAT, f2 FLOAT(10), f3 FLOAT(7,4));
CREATE TABLE USER (INTERNAL BOOLEAN DEFAULT FALSE);
create table table_with_index (id int, data varchar(50), UNIQUE INDEX `data_UNIQUE` (`data` ASC));
create table blob_test(id int, col1 blob(45));
create table column_names_as_aggr_funcs(min varchar(100), max varchar(100), sum varchar(100), count varchar(100));
CREATE TABLE char_table (c1 CHAR VARYING(10), c2 CHARACTER VARYING(10), c3 NCHAR VARYING(10));
create table invisible_column_test(id int, col1 int INVISIBLE);
CREATE TABLE foo (c1 decimal(19), c2 decimal(19.5), c3 decimal(0.0), c4 decimal(0.2), c5 decimal(19,2));
CREATE TABLE table_items (id INT, purchased DATE) PARTITION BY RANGE( YEAR(purchased) ) SUBPARTITION BY HASH( TO_DAYS(purchased) ) SUBPARTITIONS 2 ( PARTITION p0 VALUES LESS THAN (1990), PARTITION p1 VALUES LESS THAN (2000), PARTITION p2 VALUES LESS THAN MAXVALUE );
CREATE TABLE T1 ( ID INT NOT NULL, NAME VARCHAR(255), UNIQUE KEY(ID) ) PARTITION BY KEY() PARTITIONS 2;
CREATE TABLE table_items_with_subpartitions (id INT, purchased DATE) PARTITION BY RANGE( YEAR(purchased) ) SUBPARTITION BY HASH( TO_DAYS(purchased) ) ( PARTITION p0 VALUES LESS THAN (1990) ( SUBPARTITION s0, SUBPARTITION s1 ), PARTITION p1 VALUES LESS THAN (2000) ( SUBPARTITION s2, SUBPARTITION s3 ), PARTITION p2 VALUES LESS THAN MAXVALUE ( SUBPARTITION s4, SUBPARTITION s5 ) );
CREATE TABLE CustomerTable ( table_type varchar(5) );
CREATE TABLE keywords ( eur VARCHAR(100), iso VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL, usa VARCHAR(100), jis VARCHAR(100), internal INT, instant BIT );
DROP TABLE T1;
CREATE TABLE T1 (C NATIONAL CHAR);
DROP TABLE T1;
CREATE TABLE `daily_intelligences`( `id` bigint(20) NOT NULL AUTO_INCREMENT COMMENT '', `partner_code` varchar(32) DEFAULT NULL COMMENT '', `text` LONGTEXT DEFAULT NULL COMMENT '', `monitor_time` TIMESTAMP DEFAULT NULL COMMENT '', `gmt_modify` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP COMMENT '', `gmt_create` TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP COMMENT '', PRIMARY KEY (`id`) ) ENGINE=innodb DEFAULT CHAR SET=utf8 COMMENT '';
create table `site_checker_b_sonet_group_favorites` ( USER_ID int(11) not null, GROUP_ID int(11) not null, DATE_ADD datetime DEFAULT NULL, primary key (USER_ID, GROUP_ID) );
CREATE TABLE `table_default_fn`(`quote_id` varchar(32) NOT NULL,`created_at` bigint(20) NOT NULL);
CREATE TABLE `test_table\\`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
CREATE TABLE `\\test_table`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
CREATE TABLE `\\test\\_table\\`(id INT(11) NOT NULL, PRIMARY KEY (`id`)) ENGINE = INNODB;
CREATE TABLE `tab1` ( f4 FLOAT4, f8 FLOAT8, i1 INT1, i2 INT2, i3 INT3, i4 INT4, i8 INT8, lvb LONG VARBINARY, lvc LONG VARCHAR, lvcfull LONG BINARY CHARSET utf8 COLLATE utf8_bin, l LONG, mi MIDDLEINT ) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- group: debezium/mysql/ext_tests.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mysql/examples/ext_tests.sql
create table t1(col1 binary(20));
create table t2(col varchar(10) binary character set cp1251);
DROP TABLE t2;
create table t2(col varchar(10) binary character set binary);

-- group: debezium/mysql/smoke_tests.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mysql/examples/smoke_tests.sql
create table t1(col1 binary(20));
create table t2(col varchar(10) binary character set cp1251);
DROP TABLE t2;
create table t2(col varchar(10) binary character set binary);

-- group: debezium/mysql/unicode_column_attribute.sql
-- origin: github.com/debezium/debezium debezium-ddl-parser/src/test/resources/mysql/examples/unicode_column_attribute.sql
CREATE TABLE t1 (a CHAR(10) UNICODE, b VARCHAR(20) UNICODE);

-- group: debezium/resources/binary_column_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/binary_column_test.sql
CREATE TABLE dbz_254_binary_column_test ( id INT AUTO_INCREMENT NOT NULL, file_uuid BINARY(16), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/binary_mode_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/binary_mode_test.sql
CREATE TABLE dbz_1814_binary_mode_test ( id INT AUTO_INCREMENT NOT NULL, blob_col BLOB NOT NULL, tinyblob_col TINYBLOB NOT NULL, mediumblob_col MEDIUMBLOB NOT NULL, longblob_col LONGBLOB NOT NULL, binary_col BINARY(3) NOT NULL, varbinary_col varbinary(20) NOT NULL, PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/blocking_snapshot_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/blocking_snapshot_test.sql
CREATE TABLE a ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa INTEGER ) AUTO_INCREMENT = 1;
CREATE TABLE b ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa INTEGER ) AUTO_INCREMENT = 1;
CREATE TABLE debezium_signal ( id varchar(64), type varchar(32), data varchar(2048) );

-- group: debezium/resources/boolean_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/boolean_test.sql
CREATE TABLE `BOOLEAN_TEST` ( `id` INT NOT NULL AUTO_INCREMENT, `b1` boolean default true, `b2` boolean default false, PRIMARY KEY (`ID`) ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

-- group: debezium/resources/connector_metrics_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/connector_metrics_test.sql
CREATE TABLE simple (pk integer auto_increment, val integer not null, primary key(pk));
CREATE TABLE debezium_signal ( id varchar(64), type varchar(32), data varchar(2048) );

-- group: debezium/resources/connector_read_binary_field_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/connector_read_binary_field_test.sql
CREATE TABLE binary_field ( id INT AUTO_INCREMENT PRIMARY KEY, now_time TIME, now_date DATE, now_date_time DATETIME, now_time_stamp TIMESTAMP ) ENGINE = innodb AUTO_INCREMENT = 1 DEFAULT CHARSET = utf8;

-- group: debezium/resources/connector_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/connector_test.sql
CREATE TABLE products ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL, description VARCHAR(512), weight FLOAT );
ALTER TABLE products AUTO_INCREMENT = 101;
CREATE TABLE products_on_hand ( product_id INTEGER NOT NULL PRIMARY KEY, quantity INTEGER NOT NULL, FOREIGN KEY (product_id) REFERENCES products(id) );
CREATE TABLE customers ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE KEY ) AUTO_INCREMENT=1001;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES products(id) ) AUTO_INCREMENT = 10001;

-- group: debezium/resources/connector_test_ro.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/connector_test_ro.sql
CREATE TABLE Products ( PRIMARY KEY (id), id INTEGER NOT NULL AUTO_INCREMENT, name VARCHAR(255) NOT NULL, description VARCHAR(512), weight FLOAT );
CREATE TABLE products_on_hand ( product_id INTEGER NOT NULL PRIMARY KEY, quantity INTEGER NOT NULL, FOREIGN KEY (product_id) REFERENCES Products(id) );
CREATE TABLE customers ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE KEY ) AUTO_INCREMENT=1001;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES Products(id) ) AUTO_INCREMENT = 10001;
CREATE TABLE dbz_342_timetest ( c1 TIME(2) PRIMARY KEY, c2 TIME(0), c3 TIME(3), c4 TIME(3), c5 TIME(6), c6 TIME(6), c7 TIME(6), c8 TIME(6), c9 TIME(6), c10 TIME(6), c11 TIME(6) );

-- group: debezium/resources/converting_failure.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/converting_failure.sql
CREATE TABLE dbz7143 ( id INT NOT NULL, age INT NULL, name VARCHAR(255) NULL, PRIMARY KEY(id) );
CREATE TABLE time_table ( id INT NOT NULL, A TIME(1) NULL, B TIME(6) NULL, C TIME(1) NOT NULL, PRIMARY KEY(id) );

-- group: debezium/resources/create_table_like_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/create_table_like_test.sql
CREATE TABLE `template_table` ( `id` INT NOT NULL AUTO_INCREMENT, `name` VARCHAR(255) NOT NULL, `status` INT DEFAULT 0, `create_at` DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (`id`) );
CREATE TABLE `shard_001` ( `id` INT NOT NULL AUTO_INCREMENT, `name` VARCHAR(255) NOT NULL, `status` INT DEFAULT 0, `create_at` DATETIME DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (`id`) );

-- group: debezium/resources/custom_snapshot.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/custom_snapshot.sql
CREATE TABLE a (pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa integer) AUTO_INCREMENT=1;
CREATE TABLE b (pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa integer) AUTO_INCREMENT=1;

-- group: debezium/resources/datetime_key_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/datetime_key_test.sql
CREATE TABLE dbz_1194_datetime_key_test ( id INT AUTO_INCREMENT NOT NULL, dtval DATETIME NOT NULL, dval DATE NOT NULL, tval TIME NOT NULL, PRIMARY KEY (id, dtval, dval, tval) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/db_default_charset.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/db_default_charset.sql
CREATE TABLE DATA ( MESSAGE TEXT );

-- group: debezium/resources/db_default_charset_noutf.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/db_default_charset_noutf.sql
CREATE TABLE DATA ( MESSAGE TEXT, FLAG TINYINT(1) );

-- group: debezium/resources/decimal_column_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/decimal_column_test.sql
CREATE TABLE dbz_751_decimal_column_test ( id INT AUTO_INCREMENT NOT NULL, rating1 DECIMAL, rating2 DECIMAL(8, 4), rating3 DECIMAL(7), rating4 DECIMAL(6, 0), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/decimal_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/decimal_test.sql
CREATE TABLE `DBZ730` ( id INT NOT NULL PRIMARY KEY AUTO_INCREMENT, A NUMERIC(3, 2) NOT NULL DEFAULT 1.23, B DECIMAL(4, 3) NOT NULL DEFAULT 2.321, C NUMERIC(7, 5) NULL DEFAULT '12.678', D NUMERIC(7, 5) NULL DEFAULT '15.28', E DECIMAL(65, 18) NULL DEFAULT '0.000000000000000000' ) ENGINE=InnoDB AUTO_INCREMENT=15851 DEFAULT CHARSET=utf8;

-- group: debezium/resources/default_value.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/default_value.sql
CREATE TABLE UNSIGNED_TINYINT_TABLE ( A TINYINT UNSIGNED NULL DEFAULT 0, B TINYINT UNSIGNED NULL DEFAULT '10', C TINYINT UNSIGNED NULL, D TINYINT UNSIGNED NOT NULL, E TINYINT UNSIGNED NOT NULL DEFAULT 0, F TINYINT UNSIGNED NOT NULL DEFAULT '0', G TINYINT UNSIGNED NULL DEFAULT '100' );
CREATE TABLE UNSIGNED_SMALLINT_TABLE ( A SMALLINT UNSIGNED NULL DEFAULT 0, B SMALLINT UNSIGNED NULL DEFAULT '10', C SMALLINT UNSIGNED NULL, D SMALLINT UNSIGNED NOT NULL, E SMALLINT UNSIGNED NOT NULL DEFAULT 0, F SMALLINT UNSIGNED NOT NULL DEFAULT '0', G SMALLINT UNSIGNED NULL DEFAULT '100' );
CREATE TABLE UNSIGNED_MEDIUMINT_TABLE ( A MEDIUMINT UNSIGNED NULL DEFAULT 0, B MEDIUMINT UNSIGNED NULL DEFAULT '10', C MEDIUMINT UNSIGNED NULL, D MEDIUMINT UNSIGNED NOT NULL, E MEDIUMINT UNSIGNED NOT NULL DEFAULT 0, F MEDIUMINT UNSIGNED NOT NULL DEFAULT '0', G MEDIUMINT UNSIGNED NULL DEFAULT '100' );
CREATE TABLE UNSIGNED_INT_TABLE ( A INT UNSIGNED NULL DEFAULT 0, B INT UNSIGNED NULL DEFAULT '10', C INT UNSIGNED NULL, D INT UNSIGNED NOT NULL, E INT UNSIGNED NOT NULL DEFAULT 0, F INT UNSIGNED NOT NULL DEFAULT '0', G INT UNSIGNED NULL DEFAULT '100' );
CREATE TABLE UNSIGNED_BIGINT_TABLE ( A BIGINT UNSIGNED NULL DEFAULT 0, B BIGINT UNSIGNED NULL DEFAULT '10', C BIGINT UNSIGNED NULL, D BIGINT UNSIGNED NOT NULL, E BIGINT UNSIGNED NOT NULL DEFAULT 0, F BIGINT UNSIGNED NOT NULL DEFAULT '0', G BIGINT UNSIGNED NULL DEFAULT '100' );
CREATE TABLE STRING_TABLE ( A CHAR(1) NULL DEFAULT 'A', B CHAR(1) NULL DEFAULT 'b', C VARCHAR(10) NULL DEFAULT 'CC', D NCHAR(10) NULL DEFAULT '10', E NVARCHAR(10) NULL DEFAULT '0', F CHAR(1) DEFAULT NULL, G VARCHAR(10) DEFAULT NULL, H NCHAR(10) DEFAULT NULL, I VARCHAR(10) NULL DEFAULT '100' );
CREATE TABLE BIT_TABLE ( A BIT(1) NULL DEFAULT NULL, B BIT(1) DEFAULT 0, C BIT(1) DEFAULT 1, D BIT(1) DEFAULT b'0', E BIT(1) DEFAULT b'1', F BIT(1) DEFAULT TRUE, G BIT(1) DEFAULT FALSE, H BIT(10) DEFAULT b'101000010', I BIT(10) DEFAULT NULL, J BIT(25) DEFAULT b'10110000100001111', K BIT(25) DEFAULT b'10110000100001111' );
CREATE TABLE BOOLEAN_TABLE ( A BOOL NULL DEFAULT 0, B BOOLEAN NOT NULL DEFAULT '1', C BOOLEAN NOT NULL DEFAULT '1', D BOOLEAN NOT NULL DEFAULT TRUE, E BOOLEAN DEFAULT NULL, F BOOLEAN DEFAULT TRUE );
CREATE TABLE NUMBER_TABLE ( A TINYINT NULL DEFAULT 10, B SMALLINT NOT NULL DEFAULT '5', C INTEGER NOT NULL DEFAULT 0, D BIGINT NOT NULL DEFAULT 20, E INT NULL DEFAULT NULL, F INT NULL DEFAULT 30, G TINYINT(1) NOT NULL DEFAULT TRUE, H INT(1) NOT NULL DEFAULT TRUE );
CREATE TABLE FlOAT_DOUBLE_TABLE ( F FLOAT NULL DEFAULT 0, G DOUBLE NOT NULL DEFAULT 1.0, H DOUBLE NULL DEFAULT 3.0 );
CREATE TABLE REAL_TABLE ( A REAL NOT NULL DEFAULT 1, B REAL NULL DEFAULT NULL, C REAL NULL DEFAULT 3 );
CREATE TABLE NUMERIC_DECIMAL_TABLE ( A NUMERIC(3, 2) NOT NULL DEFAULT 1.23, B DECIMAL(4, 3) NOT NULL DEFAULT 2.321, C NUMERIC(7, 5) NULL DEFAULT '12.678', D NUMERIC(7, 5) NULL DEFAULT '15.28' );
CREATE TABLE DATE_TIME_TABLE ( A DATE NOT NULL DEFAULT '1976-08-23', B TIMESTAMP DEFAULT '1970-01-01 00:00:01', C DATETIME DEFAULT '2018-01-03 00:00:10', D DATETIME(1) DEFAULT '2018-01-03 00:00:10.7', E DATETIME(6) DEFAULT '2018-01-03 00:00:10.123456', F YEAR NOT NULL DEFAULT 1, G TIME DEFAULT '00:00:00', H TIME(1) DEFAULT '23:00:00.7', I TIME(6) DEFAULT '23:00:00.123456', J TIMESTAMP DEFAULT CURRENT_TIMESTAMP, K TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP, L TIME(1) DEFAULT '-23:45:56.7', M TIME(6) DEFAULT '123:00:00.123456' );
CREATE TABLE DBZ_771_CUSTOMERS ( id INTEGER NOT NULL PRIMARY KEY, CUSTOMER_TYPE ENUM ('b2c','b2b') NOT NULL default 'b2c' );

-- group: debezium/resources/default_value_all_zero_time.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/default_value_all_zero_time.sql
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'A'
CREATE TABLE all_zero_date_and_time_table ( A TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00', B TIMESTAMP NULL DEFAULT '0000-00-00 00:00:00', C TIMESTAMP DEFAULT '0000-00-00 00:00:00' NOT NULL, D TIMESTAMP DEFAULT '0000-00-00 00:00:00' NULL, E DATE NOT NULL DEFAULT '0000-00-00', F DATE NULL DEFAULT '0000-00-00', G DATE DEFAULT '0000-00-00' NOT NULL, H DATE DEFAULT '0000-00-00' NULL, I DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00', J DATETIME NULL DEFAULT '0000-00-00 00:00:00', K DATETIME DEFAULT '0000-00-00 00:00:00' NOT NULL, L DATETIME DEFAULT '0000-00-00 00:00:00' NULL );
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'A'
CREATE TABLE part_zero_date_and_time_table ( A TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00', B TIMESTAMP NULL DEFAULT '0000-00-00 00:00:00', C DATETIME NOT NULL DEFAULT '0000-00-00 01:00:00.000', D DATETIME NULL DEFAULT '0000-00-00 01:00:00.000', E DATE NOT NULL DEFAULT '1000-00-00 01:00:00.000', F DATE NULL DEFAULT '1000-00-00 01:00:00.000', G TIME DEFAULT '0000-00-00 01:00:00.000' NOT NULL, H TIME DEFAULT '0000-00-00 01:00:00.000' NULL );

-- group: debezium/resources/enum_column_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/enum_column_test.sql
CREATE TABLE `test_stations_10` ( `id` int(10) unsigned NOT NULL AUTO_INCREMENT, `name` varchar(500) COLLATE utf8_unicode_ci NOT NULL, `type` enum('station', 'post_office') COLLATE utf8_unicode_ci NOT NULL DEFAULT 'station', `created` datetime DEFAULT CURRENT_TIMESTAMP, `modified` datetime DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (`id`) );
ALTER TABLE `test_stations_10` MODIFY COLUMN `type` ENUM('station', 'post_office', 'plane', 'ahihi_dongok', 'now', 'test', 'a,b', 'c,\'d', 'g,''h') CHARACTER SET 'utf8' COLLATE 'utf8_unicode_ci' NOT NULL DEFAULT 'station';

-- group: debezium/resources/float_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/float_test.sql
CREATE TABLE `DBZ3865` ( `id` INT NOT NULL AUTO_INCREMENT, `f1` FLOAT DEFAULT 5.6, `f2` FLOAT(10, 2) DEFAULT NULL, `f3` FLOAT(35, 5) DEFAULT NULL, `f4_23` FLOAT(23) DEFAULT NULL, `f4_24` FLOAT(24) DEFAULT NULL, `f4_25` FLOAT(25) DEFAULT NULL, `weight` FLOAT UNSIGNED DEFAULT '0', PRIMARY KEY (`ID`) ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

-- group: debezium/resources/geometry_test_5.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/geometry_test_5.sql
CREATE TABLE dbz_222_point ( id INT AUTO_INCREMENT NOT NULL, point POINT DEFAULT NULL, expected_x DOUBLE, expected_y DOUBLE, expected_srid INT, PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;
CREATE TABLE dbz_507_geometry ( id INT NOT NULL, geom GEOMETRY, linestring LINESTRING, polygon POLYGON, collection GEOMETRYCOLLECTION, PRIMARY KEY (id) );

-- group: debezium/resources/geometry_test_8.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/geometry_test_8.sql
CREATE TABLE dbz_222_point ( id INT AUTO_INCREMENT NOT NULL, point POINT DEFAULT NULL, expected_x DOUBLE, expected_y DOUBLE, expected_srid INT, PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;
CREATE TABLE dbz_507_geometry ( id INT NOT NULL, geom GEOMETRY, linestring LINESTRING, polygon POLYGON, collection GEOMETRYCOLLECTION, PRIMARY KEY (id) );

-- group: debezium/resources/history-dbz.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/history-dbz.sql
CREATE TABLE `t-1` (ID1 INT PRIMARY KEY);
CREATE TABLE `t.2` (ID2 INT PRIMARY KEY);

-- group: debezium/resources/incremental_snapshot-test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/incremental_snapshot-test.sql
CREATE TABLE a ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa INTEGER ) AUTO_INCREMENT = 1;
CREATE TABLE b ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa INTEGER ) AUTO_INCREMENT = 1;
CREATE TABLE c ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, aa INTEGER ) AUTO_INCREMENT = 1;
CREATE TABLE a4 ( pk1 integer, pk2 integer, pk3 integer, pk4 integer, aa integer, PRIMARY KEY(pk1, pk2, pk3, pk4) );
CREATE TABLE a42 ( pk1 integer, pk2 integer, pk3 integer, pk4 integer, aa integer );
CREATE TABLE a_dt ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, dt DATETIME NOT NULL, d DATE NOT NULL, t TIME NOT NULL ) AUTO_INCREMENT = 1;
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'd'
CREATE TABLE a_date ( pk INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, d DATE NOT NULL DEFAULT "0000-00-00", d_opt DATE DEFAULT "0000-00-00" ) AUTO_INCREMENT = 1;
CREATE TABLE debezium_signal ( id varchar(64), type varchar(32), data varchar(2048) );

-- group: debezium/resources/innodb_mvcc.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/innodb_mvcc.sql
CREATE TABLE test_table ( id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255), email VARCHAR(255), last_updated TIMESTAMP);

-- group: debezium/resources/json_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/json_test.sql
CREATE TABLE dbz_126_jsontable ( id INT AUTO_INCREMENT NOT NULL, json JSON, expectedJdbcStr VARCHAR(256), expectedBinlogStr VARCHAR(256), PRIMARY KEY(id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/multitable_dbz_871.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/multitable_dbz_871.sql
CREATE TABLE t1 (ID INT PRIMARY KEY);
CREATE TABLE t2 (ID INT PRIMARY KEY);
CREATE TABLE t3 (ID INT PRIMARY KEY);
CREATE TABLE t4 (ID INT PRIMARY KEY);
DROP TABLE t1,t2,t3,t4;

-- group: debezium/resources/mysql-dbz-142.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-142.ddl
CREATE TABLE nvarchars ( c1 NVARCHAR(255), c2 NATIONAL VARCHAR(255), c3 NCHAR VARCHAR(255), c4 NATIONAL CHARACTER VARYING(255), c5 NATIONAL CHAR VARYING(255) );
CREATE TABLE nchars ( c1 NATIONAL CHARACTER(10), c2 NCHAR(10) );

-- group: debezium/resources/mysql-dbz-162.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-162.ddl
CREATE TABLE `test` (id INT(11) UNSIGNED NOT NULL PRIMARY KEY AUTO_INCREMENT);
ALTER TABLE `test` CHANGE `id` `collection_id` INT(11) UNSIGNED NOT NULL AUTO_INCREMENT;

-- group: debezium/resources/mysql-dbz-193.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-193.ddl
CREATE TABLE `roles` ( `id` varchar(32) NOT NULL, `name` varchar(100) NOT NULL, `context` varchar(20) NOT NULL, `organization_id` int(11) DEFAULT NULL, `client_id` varchar(32) NOT NULL, `scope_action_ids` text NOT NULL, PRIMARY KEY (`id`), FULLTEXT KEY `scope_action_ids_idx` (`scope_action_ids`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- group: debezium/resources/mysql-dbz-198a.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-198a.ddl
DROP TABLE IF EXISTS _result;
DROP TABLE IF EXISTS _tmp;

-- group: debezium/resources/mysql-dbz-198c.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-198c.ddl
DROP TABLE IF EXISTS SUMMARY2;

-- group: debezium/resources/mysql-dbz-200.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-dbz-200.ddl
CREATE TABLE `customfield` ( `ENCODEDKEY` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL, `ID` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `CREATIONDATE` datetime DEFAULT NULL, `LASTMODIFIEDDATE` datetime DEFAULT NULL, `DATATYPE` varchar(256) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `ISDEFAULT` bit(1) DEFAULT NULL, `ISREQUIRED` bit(1) DEFAULT NULL, `NAME` varchar(256) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `VALUES` mediumblob, `AMOUNTS` mediumblob, `DESCRIPTION` varchar(256) DEFAULT NULL, `TYPE` varchar(256) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `VALUELENGTH` varchar(256) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL DEFAULT 'SHORT', `INDEXINLIST` int(11) DEFAULT '-1', `CUSTOMFIELDSET_ENCODEDKEY_OID` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL, `STATE` varchar(256) NOT NULL DEFAULT 'NORMAL', `VALIDATIONPATTERN` varchar(256) DEFAULT NULL, `VIEWUSAGERIGHTSKEY` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `EDITUSAGERIGHTSKEY` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `BUILTINCUSTOMFIELDID` varchar(255) CHARACTER SET utf8 COLLATE utf8_bin DEFAULT NULL, `UNIQUE` varchar(32) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL, STORAGE varchar(32) CHARACTER SET utf8 COLLATE utf8_bin NOT NULL, KEY `index1` (`ID`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- group: debezium/resources/mysql-integration.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-integration.ddl
CREATE TABLE products ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL, description VARCHAR(512), weight FLOAT );
CREATE TABLE products_on_hand ( product_id INTEGER NOT NULL PRIMARY KEY, quantity INTEGER NOT NULL, FOREIGN KEY (product_id) REFERENCES products(id) );
CREATE TABLE customers ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE KEY ) AUTO_INCREMENT=1001;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES products(id) ) AUTO_INCREMENT = 10001;
DROP TABLE products_on_hand;
CREATE TABLE products_on_hand ( product_id INTEGER NOT NULL PRIMARY KEY, quantity INTEGER NOT NULL, FOREIGN KEY (product_id) REFERENCES products(id) );
DROP TABLE orders;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES products(id) ) AUTO_INCREMENT = 10001;
CREATE TABLE t1464075356413_testtable6 ( pk_column int auto_increment NOT NULL, varbinary_col varbinary(20) NOT NULL, PRIMARY KEY(pk_column) );
CREATE TABLE dbz84_integer_types_table ( colTinyIntA tinyint NOT NULL DEFAULT 100, colTinyIntB tinyint(1) NOT NULL DEFAULT 101, colTinyIntC tinyint(2) UNSIGNED NOT NULL DEFAULT 102, colTinyIntD tinyint(3) UNSIGNED NOT NULL DEFAULT 103, colSmallIntA smallint NOT NULL DEFAULT 200, colSmallIntB smallint(1) NOT NULL DEFAULT 201, colSmallIntC smallint(2) NOT NULL DEFAULT 201, colSmallIntD smallint(3) NOT NULL DEFAULT 201, colMediumIntA mediumint NOT NULL DEFAULT 300, colMediumIntB mediumint(1) NOT NULL DEFAULT 301, colMediumIntC mediumint(2) NOT NULL DEFAULT 302, colMediumIntD mediumint(3) NOT NULL DEFAULT 303, colIntA int NOT NULL DEFAULT 400, colIntB int(1) NOT NULL DEFAULT 401, colIntC int(2) NOT NULL DEFAULT 402, colIntD int(3) NOT NULL DEFAULT 403, colBigIntA bigint NOT NULL DEFAULT 500, colBigIntB bigint(1) NOT NULL DEFAULT 501, colBigIntC bigint(2) NOT NULL DEFAULT 502, colBigIntD bigint(3) NOT NULL DEFAULT 503 );

-- group: debezium/resources/mysql-quoted.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-quoted.ddl
DROP TABLE IF EXISTS connector_test_ro.products_on_hand;
DROP TABLE IF EXISTS connector_test_ro.customers;
DROP TABLE IF EXISTS connector_test_ro.orders;
DROP TABLE IF EXISTS connector_test_ro.products;
CREATE TABLE `customers` ( `id` int(11) NOT NULL AUTO_INCREMENT, `first_name` varchar(255) NOT NULL, `last_name` varchar(255) NOT NULL, `email` varchar(255) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `email` (`email`) ) ENGINE=InnoDB AUTO_INCREMENT=1005 DEFAULT CHARSET=latin1;
CREATE TABLE `products` ( `id` int(11) NOT NULL AUTO_INCREMENT, `name` varchar(255) NOT NULL, `description` varchar(512) DEFAULT NULL, `weight` float DEFAULT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB AUTO_INCREMENT=110 DEFAULT CHARSET=latin1;

-- group: debezium/resources/mysql-test-create.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-test-create.ddl
CREATE TABLE AUDITENTRIES ( TIMESTAMP VARCHAR(50) NOT NULL, CONTEXT VARCHAR(64) NOT NULL, ACTIVITY VARCHAR(64) NOT NULL, RESOURCES VARCHAR(4000) NOT NULL, PRINCIPAL VARCHAR(255) NOT NULL, HOSTNAME VARCHAR(64) NOT NULL, VMID VARCHAR(64) NOT NULL );
CREATE TABLE AUTHPERMTYPES ( PERMTYPEUID NUMERIC(10) NOT NULL PRIMARY KEY, DISPLAYNAME VARCHAR(250) NOT NULL, FACTORYCLASSNAME VARCHAR(80) NOT NULL );
CREATE TABLE AUTHPOLICIES ( POLICYUID NUMERIC(10) NOT NULL PRIMARY KEY, DESCRIPTION VARCHAR(250), POLICYNAME VARCHAR(250) NOT NULL );
CREATE TABLE AUTHPRINCIPALS ( PRINCIPALTYPE NUMERIC(10) NOT NULL, PRINCIPALNAME VARCHAR(255) NOT NULL, POLICYUID NUMERIC(10) NOT NULL REFERENCES AUTHPOLICIES (POLICYUID) , GRANTOR VARCHAR(255) NOT NULL, CONSTRAINT PK_AUTHPOLICYPRINCIPALS UNIQUE (PRINCIPALNAME, POLICYUID) );
CREATE TABLE AUTHREALMS ( REALMUID NUMERIC(10) NOT NULL PRIMARY KEY, REALMNAME VARCHAR(250) NOT NULL UNIQUE, DESCRIPTION VARCHAR(550) );
CREATE TABLE CFG_STARTUP_STATE (STATE INTEGER DEFAULT 0 , LASTCHANGED VARCHAR(50) );
CREATE TABLE IDTABLE ( IDCONTEXT VARCHAR(20) NOT NULL PRIMARY KEY, NEXTID NUMERIC );
CREATE TABLE LOGMESSAGETYPES ( MESSAGELEVEL NUMERIC(10) NOT NULL PRIMARY KEY, NAME VARCHAR(64) NOT NULL, DISPLAYNAME VARCHAR(64) );
CREATE TABLE MM_PRODUCTS ( PRODUCT_UID NUMERIC NOT NULL PRIMARY KEY, PRODUCT_NAME VARCHAR(50) NOT NULL, PRODUCT_DISPLAY_NM VARCHAR(100) );
CREATE TABLE PRINCIPALTYPES ( PRINCIPALTYPEUID NUMERIC(10) NOT NULL PRIMARY KEY, PRINCIPALTYPE VARCHAR(60) NOT NULL, DISPLAYNAME VARCHAR(80) NOT NULL, LASTCHANGEDBY VARCHAR(255) NOT NULL, LASTCHANGED VARCHAR(50) );
CREATE TABLE RT_MDLS ( MDL_UID NUMERIC(10) NOT NULL PRIMARY KEY, MDL_UUID VARCHAR(64) NOT NULL, MDL_NM VARCHAR(255) NOT NULL, MDL_VERSION VARCHAR(50), DESCRIPTION VARCHAR(255), MDL_URI VARCHAR(255), MDL_TYPE NUMERIC(3), IS_PHYSICAL CHAR(1) NOT NULL, MULTI_SOURCED CHAR(1) DEFAULT '0', VISIBILITY NUMERIC(10) );
CREATE TABLE RT_MDL_PRP_NMS ( PRP_UID NUMERIC(10) NOT NULL PRIMARY KEY, MDL_UID NUMERIC(10) NOT NULL , PRP_NM VARCHAR(255) NOT NULL );
CREATE TABLE RT_MDL_PRP_VLS ( PRP_UID NUMERIC(10) NOT NULL , PART_ID NUMERIC(10) NOT NULL, PRP_VL VARCHAR(255) NOT NULL, CONSTRAINT PK_MDL_PRP_VLS UNIQUE (PRP_UID, PART_ID) );
CREATE TABLE RT_VIRTUAL_DBS ( VDB_UID NUMERIC(10) NOT NULL PRIMARY KEY, VDB_VERSION VARCHAR(50) NOT NULL, VDB_NM VARCHAR(255) NOT NULL, DESCRIPTION VARCHAR(255), PROJECT_GUID VARCHAR(64), VDB_STATUS NUMERIC NOT NULL, WSDL_DEFINED CHAR(1) DEFAULT '0', VERSION_BY VARCHAR(100), VERSION_DATE VARCHAR(50) NOT NULL, CREATED_BY VARCHAR(100), CREATION_DATE VARCHAR(50), UPDATED_BY VARCHAR(100), UPDATED_DATE VARCHAR(50), VDB_FILE_NM VARCHAR(2048) );
CREATE TABLE SERVICESESSIONS ( SESSIONUID NUMERIC(10) NOT NULL PRIMARY KEY, PRINCIPAL VARCHAR(255) NOT NULL, APPLICATION VARCHAR(128) NOT NULL, CREATIONTIME VARCHAR(50), CLIENTCOUNT NUMERIC(10) NOT NULL, STATE NUMERIC(10) NOT NULL, STATETIME VARCHAR(50), USESSUBSCRIBER CHAR(1) NOT NULL, PRODUCTINFO1 VARCHAR(255), PRODUCTINFO2 VARCHAR(255), PRODUCTINFO3 VARCHAR(255), PRODUCTINFO4 VARCHAR(255) );
CREATE INDEX RTMDLS_NM_IX ON RT_MDLS (MDL_NM);
CREATE INDEX RTVIRTUALDBS_NM_IX ON RT_VIRTUAL_DBS (VDB_NM);
CREATE INDEX RTVIRTUALDBS_VRSN_IX ON RT_VIRTUAL_DBS (VDB_VERSION);
CREATE UNIQUE INDEX MDL_PRP_NMS_UIX ON RT_MDL_PRP_NMS (MDL_UID, PRP_NM);
CREATE UNIQUE INDEX PRNCIPALTYP_UIX ON PRINCIPALTYPES (PRINCIPALTYPE);
CREATE UNIQUE INDEX AUTHPOLICIES_NAM_UIX ON AUTHPOLICIES (POLICYNAME);
CREATE TABLE AUTHPERMISSIONS ( PERMISSIONUID NUMERIC(10) NOT NULL PRIMARY KEY, RESOURCENAME VARCHAR(250) NOT NULL, ACTIONS NUMERIC(10) NOT NULL, CONTENTMODIFIER VARCHAR(250), PERMTYPEUID NUMERIC(10) NOT NULL REFERENCES AUTHPERMTYPES (PERMTYPEUID) , REALMUID NUMERIC(10) NOT NULL REFERENCES AUTHREALMS (REALMUID) , POLICYUID NUMERIC(10) NOT NULL REFERENCES AUTHPOLICIES (POLICYUID) );
CREATE TABLE LOGENTRIES ( TIMESTAMP VARCHAR(50) NOT NULL, CONTEXT VARCHAR(64) NOT NULL, MSGLEVEL NUMERIC(10) NOT NULL REFERENCES LOGMESSAGETYPES (MESSAGELEVEL) , EXCEPTION VARCHAR(4000), MESSAGE VARCHAR(2000) NOT NULL, HOSTNAME VARCHAR(64) NOT NULL, VMID VARCHAR(64) NOT NULL, THREAModeShapeME VARCHAR(64) NOT NULL, VMSEQNUM NUMERIC(7) NOT NULL );
CREATE TABLE PRODUCTSSESSIONS ( PRODUCT_UID NUMERIC NOT NULL, SESSION_UID NUMERIC NOT NULL, PRIMARY KEY (PRODUCT_UID, SESSION_UID) );
ALTER TABLE PRODUCTSSESSIONS ADD CONSTRAINT FK_PRODSESS_PRODS FOREIGN KEY (PRODUCT_UID) REFERENCES MM_PRODUCTS (PRODUCT_UID);
ALTER TABLE PRODUCTSSESSIONS ADD CONSTRAINT FK_PRODSESS_SVCSES FOREIGN KEY (SESSION_UID) REFERENCES SERVICESESSIONS (SESSIONUID);
CREATE TABLE RT_VDB_MDLS ( VDB_UID NUMERIC(10) NOT NULL , MDL_UID NUMERIC(10) NOT NULL , CNCTR_BNDNG_NM VARCHAR(255) );
CREATE INDEX AWA_SYS_MSGLEVEL_1E6F845E ON LOGENTRIES (MSGLEVEL);
CREATE UNIQUE INDEX AUTHPERM_UIX ON AUTHPERMISSIONS ( POLICYUID, RESOURCENAME);
CREATE TABLE CS_EXT_FILES ( FILE_UID INTEGER NOT NULL, CHKSUM NUMERIC(20), FILE_NAME VARCHAR(255) NOT NULL, FILE_CONTENTS LONGBLOB, CONFIG_CONTENTS LONGTEXT, SEARCH_POS INTEGER, IS_ENABLED CHAR(1), FILE_DESC VARCHAR(4000), CREATED_BY VARCHAR(100), CREATION_DATE VARCHAR(50), UPDATED_BY VARCHAR(100), UPDATE_DATE VARCHAR(50), FILE_TYPE VARCHAR(30), CONSTRAINT PK_CS_EXT_FILES PRIMARY KEY (FILE_UID) );
ALTER TABLE CS_EXT_FILES ADD CONSTRAINT CSEXFILS_FIL_NA_UK UNIQUE (FILE_NAME);
CREATE TABLE MMSCHEMAINFO_CA ( SCRIPTNAME VARCHAR(50), SCRIPTEXECUTEDBY VARCHAR(50), SCRIPTREV VARCHAR(50), RELEASEDATE VARCHAR(50), DATECREATED DATE, DATEUPDATED DATE, UPDATEID VARCHAR(50), METAMATRIXSERVERURL VARCHAR(100) );
CREATE TABLE CS_SYSTEM_PROPS ( PROPERTY_NAME VARCHAR(255), PROPERTY_VALUE VARCHAR(255) );
CREATE UNIQUE INDEX SYSPROPS_KEY ON CS_SYSTEM_PROPS (PROPERTY_NAME);
CREATE TABLE CFG_LOCK ( USER_NAME VARCHAR(50) NOT NULL, DATETIME_ACQUIRED VARCHAR(50) NOT NULL, DATETIME_EXPIRE VARCHAR(50) NOT NULL, HOST VARCHAR(100), LOCK_TYPE NUMERIC (1) );
CREATE TABLE TX_MMXCMDLOG (REQUESTID VARCHAR(255) NOT NULL, TXNUID VARCHAR(50) NULL, CMDPOINT NUMERIC(10) NOT NULL, SESSIONUID VARCHAR(255) NOT NULL, APP_NAME VARCHAR(255) NULL, PRINCIPAL_NA VARCHAR(255) NOT NULL, VDBNAME VARCHAR(255) NOT NULL, VDBVERSION VARCHAR(50) NOT NULL, CREATED_TS VARCHAR(50) NULL, ENDED_TS VARCHAR(50) NULL, CMD_STATUS NUMERIC(10) NOT NULL, SQL_ID NUMERIC(10), FINL_ROWCNT NUMERIC(10) );
CREATE TABLE TX_SRCCMDLOG (REQUESTID VARCHAR(255) NOT NULL, NODEID NUMERIC(10) NOT NULL, SUBTXNUID VARCHAR(50) NULL, CMD_STATUS NUMERIC(10) NOT NULL, MDL_NM VARCHAR(255) NOT NULL, CNCTRNAME VARCHAR(255) NOT NULL, CMDPOINT NUMERIC(10) NOT NULL, SESSIONUID VARCHAR(255) NOT NULL, PRINCIPAL_NA VARCHAR(255) NOT NULL, CREATED_TS VARCHAR(50) NULL, ENDED_TS VARCHAR(50) NULL, SQL_ID NUMERIC(10) NULL, FINL_ROWCNT NUMERIC(10) NULL );
CREATE TABLE TX_SQL ( SQL_ID NUMERIC(10) NOT NULL, SQL_VL TEXT );
ALTER TABLE TX_SQL ADD CONSTRAINT TX_SQL_PK PRIMARY KEY (SQL_ID);
CREATE TABLE MBR_ITEMS ( ITEM_ID_P1 NUMERIC(20) NOT NULL, ITEM_ID_P2 NUMERIC(20) NOT NULL, ITEM_VERSION VARCHAR(80) NOT NULL, ITEM_NAME VARCHAR(255) NOT NULL, UPPER_ITEM_NAME VARCHAR(255) NOT NULL, COMMENT_FLD VARCHAR(2000), LOCK_HOLDER VARCHAR(100), LOCK_DATE VARCHAR(50), CREATED_BY VARCHAR(100) NOT NULL, CREATION_DATE VARCHAR(50) NOT NULL, ITEM_TYPE NUMERIC(10) NOT NULL );
CREATE TABLE MBR_ITEM_CONTENTS ( ITEM_ID_P1 NUMERIC(20) NOT NULL, ITEM_ID_P2 NUMERIC(20) NOT NULL, ITEM_VERSION VARCHAR(80) NOT NULL, ITEM_CONTENT LONGBLOB NOT NULL );
CREATE TABLE MBR_ENTRIES ( ENTRY_ID_P1 NUMERIC(20) NOT NULL, ENTRY_ID_P2 NUMERIC(20) NOT NULL, ENTRY_NAME VARCHAR(255) NOT NULL, UPPER_ENTRY_NAME VARCHAR(255) NOT NULL, ITEM_ID_P1 NUMERIC(20), ITEM_ID_P2 NUMERIC(20), ITEM_VERSION VARCHAR(80), PARENT_ENTRY_ID_P1 NUMERIC(20), PARENT_ENTRY_ID_P2 NUMERIC(20), DELETED NUMERIC(1) NOT NULL );
CREATE TABLE MBR_LABELS ( LABEL_ID_P1 NUMERIC(20) NOT NULL, LABEL_ID_P2 NUMERIC(20) NOT NULL, LABEL_FLD VARCHAR(255) NOT NULL, COMMENT_FLD VARCHAR(2000), CREATED_BY VARCHAR(100) NOT NULL, CREATION_DATE VARCHAR(50) NOT NULL );
CREATE TABLE MBR_ITEM_LABELS ( ITEM_ID_P1 NUMERIC(20) NOT NULL, ITEM_ID_P2 NUMERIC(20) NOT NULL, ITEM_VERSION VARCHAR(80) NOT NULL, LABEL_ID_P1 NUMERIC(20) NOT NULL, LABEL_ID_P2 NUMERIC(20) NOT NULL );
CREATE TABLE MBR_FOLDER_LABELS ( ENTRY_ID_P1 NUMERIC(20) NOT NULL, ENTRY_ID_P2 NUMERIC(20) NOT NULL, LABEL_ID_P1 NUMERIC(20) NOT NULL, LABEL_ID_P2 NUMERIC(20) NOT NULL );
CREATE TABLE MBR_ITEM_TYPES ( ITEM_TYPE_CODE NUMERIC(10) NOT NULL, ITEM_TYPE_NM VARCHAR(20) NOT NULL );
CREATE TABLE MBR_POLICIES ( POLICY_NAME VARCHAR(250) NOT NULL, CREATION_DATE VARCHAR(50), CHANGE_DATE VARCHAR(50), GRANTOR VARCHAR(32) );
CREATE TABLE MBR_POL_PERMS ( ENTRY_ID_P1 NUMERIC(20) NOT NULL, ENTRY_ID_P2 NUMERIC(20) NOT NULL, POLICY_NAME VARCHAR(250) NOT NULL, CREATE_BIT CHAR(1) NOT NULL, READ_BIT CHAR(1) NOT NULL, UPDATE_BIT CHAR(1) NOT NULL, DELETE_BIT CHAR(1) NOT NULL );
CREATE TABLE MBR_POL_USERS ( POLICY_NAME VARCHAR(250) NOT NULL, USER_NAME VARCHAR(80) NOT NULL );
CREATE UNIQUE INDEX MBR_ENT_NM_PNT_IX ON MBR_ENTRIES (UPPER_ENTRY_NAME,PARENT_ENTRY_ID_P1,PARENT_ENTRY_ID_P2);
CREATE INDEX MBR_ITEMS_ID_IX ON MBR_ITEMS (ITEM_ID_P1,ITEM_ID_P2);
CREATE INDEX MBR_ENT_PARNT_IX ON MBR_ENTRIES (PARENT_ENTRY_ID_P1);
CREATE INDEX MBR_ENT_NM_IX ON MBR_ENTRIES (UPPER_ENTRY_NAME);
ALTER TABLE MBR_ITEMS ADD CONSTRAINT PK_ITEMS PRIMARY KEY (ITEM_ID_P1,ITEM_ID_P2,ITEM_VERSION);
ALTER TABLE MBR_ITEM_CONTENTS ADD CONSTRAINT PK_ITEM_CONTENTS PRIMARY KEY (ITEM_ID_P1,ITEM_ID_P2,ITEM_VERSION);
ALTER TABLE MBR_ENTRIES ADD CONSTRAINT PK_ENTRIES PRIMARY KEY (ENTRY_ID_P1,ENTRY_ID_P2);
ALTER TABLE MBR_LABELS ADD CONSTRAINT PK_LABELS PRIMARY KEY (LABEL_ID_P1,LABEL_ID_P2);
ALTER TABLE MBR_ITEM_LABELS ADD CONSTRAINT PK_ITEM_LABELS PRIMARY KEY (ITEM_ID_P1,ITEM_ID_P2,ITEM_VERSION,LABEL_ID_P1,LABEL_ID_P2);
ALTER TABLE MBR_FOLDER_LABELS ADD CONSTRAINT PK_FOLDER_LABELS PRIMARY KEY (ENTRY_ID_P1,ENTRY_ID_P2,LABEL_ID_P1,LABEL_ID_P2);
ALTER TABLE MBR_POLICIES ADD CONSTRAINT PK_POLICIES PRIMARY KEY (POLICY_NAME);
ALTER TABLE MBR_POL_PERMS ADD CONSTRAINT PK_POL_PERMS PRIMARY KEY (ENTRY_ID_P1,ENTRY_ID_P2,POLICY_NAME);
ALTER TABLE MBR_POL_USERS ADD CONSTRAINT PK_POL_USERS PRIMARY KEY (POLICY_NAME,USER_NAME);
CREATE INDEX MBR_POL_PERMS_IX1 ON MBR_POL_PERMS (POLICY_NAME, READ_BIT);
CREATE INDEX LOGENTRIES_TMSTMP_IX ON LOGENTRIES (TIMESTAMP);
CREATE TABLE DD_TXN_STATES ( ID INTEGER NOT NULL, STATE VARCHAR(128) NOT NULL );
CREATE TABLE DD_TXN_LOG ( ID BIGINT NOT NULL, USER_NME VARCHAR(128), BEGIN_TXN VARCHAR(50), END_TXN VARCHAR(50), ACTION VARCHAR(128), TXN_STATE INTEGER );
CREATE TABLE DD_SHREDQUEUE ( QUEUE_ID NUMERIC(19) NOT NULL, UUID1 NUMERIC(20) NOT NULL, UUID2 NUMERIC(20) NOT NULL, OBJECT_ID VARCHAR(44) NOT NULL, NAME VARCHAR(128) NOT NULL, VERSION VARCHAR(20), MDL_PATH VARCHAR(2000), CMD_ACTION NUMERIC(1) NOT NULL, TXN_ID NUMERIC(19) , SUB_BY_NME VARCHAR(100), SUB_BY_DATE VARCHAR(50) );
CREATE UNIQUE INDEX DDSQ_QUE_IX ON DD_SHREDQUEUE (QUEUE_ID);
CREATE UNIQUE INDEX DDSQ_TXN_IX ON DD_SHREDQUEUE (TXN_ID);
CREATE INDEX DDSQ_UUID_IX ON DD_SHREDQUEUE (OBJECT_ID);
CREATE TABLE MMR_MODELS ( ID BIGINT NOT NULL, NAME VARCHAR(256), PATH VARCHAR(1024), NAMESPACE VARCHAR(1024), IS_METAMODEL SMALLINT, VERSION VARCHAR(64), IS_INCOMPLETE SMALLINT, SHRED_TIME DATETIME );
CREATE TABLE MMR_RESOURCES ( MODEL_ID BIGINT NOT NULL, CONTENT LONGTEXT NOT NULL );
CREATE TABLE MMR_OBJECTS ( ID BIGINT NOT NULL, MODEL_ID BIGINT NOT NULL, NAME VARCHAR(256), PATH VARCHAR(1024), CLASS_NAME VARCHAR(256), UUID VARCHAR(64), NDX_PATH VARCHAR(256), IS_UNRESOLVED SMALLINT );
CREATE TABLE MMR_RESOLVED_OBJECTS ( OBJ_ID BIGINT NOT NULL, MODEL_ID BIGINT NOT NULL, CLASS_ID BIGINT NOT NULL, CONTAINER_ID BIGINT );
CREATE TABLE MMR_REF_FEATURES ( MODEL_ID BIGINT NOT NULL, OBJ_ID BIGINT NOT NULL, NDX INT, DATATYPE_ID BIGINT, LOWER_BOUND INT, UPPER_BOUND INT, IS_CHANGEABLE SMALLINT, IS_UNSETTABLE SMALLINT, IS_CONTAINMENT SMALLINT, OPPOSITE_ID BIGINT );
CREATE TABLE MMR_ATTR_FEATURES ( MODEL_ID BIGINT NOT NULL, OBJ_ID BIGINT NOT NULL, NDX INT, DATATYPE_ID BIGINT, LOWER_BOUND INT, UPPER_BOUND INT, IS_CHANGEABLE SMALLINT, IS_UNSETTABLE SMALLINT );
CREATE TABLE MMR_REFS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, TO_ID BIGINT NOT NULL );
CREATE TABLE MMR_BOOLEAN_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE SMALLINT NOT NULL );
CREATE TABLE MMR_BYTE_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE CHAR(1) NOT NULL );
CREATE TABLE MMR_CHAR_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE CHAR(1) );
CREATE TABLE MMR_CLOB_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE LONGTEXT );
CREATE TABLE MMR_DOUBLE_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE DOUBLE NOT NULL );
CREATE TABLE MMR_ENUM_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE INT NOT NULL );
CREATE TABLE MMR_FLOAT_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE FLOAT NOT NULL );
CREATE TABLE MMR_INT_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE INT NOT NULL );
CREATE TABLE MMR_LONG_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE BIGINT NOT NULL );
CREATE TABLE MMR_SHORT_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE SMALLINT NOT NULL );
CREATE TABLE MMR_STRING_ATTRS ( MODEL_ID BIGINT NOT NULL, OBJECT_ID BIGINT NOT NULL, FEATURE_ID BIGINT NOT NULL, NDX INT NOT NULL, VALUE VARCHAR(4000) );
CREATE INDEX MOD_PATH_NDX ON MMR_MODELS (NAME);
-- mysql 9.7 rejects: Error 1071 (42000): Specified key was too long; max key length is 3072 bytes
CREATE INDEX MOD_PATH2_NDX ON MMR_MODELS (PATH);
-- mysql 9.7 rejects: Error 1071 (42000): Specified key was too long; max key length is 3072 bytes
CREATE INDEX MOD_NAMESPACE_NDX ON MMR_MODELS (NAMESPACE);
CREATE INDEX OBJ_UUID_NDX ON MMR_OBJECTS (UUID);
CREATE INDEX RES_OBJ_MODEL_NDX ON MMR_RESOLVED_OBJECTS (MODEL_ID);
CREATE INDEX RES_OBJ_CLASS_NDX ON MMR_RESOLVED_OBJECTS (CLASS_ID);
CREATE INDEX RF_DATATYPE_NDX ON MMR_REF_FEATURES (DATATYPE_ID);
CREATE INDEX RF_MODEL_NDX ON MMR_REF_FEATURES (MODEL_ID);
CREATE INDEX AF_DATATYPE_NDX ON MMR_ATTR_FEATURES (DATATYPE_ID);
CREATE INDEX AF_MODEL_NDX ON MMR_ATTR_FEATURES (MODEL_ID);
CREATE INDEX BOL_FEATURE_NDX ON MMR_BOOLEAN_ATTRS (FEATURE_ID);
CREATE INDEX BOL_MODEL_NDX ON MMR_BOOLEAN_ATTRS (MODEL_ID);
CREATE INDEX BYT_FEATURE_NDX ON MMR_BYTE_ATTRS (FEATURE_ID);
CREATE INDEX BYT_MODEL_NDX ON MMR_BYTE_ATTRS (MODEL_ID);
CREATE INDEX CHR_FEATURE_NDX ON MMR_CHAR_ATTRS (FEATURE_ID);
CREATE INDEX CHR_MODEL_NDX ON MMR_CHAR_ATTRS (MODEL_ID);
CREATE INDEX CLOB_FEATURE_NDX ON MMR_CLOB_ATTRS (FEATURE_ID);
CREATE INDEX CLOB_MODEL_NDX ON MMR_CLOB_ATTRS (MODEL_ID);
CREATE INDEX DBL_FEATURE_NDX ON MMR_DOUBLE_ATTRS (FEATURE_ID);
CREATE INDEX DBL_MODEL_NDX ON MMR_DOUBLE_ATTRS (MODEL_ID);
CREATE INDEX ENUM_FEATURE_NDX ON MMR_ENUM_ATTRS (FEATURE_ID);
CREATE INDEX ENUM_MODEL_NDX ON MMR_ENUM_ATTRS (MODEL_ID);
CREATE INDEX FLT_FEATURE_NDX ON MMR_FLOAT_ATTRS (FEATURE_ID);
CREATE INDEX FLT_MODEL_NDX ON MMR_FLOAT_ATTRS (MODEL_ID);
CREATE INDEX INT_FEATURE_NDX ON MMR_INT_ATTRS (FEATURE_ID);
CREATE INDEX INT_MODEL_NDX ON MMR_INT_ATTRS (MODEL_ID);
CREATE INDEX LNG_FEATURE_NDX ON MMR_LONG_ATTRS (FEATURE_ID);
CREATE INDEX LNG_MODEL_NDX ON MMR_LONG_ATTRS (MODEL_ID);
CREATE INDEX REF_FEATURE_NDX ON MMR_REFS (FEATURE_ID);
CREATE INDEX REF_TO_NDX ON MMR_REFS (TO_ID);
CREATE INDEX REF_MODEL_NDX ON MMR_REFS (MODEL_ID);
CREATE INDEX SHR_FEATURE_NDX ON MMR_SHORT_ATTRS (FEATURE_ID);
CREATE INDEX SHR_MODEL_NDX ON MMR_SHORT_ATTRS (MODEL_ID);
CREATE INDEX STR_FEATURE_NDX ON MMR_STRING_ATTRS (FEATURE_ID);
CREATE INDEX STR_MODEL_NDX ON MMR_STRING_ATTRS (MODEL_ID);
ALTER TABLE MMR_MODELS ADD CONSTRAINT MOD_PK PRIMARY KEY (ID);
ALTER TABLE MMR_RESOURCES ADD CONSTRAINT RSRC_PK PRIMARY KEY (MODEL_ID);
ALTER TABLE MMR_OBJECTS ADD CONSTRAINT OBJ_PK PRIMARY KEY (ID);
ALTER TABLE MMR_RESOLVED_OBJECTS ADD CONSTRAINT RES_OBJ_PK PRIMARY KEY (OBJ_ID);
ALTER TABLE MMR_REF_FEATURES ADD CONSTRAINT RF_PK PRIMARY KEY (OBJ_ID);
ALTER TABLE MMR_ATTR_FEATURES ADD CONSTRAINT AF_PK PRIMARY KEY (OBJ_ID);
ALTER TABLE MMR_REFS ADD CONSTRAINT REF_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_BOOLEAN_ATTRS ADD CONSTRAINT BOL_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_BYTE_ATTRS ADD CONSTRAINT BYT_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_CHAR_ATTRS ADD CONSTRAINT CHR_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_CLOB_ATTRS ADD CONSTRAINT CLOB_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_DOUBLE_ATTRS ADD CONSTRAINT DBL_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_ENUM_ATTRS ADD CONSTRAINT ENUM_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_FLOAT_ATTRS ADD CONSTRAINT FLT_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_INT_ATTRS ADD CONSTRAINT INT_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_LONG_ATTRS ADD CONSTRAINT LNG_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_SHORT_ATTRS ADD CONSTRAINT SHR_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);
ALTER TABLE MMR_STRING_ATTRS ADD CONSTRAINT STR_PK PRIMARY KEY (OBJECT_ID,FEATURE_ID,NDX);

-- group: debezium/resources/mysql-test-init-5.6.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-test-init-5.6.ddl
CREATE TABLE IF NOT EXISTS db ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(16) binary DEFAULT '' NOT NULL, Select_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Insert_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Update_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Delete_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Drop_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Grant_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, References_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Index_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Alter_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_tmp_table_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Lock_tables_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_view_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Show_view_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_routine_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Alter_routine_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Execute_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Event_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Trigger_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, PRIMARY KEY Host (Host,Db,User), KEY User (User) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Database privileges';
CREATE TABLE IF NOT EXISTS func ( name char(64) binary DEFAULT '' NOT NULL, ret tinyint(1) DEFAULT '0' NOT NULL, dl char(128) DEFAULT '' NOT NULL, type enum ('function','aggregate') COLLATE utf8_general_ci NOT NULL, PRIMARY KEY (name) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='User defined functions';
CREATE TABLE IF NOT EXISTS plugin ( name varchar(64) DEFAULT '' NOT NULL, dl varchar(128) DEFAULT '' NOT NULL, PRIMARY KEY (name) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_general_ci comment='MySQL plugins';
CREATE TABLE IF NOT EXISTS servers ( Server_name char(64) NOT NULL DEFAULT '', Host char(64) NOT NULL DEFAULT '', Db char(64) NOT NULL DEFAULT '', Username char(64) NOT NULL DEFAULT '', Password char(64) NOT NULL DEFAULT '', Port INT(4) NOT NULL DEFAULT '0', Socket char(64) NOT NULL DEFAULT '', Wrapper char(64) NOT NULL DEFAULT '', Owner char(64) NOT NULL DEFAULT '', PRIMARY KEY (Server_name)) CHARACTER SET utf8 comment='MySQL Foreign Servers table';
CREATE TABLE IF NOT EXISTS tables_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(16) binary DEFAULT '' NOT NULL, Table_name char(64) binary DEFAULT '' NOT NULL, Grantor char(77) DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, Table_priv set('Select','Insert','Update','Delete','Create','Drop','Grant','References','Index','Alter','Create View','Show view','Trigger') COLLATE utf8_general_ci DEFAULT '' NOT NULL, Column_priv set('Select','Insert','Update','References') COLLATE utf8_general_ci DEFAULT '' NOT NULL, PRIMARY KEY (Host,Db,User,Table_name), KEY Grantor (Grantor) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Table privileges';
CREATE TABLE IF NOT EXISTS columns_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(16) binary DEFAULT '' NOT NULL, Table_name char(64) binary DEFAULT '' NOT NULL, Column_name char(64) binary DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, Column_priv set('Select','Insert','Update','References') COLLATE utf8_general_ci DEFAULT '' NOT NULL, PRIMARY KEY (Host,Db,User,Table_name,Column_name) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Column privileges';
CREATE TABLE IF NOT EXISTS help_topic ( help_topic_id int unsigned not null, name char(64) not null, help_category_id smallint unsigned not null, description text not null, example text not null, `url` text not null, primary key (help_topic_id), unique index (name) ) engine=MyISAM CHARACTER SET utf8 comment='help topics';
CREATE TABLE IF NOT EXISTS help_category ( help_category_id smallint unsigned not null, name char(64) not null, parent_category_id smallint unsigned null, `url` text not null, primary key (help_category_id), unique index (name) ) engine=MyISAM CHARACTER SET utf8 comment='help categories';
-- mysql 9.7 rejects: Error 1239 (42000): Incorrect foreign key definition for 'foreign key without name': Key reference and table reference don't match
CREATE TABLE IF NOT EXISTS help_relation ( help_topic_id int unsigned not null references help_topic, help_keyword_id int unsigned not null references help_keyword, primary key (help_keyword_id, help_topic_id) ) engine=MyISAM CHARACTER SET utf8 comment='keyword-topic relation';
CREATE TABLE IF NOT EXISTS help_keyword ( help_keyword_id int unsigned not null, name char(64) not null, primary key (help_keyword_id), unique index (name) ) engine=MyISAM CHARACTER SET utf8 comment='help keywords';
CREATE TABLE IF NOT EXISTS time_zone_name ( Name char(64) NOT NULL, Time_zone_id int unsigned NOT NULL, PRIMARY KEY Name (Name) ) engine=MyISAM CHARACTER SET utf8 comment='Time zone names';
CREATE TABLE IF NOT EXISTS time_zone ( Time_zone_id int unsigned NOT NULL auto_increment, Use_leap_seconds enum('Y','N') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, PRIMARY KEY TzId (Time_zone_id) ) engine=MyISAM CHARACTER SET utf8 comment='Time zones';
CREATE TABLE IF NOT EXISTS time_zone_transition ( Time_zone_id int unsigned NOT NULL, Transition_time bigint signed NOT NULL, Transition_type_id int unsigned NOT NULL, PRIMARY KEY TzIdTranTime (Time_zone_id, Transition_time) ) engine=MyISAM CHARACTER SET utf8 comment='Time zone transitions';
CREATE TABLE IF NOT EXISTS time_zone_leap_second ( Transition_time bigint signed NOT NULL, Correction int signed NOT NULL, PRIMARY KEY TranTime (Transition_time) ) engine=MyISAM CHARACTER SET utf8 comment='Leap seconds information for time zones';
CREATE TABLE IF NOT EXISTS procs_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(16) binary DEFAULT '' NOT NULL, Routine_name char(64) COLLATE utf8_general_ci DEFAULT '' NOT NULL, Routine_type enum('FUNCTION','PROCEDURE') NOT NULL, Grantor char(77) DEFAULT '' NOT NULL, Proc_priv set('Execute','Alter Routine','Grant') COLLATE utf8_general_ci DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (Host,Db,User,Routine_name,Routine_type), KEY Grantor (Grantor) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Procedure privileges';
CREATE TABLE IF NOT EXISTS ndb_binlog_index (Position BIGINT UNSIGNED NOT NULL, File VARCHAR(255) NOT NULL, epoch BIGINT UNSIGNED NOT NULL, inserts INT UNSIGNED NOT NULL, updates INT UNSIGNED NOT NULL, deletes INT UNSIGNED NOT NULL, schemaops INT UNSIGNED NOT NULL, orig_server_id INT UNSIGNED NOT NULL, orig_epoch BIGINT UNSIGNED NOT NULL, gci INT UNSIGNED NOT NULL, PRIMARY KEY(epoch, orig_server_id, orig_epoch)) ENGINE=MYISAM;
TRUNCATE TABLE help_category;
TRUNCATE TABLE help_keyword;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.help_relation' doesn't exist
TRUNCATE TABLE help_relation;

-- group: debezium/resources/mysql-test-init-5.7.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-test-init-5.7.ddl
CREATE TABLE IF NOT EXISTS db ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(32) binary DEFAULT '' NOT NULL, Select_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Insert_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Update_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Delete_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Drop_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Grant_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, References_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Index_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Alter_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_tmp_table_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Lock_tables_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_view_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Show_view_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Create_routine_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Alter_routine_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Execute_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Event_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, Trigger_priv enum('N','Y') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, PRIMARY KEY Host (Host,Db,User), KEY User (User) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Database privileges';
CREATE TABLE IF NOT EXISTS func ( name char(64) binary DEFAULT '' NOT NULL, ret tinyint(1) DEFAULT '0' NOT NULL, dl char(128) DEFAULT '' NOT NULL, type enum ('function','aggregate') COLLATE utf8_general_ci NOT NULL, PRIMARY KEY (name) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='User defined functions';
CREATE TABLE IF NOT EXISTS plugin ( name varchar(64) DEFAULT '' NOT NULL, dl varchar(128) DEFAULT '' NOT NULL, PRIMARY KEY (name) ) engine=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8 COLLATE utf8_general_ci comment='MySQL plugins';
CREATE TABLE IF NOT EXISTS servers ( Server_name char(64) NOT NULL DEFAULT '', Host char(64) NOT NULL DEFAULT '', Db char(64) NOT NULL DEFAULT '', Username char(64) NOT NULL DEFAULT '', Password char(64) NOT NULL DEFAULT '', Port INT(4) NOT NULL DEFAULT '0', Socket char(64) NOT NULL DEFAULT '', Wrapper char(64) NOT NULL DEFAULT '', Owner char(64) NOT NULL DEFAULT '', PRIMARY KEY (Server_name)) engine=InnoDB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='MySQL Foreign Servers table';
CREATE TABLE IF NOT EXISTS tables_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(32) binary DEFAULT '' NOT NULL, Table_name char(64) binary DEFAULT '' NOT NULL, Grantor char(77) DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, Table_priv set('Select','Insert','Update','Delete','Create','Drop','Grant','References','Index','Alter','Create View','Show view','Trigger') COLLATE utf8_general_ci DEFAULT '' NOT NULL, Column_priv set('Select','Insert','Update','References') COLLATE utf8_general_ci DEFAULT '' NOT NULL, PRIMARY KEY (Host,Db,User,Table_name), KEY Grantor (Grantor) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Table privileges';
CREATE TABLE IF NOT EXISTS columns_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(32) binary DEFAULT '' NOT NULL, Table_name char(64) binary DEFAULT '' NOT NULL, Column_name char(64) binary DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, Column_priv set('Select','Insert','Update','References') COLLATE utf8_general_ci DEFAULT '' NOT NULL, PRIMARY KEY (Host,Db,User,Table_name,Column_name) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Column privileges';
CREATE TABLE IF NOT EXISTS help_topic ( help_topic_id int unsigned not null, name char(64) not null, help_category_id smallint unsigned not null, description text not null, example text not null, `url` text not null, primary key (help_topic_id), unique index (name) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='help topics';
CREATE TABLE IF NOT EXISTS help_category ( help_category_id smallint unsigned not null, name char(64) not null, parent_category_id smallint unsigned null, `url` text not null, primary key (help_category_id), unique index (name) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='help categories';
CREATE TABLE IF NOT EXISTS help_relation ( help_topic_id int unsigned not null, help_keyword_id int unsigned not null, primary key (help_keyword_id, help_topic_id) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='keyword-topic relation';
CREATE TABLE IF NOT EXISTS help_keyword ( help_keyword_id int unsigned not null, name char(64) not null, primary key (help_keyword_id), unique index (name) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='help keywords';
CREATE TABLE IF NOT EXISTS time_zone_name ( Name char(64) NOT NULL, Time_zone_id int unsigned NOT NULL, PRIMARY KEY Name (Name) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='Time zone names';
CREATE TABLE IF NOT EXISTS time_zone ( Time_zone_id int unsigned NOT NULL auto_increment, Use_leap_seconds enum('Y','N') COLLATE utf8_general_ci DEFAULT 'N' NOT NULL, PRIMARY KEY TzId (Time_zone_id) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='Time zones';
CREATE TABLE IF NOT EXISTS time_zone_transition ( Time_zone_id int unsigned NOT NULL, Transition_time bigint signed NOT NULL, Transition_type_id int unsigned NOT NULL, PRIMARY KEY TzIdTranTime (Time_zone_id, Transition_time) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='Time zone transitions';
CREATE TABLE IF NOT EXISTS time_zone_leap_second ( Transition_time bigint signed NOT NULL, Correction int signed NOT NULL, PRIMARY KEY TranTime (Transition_time) ) engine=INNODB STATS_PERSISTENT=0 CHARACTER SET utf8 comment='Leap seconds information for time zones';
CREATE TABLE IF NOT EXISTS procs_priv ( Host char(60) binary DEFAULT '' NOT NULL, Db char(64) binary DEFAULT '' NOT NULL, User char(32) binary DEFAULT '' NOT NULL, Routine_name char(64) COLLATE utf8_general_ci DEFAULT '' NOT NULL, Routine_type enum('FUNCTION','PROCEDURE') NOT NULL, Grantor char(77) DEFAULT '' NOT NULL, Proc_priv set('Execute','Alter Routine','Grant') COLLATE utf8_general_ci DEFAULT '' NOT NULL, Timestamp timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (Host,Db,User,Routine_name,Routine_type), KEY Grantor (Grantor) ) engine=MyISAM CHARACTER SET utf8 COLLATE utf8_bin comment='Procedure privileges';
CREATE TABLE IF NOT EXISTS ndb_binlog_index (Position BIGINT UNSIGNED NOT NULL, File VARCHAR(255) NOT NULL, epoch BIGINT UNSIGNED NOT NULL, inserts INT UNSIGNED NOT NULL, updates INT UNSIGNED NOT NULL, deletes INT UNSIGNED NOT NULL, schemaops INT UNSIGNED NOT NULL, orig_server_id INT UNSIGNED NOT NULL, orig_epoch BIGINT UNSIGNED NOT NULL, gci INT UNSIGNED NOT NULL, next_position BIGINT UNSIGNED NOT NULL, next_file VARCHAR(255) NOT NULL, PRIMARY KEY(epoch, orig_server_id, orig_epoch)) ENGINE=MYISAM;
CREATE TABLE IF NOT EXISTS engine_cost ( engine_name VARCHAR(64) NOT NULL, device_type INTEGER NOT NULL, cost_name VARCHAR(64) NOT NULL, cost_value FLOAT DEFAULT NULL, last_update TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, comment VARCHAR(1024) DEFAULT NULL, PRIMARY KEY (cost_name, engine_name, device_type) ) ENGINE=InnoDB CHARACTER SET=utf8 COLLATE=utf8_general_ci STATS_PERSISTENT=0;

-- group: debezium/resources/mysql-test-statements.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-test-statements.ddl
CREATE TABLE RT_VDB_MDLS ( VDB_UID NUMERIC(10) NOT NULL , MDL_UID NUMERIC(10) NOT NULL , CNCTR_BNDNG_NM VARCHAR(255) );
CREATE TABLE CS_EXT_FILES ( FILE_UID INTEGER NOT NULL, CHKSUM NUMERIC(20), FILE_NAME VARCHAR(255) NOT NULL, FILE_CONTENTS LONGBLOB, CONFIG_CONTENTS LONGTEXT, SEARCH_POS INTEGER, IS_ENABLED CHAR(1), FILE_DESC VARCHAR(4000), CONSTRAINT PK_CS_EXT_FILES PRIMARY KEY (FILE_UID) );
CREATE TABLE MMSCHEMAINFO_CA ( SCRIPTNAME VARCHAR(50), SCRIPTEXECUTEDBY VARCHAR(50), SCRIPTREV VARCHAR(50), RELEASEDATE VARCHAR(50), DATECREATED DATE, DATEUPDATED DATE, UPDATEID VARCHAR(50), METAMATRIXSERVERURL VARCHAR(100) );
CREATE TABLE t1 ( id INT, year_col INT ) PARTITION BY RANGE (year_col) ( PARTITION p0 VALUES LESS THAN (1991), PARTITION p1 VALUES LESS THAN (1995), PARTITION p2 VALUES LESS THAN (1999) );
CREATE TABLE t2 ( name VARCHAR (30), started DATE, a BIT, b VARCHAR(20) NOT NULL ) PARTITION BY HASH( YEAR(started) ) PARTITIONS 6;
ALTER TABLE t1 DROP PARTITION p0, p1;
ALTER TABLE t1 RENAME t4;
ALTER TABLE t2 MODIFY a TINYINT NOT NULL, CHANGE b c CHAR(20);
ALTER TABLE t2 ADD d TIMESTAMP;
ALTER TABLE t2 DROP COLUMN c;
ALTER TABLE t2 STORAGE DISK;
CREATE TABLE lookup (id INT) ENGINE = MEMORY;
CREATE INDEX id_index USING BTREE ON lookup (id);
DROP TABLE IF EXISTS table_4, table_5, table_6;
DROP TABLE IF EXISTS table_7, table_8 RESTRICT;

-- group: debezium/resources/mysql-ticketmonster-liquibase.ddl
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql-ticketmonster-liquibase.ddl
DROP TABLE IF EXISTS ticketmonster.Booking;
DROP TABLE IF EXISTS ticketmonster.Appearance;
DROP TABLE IF EXISTS ticketmonster.Section;
DROP TABLE IF EXISTS ticketmonster.TicketCategory;
DROP TABLE IF EXISTS ticketmonster.TicketPriceGuide;
DROP TABLE IF EXISTS ticketmonster.SectionAllocation;
DROP TABLE IF EXISTS ticketmonster.Ticket;
CREATE TABLE `Appearance` ( `id` bigint(20) NOT NULL AUTO_INCREMENT, `event_id` bigint(20) DEFAULT NULL, `event_name` varchar(255) DEFAULT NULL, `venue_id` bigint(20) DEFAULT NULL, `venue_name` varchar(255) DEFAULT NULL, PRIMARY KEY (`id`), UNIQUE KEY `UKb2ol0eoqtadvfoxhsnqcajgqa` (`event_id`,`venue_id`) ) ENGINE=InnoDB AUTO_INCREMENT=7 DEFAULT CHARSET=latin1;
CREATE TABLE `Booking` ( `id` bigint(20) NOT NULL AUTO_INCREMENT, `cancellationCode` varchar(255) NOT NULL, `contactEmail` varchar(255) NOT NULL, `createdOn` datetime(6) NOT NULL, `performance_id` bigint(20) DEFAULT NULL, `performance_name` varchar(255) DEFAULT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB AUTO_INCREMENT=8 DEFAULT CHARSET=latin1;
CREATE TABLE `Section` ( `id` bigint(20) NOT NULL AUTO_INCREMENT, `description` varchar(255) NOT NULL, `name` varchar(255) NOT NULL, `numberOfRows` int(11) NOT NULL, `rowCapacity` int(11) NOT NULL, `venue_id` bigint(20) DEFAULT NULL, `venue_name` varchar(255) DEFAULT NULL, PRIMARY KEY (`id`), UNIQUE KEY `UKruosqireipse41rdsuvhqj050` (`name`,`venue_id`) ) ENGINE=InnoDB AUTO_INCREMENT=24 DEFAULT CHARSET=latin1;
CREATE TABLE `SectionAllocation` ( `id` bigint(20) NOT NULL AUTO_INCREMENT, `allocated` longblob, `occupiedCount` int(11) NOT NULL, `performance_id` bigint(20) DEFAULT NULL, `performance_name` varchar(255) DEFAULT NULL, `version` bigint(20) NOT NULL, `section_id` bigint(20) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `UK25wlm457x8dmc00we5uw7an3s` (`performance_id`,`section_id`), KEY `FK60388cvbhb1xyrdhhe546t6dl` (`section_id`), CONSTRAINT `FK60388cvbhb1xyrdhhe546t6dl` FOREIGN KEY (`section_id`) REFERENCES `Section` (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION ) ENGINE=InnoDB AUTO_INCREMENT=57 DEFAULT CHARSET=latin1;
CREATE TABLE `TicketCategory` ( `id` bigint(20) NOT NULL AUTO_INCREMENT, `description` varchar(255) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `UK_43455ipnchbn6r4bg8pviai3g` (`description`) ) ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=latin1;

-- group: debezium/resources/mysql_dbz_6533.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/mysql_dbz_6533.sql
CREATE TABLE tablename_suffix ( PRIMARY KEY (id), id INTEGER NOT NULL AUTO_INCREMENT );
CREATE TABLE tablename ( PRIMARY KEY (id), id INTEGER NOT NULL AUTO_INCREMENT );
CREATE TABLE another ( PRIMARY KEY (id), id INTEGER NOT NULL AUTO_INCREMENT );

-- group: debezium/resources/nationalized_character_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/nationalized_character_test.sql
CREATE TABLE `NC_TEST` ( `id` INT NOT NULL AUTO_INCREMENT, `nc1` nchar default null, `nc2` nchar(5) default null, `nc3` nvarchar(25) default null, PRIMARY KEY (`ID`) ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

-- group: debezium/resources/numeric_column_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/numeric_column_test.sql
CREATE TABLE dbz_751_numeric_column_test ( id INT AUTO_INCREMENT NOT NULL, rating1 NUMERIC, rating2 NUMERIC(8, 4), rating3 NUMERIC(7), rating4 NUMERIC(6, 0), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/readbinlog_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/readbinlog_test.sql
CREATE TABLE person ( name VARCHAR(255) primary key, birthdate DATE NULL, age INTEGER NULL DEFAULT 10, salary DECIMAL(5,2), bitStr BIT(18) );
CREATE TABLE product ( id INT NOT NULL AUTO_INCREMENT, createdByDate DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, modifiedDate DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY(id) );
CREATE TABLE purchased ( purchaser VARCHAR(255) NOT NULL, productId INT NOT NULL, purchaseDate DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY(productId,purchaser) );

-- group: debezium/resources/real_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/real_test.sql
CREATE TABLE `REAL_TEST` ( `id` INT NOT NULL AUTO_INCREMENT, `r1` real default 1.25, PRIMARY KEY (`ID`) ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4;

-- group: debezium/resources/regression_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/regression_test.sql
CREATE TABLE t1464075356413_testtable6 ( pk_column int auto_increment NOT NULL, varbinary_col varbinary(20) NOT NULL, PRIMARY KEY(pk_column) );
CREATE TABLE dbz84_integer_types_table ( colTinyIntA tinyint NOT NULL DEFAULT 100, colTinyIntB tinyint(1) NOT NULL DEFAULT 101, colTinyIntC tinyint(2) UNSIGNED NOT NULL DEFAULT 102, colTinyIntD tinyint(3) UNSIGNED NOT NULL DEFAULT 103, colSmallIntA smallint NOT NULL DEFAULT 200, colSmallIntB smallint(1) NOT NULL DEFAULT 201, colSmallIntC smallint(2) NOT NULL DEFAULT 201, colSmallIntD smallint(3) NOT NULL DEFAULT 201, colMediumIntA mediumint NOT NULL DEFAULT 300, colMediumIntB mediumint(1) NOT NULL DEFAULT 301, colMediumIntC mediumint(2) NOT NULL DEFAULT 302, colMediumIntD mediumint(3) NOT NULL DEFAULT 303, colIntA int NOT NULL DEFAULT 400, colIntB int(1) NOT NULL DEFAULT 401, colIntC int(2) NOT NULL DEFAULT 402, colIntD int(3) NOT NULL DEFAULT 403, colBigIntA bigint NOT NULL DEFAULT 500, colBigIntB bigint(1) NOT NULL DEFAULT 501, colBigIntC bigint(2) NOT NULL DEFAULT 502, colBigIntD bigint(3) NOT NULL DEFAULT 503 );
CREATE TABLE dbz_85_fractest ( c1 DATE, c2 TIME(2), c3 DATETIME(2), c4 TIMESTAMP(2) );
CREATE TABLE dbz_100_enumsettest ( c1 enUM('a','b','c'), c2 Set('a','b','c') );
CREATE TABLE dbz_102_charsettest ( id INT(11) NOT NULL AUTO_INCREMENT, text VARCHAR(255) DEFAULT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB AUTO_INCREMENT=2001 DEFAULT CHARSET=utf8;
CREATE TABLE dbz_114_zerovaluetest ( c1 DATE, c2 TIME(2), c3 DATETIME(2), c4 TIMESTAMP(2) );
CREATE TABLE dbz_1318_zerovaluetest ( c1 DATE, c2 TIME(2), c3 DATETIME(2), c4 TIMESTAMP(2), nnc1 DATE NOT NULL, nnc2 TIME(2) NOT NULL, nnc3 DATETIME(2) NOT NULL );
CREATE TABLE dbz_123_bitvaluetest ( c1 BIT, c2 BIT(2), c3 BIT(8) NOT NULL, c4 BIT(64) );
CREATE TABLE dbz_147_decimalvalues ( pk_column int auto_increment NOT NULL, decimal_value decimal(7,2) NOT NULL, PRIMARY KEY(pk_column) );
CREATE TABLE dbz_195_numvalues ( id int auto_increment NOT NULL, `search_version_read` int(11) NOT NULL DEFAULT '0', PRIMARY KEY (`id`) ) ENGINE=InnoDB AUTO_INCREMENT=4972 DEFAULT CHARSET=utf8;
CREATE TABLE dbz_342_timetest ( c1 TIME(2), c2 TIME(0), c3 TIME(3), c4 TIME(3), c5 TIME(6), c6 TIME(6), c7 TIME(6), c8 TIME(6), c9 TIME(6), c10 TIME(6), c11 TIME(6) );

-- group: debezium/resources/schema_name_adjustment.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/schema_name_adjustment.sql
CREATE TABLE `name-adjustment` (id INT);

-- group: debezium/resources/skip_messages_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/skip_messages_test.sql
CREATE TABLE `debezium_test` ( id INT NOT NULL PRIMARY KEY, black INT, white INT ) ENGINE=InnoDB AUTO_INCREMENT=15851 DEFAULT CHARSET=utf8;

-- group: debezium/resources/source_type_as_schema_parameter_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/source_type_as_schema_parameter_test.sql
CREATE TABLE dbz_644_source_type_mapped_as_schema_parameter_test ( id INT AUTO_INCREMENT NOT NULL, c1 INT, c2 MEDIUMINT, c3a NUMERIC(5,2), c3b VARCHAR(128), f1 FLOAT(10), f2 FLOAT(8,4), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/sql_bin_log_off_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/sql_bin_log_off_test.sql
CREATE TABLE dbz7093 ( id INT NOT NULL, age INT NULL, name VARCHAR(255) NULL, PRIMARY KEY(id) );

-- group: debezium/resources/ssl_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/ssl_test.sql
CREATE TABLE dbz4787( id BIGINT NOT NULL AUTO_INCREMENT, a VARCHAR(255) NULL, b DECIMAL(38, 10) NULL, c INT NULL, PRIMARY KEY (id) );

-- group: debezium/resources/strategy_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/strategy_test.sql
CREATE TABLE `dbz4180` ( id INT NOT NULL PRIMARY KEY AUTO_INCREMENT, a NUMERIC(10, 2) NOT NULL DEFAULT 1.23, b DECIMAL(10, 3) NOT NULL DEFAULT 2.321, c VARCHAR(255) NULL DEFAULT 'default mysql strategy', d INT NULL DEFAULT '100', e DATETIME NULL DEFAULT CURRENT_TIMESTAMP ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8;
CREATE TABLE `dbz_4180_00` ( id INT NOT NULL PRIMARY KEY AUTO_INCREMENT, a NUMERIC(10, 2) NOT NULL DEFAULT 1.23, b DECIMAL(10, 3) NOT NULL DEFAULT 2.321, c VARCHAR(255) NULL DEFAULT 'shard 0', d INT NULL DEFAULT '100', e DATETIME NULL DEFAULT CURRENT_TIMESTAMP ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8;
CREATE TABLE `dbz_4180_01` ( id INT NOT NULL PRIMARY KEY AUTO_INCREMENT, a NUMERIC(10, 2) NOT NULL DEFAULT 1.23, b DECIMAL(10, 3) NOT NULL DEFAULT 2.321, c VARCHAR(255) NULL DEFAULT 'shard 1', d INT NULL DEFAULT '100', e DATETIME NULL DEFAULT CURRENT_TIMESTAMP ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8;
CREATE TABLE `dbz5743中文` ( id INT NOT NULL PRIMARY KEY AUTO_INCREMENT, a NUMERIC(10, 2) NOT NULL DEFAULT 1.23, b DECIMAL(10, 3) NOT NULL DEFAULT 2.321, c VARCHAR(255) NULL DEFAULT 'default mysql strategy', d INT NULL DEFAULT '100', e DATETIME NULL DEFAULT CURRENT_TIMESTAMP ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8;

-- group: debezium/resources/table_column_comment_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/table_column_comment_test.sql
CREATE TABLE dbz_4000_comment_test ( id INT AUTO_INCREMENT NOT NULL COMMENT 'pk', name VARCHAR(255) NOT NULL COMMENT 'this is name column', value BIGINT NULL COMMENT 'the value is bigint type', PRIMARY KEY (id) ) DEFAULT CHARSET=utf8 COMMENT='table for dbz-4000';

-- group: debezium/resources/table_maintenance_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/table_maintenance_test.sql
CREATE TABLE dbz_253_table_maintenance_test ( id INT AUTO_INCREMENT NOT NULL, other int, PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/timestamp_column_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/timestamp_column_test.sql
CREATE TABLE t_user_block_list ( `id` int(10) unsigned NOT NULL, `data` varchar(20), `create_time` datetime, `update_time` datetime, PRIMARY KEY (`id`) );
ALTER TABLE t_user_block_list MODIFY COLUMN `update_time` datetime(0) NOT NULL DEFAULT CURRENT_TIMESTAMP(0) COMMENT 'update_time' AFTER create_time;

-- group: debezium/resources/tinyint_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/tinyint_test.sql
CREATE TABLE `DBZ1773` ( id int not null primary key auto_increment, ti TINYINT SIGNED, ti1 TINYINT(1) SIGNED, ti2 TINYINT(2), b BOOLEAN ) ENGINE=InnoDB AUTO_INCREMENT=10851 DEFAULT CHARSET=utf8;
CREATE TABLE `DBZ2085` ( id int not null primary key auto_increment, b BOOLEAN NOT NULL DEFAULT 0 ) ENGINE=InnoDB AUTO_INCREMENT=10851 DEFAULT CHARSET=utf8;
CREATE TABLE `DBZ5236` ( id int(11) not null primary key auto_increment, ti1 tinyint(3) unsigned NOT NULL DEFAULT '0', ti2 tinyint(1) unsigned NOT NULL DEFAULT '0', ti3 tinyint(1) NOT NULL DEFAULT '1' ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8;

-- group: debezium/resources/topic_name_sanitization_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/topic_name_sanitization_test.sql
CREATE TABLE `dbz_878_some|test@data` ( id INT, some_col VARCHAR(255), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;
CREATE TABLE `DBZ.1834` ( id INT, some_col VARCHAR(255), PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/transaction_metadata_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/transaction_metadata_test.sql
CREATE TABLE products ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL, description VARCHAR(512), weight FLOAT );
CREATE TABLE customers ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE KEY ) AUTO_INCREMENT=1001;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES products(id) ) AUTO_INCREMENT = 10001;

-- group: debezium/resources/transactionpayload_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/transactionpayload_test.sql
CREATE TABLE products ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(255) NOT NULL, description VARCHAR(512), weight FLOAT, code BINARY(16) );
CREATE TABLE customers ( id INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, first_name VARCHAR(255) NOT NULL, last_name VARCHAR(255) NOT NULL, email VARCHAR(255) NOT NULL UNIQUE KEY ) AUTO_INCREMENT=1001;
CREATE TABLE orders ( order_number INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY, order_date DATE NOT NULL, purchaser INTEGER NOT NULL, quantity INTEGER NOT NULL, product_id INTEGER NOT NULL, FOREIGN KEY order_customer (purchaser) REFERENCES customers(id), FOREIGN KEY ordered_product (product_id) REFERENCES products(id) ) AUTO_INCREMENT = 10001;

-- group: debezium/resources/unsigned_integer_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/unsigned_integer_test.sql
CREATE TABLE dbz_228_tinyint_unsigned ( id int auto_increment NOT NULL, c1 TINYINT(3) UNSIGNED ZEROFILL NOT NULL, c2 TINYINT(3) UNSIGNED NOT NULL, c3 TINYINT(3) NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_228_smallint_unsigned ( id int auto_increment NOT NULL, c1 SMALLINT UNSIGNED ZEROFILL NOT NULL, c2 SMALLINT UNSIGNED NOT NULL, c3 SMALLINT NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_228_mediumint_unsigned ( id int auto_increment NOT NULL, c1 MEDIUMINT UNSIGNED ZEROFILL NOT NULL, c2 MEDIUMINT UNSIGNED NOT NULL, c3 MEDIUMINT NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_228_int_unsigned ( id int auto_increment NOT NULL, c1 int(11) UNSIGNED ZEROFILL NOT NULL, c2 int(11) UNSIGNED NOT NULL, c3 int(11) NOT NULL, c4 int(5) UNSIGNED ZEROFILL NOT NULL, c5 int(5) UNSIGNED NOT NULL , c6 int(5) NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_integer_unsigned ( id int auto_increment NOT NULL, c1 INTEGER(11) UNSIGNED ZEROFILL NOT NULL, c2 INTEGER(11) UNSIGNED NOT NULL, c3 INTEGER(11) NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_228_bigint_unsigned ( id int auto_increment NOT NULL, c1 BIGINT UNSIGNED ZEROFILL NOT NULL, c2 BIGINT UNSIGNED NOT NULL, c3 BIGINT NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_1185_serial ( id SERIAL NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;
CREATE TABLE dbz_1185_serial_default_value ( id SMALLINT UNSIGNED SERIAL DEFAULT VALUE NOT NULL, PRIMARY KEY (`id`) ) ENGINE=InnoDB DEFAULT CHARSET=utf8;

-- group: debezium/resources/year_test.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/year_test.sql
CREATE TABLE dbz_1143_year_test ( id INT AUTO_INCREMENT NOT NULL, y18 YEAR, y0018 YEAR, y2018 YEAR, d18 DATE, d0018 DATE, d2018 DATE, dt18 DATETIME, dt0018 DATETIME, dt2018 DATETIME, y78 YEAR, y0078 YEAR, y1978 YEAR, d78 DATE, d0078 DATE, d1978 DATE, dt78 DATETIME, dt0078 DATETIME, dt1978 DATETIME, PRIMARY KEY (id) ) DEFAULT CHARSET=utf8;

-- group: debezium/resources/zero_date_fallback_converter.sql
-- origin: github.com/debezium/debezium debezium-connector-binlog/src/test/resources/ddl/zero_date_fallback_converter.sql
CREATE TABLE dt_full ( id INT PRIMARY KEY, label VARCHAR(64), d_no_default DATE NOT NULL, d_epoch_default DATE NOT NULL DEFAULT '1970-01-01', d_other_default DATE NOT NULL DEFAULT '2030-12-31', dt_no_default DATETIME NOT NULL, dt_epoch_default DATETIME NOT NULL DEFAULT '1970-01-01 00:00:00', dt_other_default DATETIME NOT NULL DEFAULT '2030-12-31 23:59:59', ts_no_default TIMESTAMP NOT NULL, ts_epoch_default TIMESTAMP NOT NULL DEFAULT '1970-01-02 00:00:00', ts_other_default TIMESTAMP NOT NULL DEFAULT '2030-12-31 23:59:59' );
