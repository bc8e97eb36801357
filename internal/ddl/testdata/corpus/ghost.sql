-- sluice DDL corpus (internal/ddl/testdata/corpus/build): table DDL from other projects' test suites,
-- one statement a line, each accepted by MariaDB 10.11 in this order (a line "-- mysql 9.7 rejects"
-- before one says MySQL 9.7 did not); "DROP TABLE" lines before a CREATE of a name already
-- taken were added by the build, since those origins' statements are independent.

-- group: gh-ost/alter-charset
-- origin: github.com/github/gh-ost localtests/alter-charset/create.sql, extra_args (--alter)
drop table if exists gh_ost_test;
create table gh_ost_test ( id int auto_increment, t1 varchar(128) charset latin1 collate latin1_swedish_ci, t2 varchar(128) charset latin1 collate latin1_swedish_ci, tutf8 varchar(128) charset utf8, tutf8mb4 varchar(128) charset utf8mb4, primary key(id) ) auto_increment=1;
alter table gh_ost_test MODIFY `t1` varchar(128) CHARACTER SET utf8mb4 NOT NULL, MODIFY `t2` varchar(128) CHARACTER SET latin2 NOT NULL, MODIFY `tutf8` varchar(128) CHARACTER SET latin1 NOT NULL;

-- group: gh-ost/alter-charset-all-dml
-- origin: github.com/github/gh-ost localtests/alter-charset-all-dml/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t1 varchar(128) charset latin1 collate latin1_swedish_ci, t2 varchar(128) charset latin1 collate latin1_swedish_ci, tutf8 varchar(128) charset utf8, tutf8mb4 varchar(128) charset utf8mb4, random_value varchar(128) charset ascii, primary key(id) ) auto_increment=1;

-- group: gh-ost/analyze-ghost-table-before-cutover
-- origin: github.com/github/gh-ost localtests/analyze-ghost-table-before-cutover/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, color varchar(32), primary key(id) ) auto_increment=1;

-- group: gh-ost/attempt-instant-ddl
-- origin: github.com/github/gh-ost localtests/attempt-instant-ddl/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, color varchar(32), primary key(id) ) auto_increment=1;

-- group: gh-ost/autoinc-copy-deletes
-- origin: github.com/github/gh-ost localtests/autoinc-copy-deletes/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/autoinc-copy-deletes-user-defined
-- origin: github.com/github/gh-ost localtests/autoinc-copy-deletes-user-defined/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test AUTO_INCREMENT=7;

-- group: gh-ost/autoinc-copy-simple
-- origin: github.com/github/gh-ost localtests/autoinc-copy-simple/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/autoinc-zero-value
-- origin: github.com/github/gh-ost localtests/autoinc-zero-value/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/bigint-change-nullable
-- origin: github.com/github/gh-ost localtests/bigint-change-nullable/create.sql, extra_args (--alter)
create table gh_ost_test ( id bigint auto_increment, val bigint not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test change val val bigint;

-- group: gh-ost/binary-to-varbinary
-- origin: github.com/github/gh-ost localtests/binary-to-varbinary/create.sql, extra_args (--alter)
create table gh_ost_test ( id int NOT NULL AUTO_INCREMENT, info varchar(255) NOT NULL, data binary(20) NOT NULL, PRIMARY KEY (id) ) auto_increment=1;
alter table gh_ost_test MODIFY data varbinary(32);

-- group: gh-ost/bit-add
-- origin: github.com/github/gh-ost localtests/bit-add/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test add column is_good bit null default 0;

-- group: gh-ost/bit-dml
-- origin: github.com/github/gh-ost localtests/bit-dml/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, is_good bit null default 0, primary key(id) ) auto_increment=1;
alter table gh_ost_test modify column is_good bit not null default 0;

-- group: gh-ost/compound-pk
-- origin: github.com/github/gh-ost localtests/compound-pk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, v varchar(128), updated tinyint unsigned default 0, primary key(id, v) ) auto_increment=1;

-- group: gh-ost/compound-pk-ts
-- origin: github.com/github/gh-ost localtests/compound-pk-ts/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp(6) default current_timestamp(6), updated tinyint unsigned default 0, primary key(id, ts0) ) auto_increment=1;

-- group: gh-ost/convert-utf8mb4
-- origin: github.com/github/gh-ost localtests/convert-utf8mb4/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset utf8 collate utf8_general_ci, tl varchar(128) charset latin1 not null, ta varchar(128) charset ascii not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test convert to character set utf8mb4;

-- group: gh-ost/copy-retries-exhausted
-- origin: github.com/github/gh-ost localtests/copy-retries-exhausted/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, name mediumtext not null, primary key (id) ) auto_increment=1;

-- group: gh-ost/datetime
-- origin: github.com/github/gh-ost localtests/datetime/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, dt0 datetime default current_timestamp, dt1 datetime, dt2 datetime, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/datetime-1970
-- origin: github.com/github/gh-ost localtests/datetime-1970/create.sql, extra_args (--alter)
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'create_time'
create table gh_ost_test ( id int auto_increment, create_time timestamp NULL DEFAULT '0000-00-00 00:00:00', update_time timestamp NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, counter int(10) unsigned DEFAULT NULL, primary key(id) ) auto_increment=1;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.gh_ost_test' doesn't exist
alter table gh_ost_test add column name varchar(1);

-- group: gh-ost/datetime-submillis
-- origin: github.com/github/gh-ost localtests/datetime-submillis/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, dt0 datetime(6), dt1 datetime(6), ts2 timestamp(6), updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/datetime-submillis-zeroleading
-- origin: github.com/github/gh-ost localtests/datetime-submillis-zeroleading/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, dt0 datetime(6), dt1 datetime(6), ts2 timestamp(6), updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/datetime-to-timestamp
-- origin: github.com/github/gh-ost localtests/datetime-to-timestamp/create.sql, extra_args (--alter)
create table gh_ost_test ( id int unsigned auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp null, dt2 datetime, t datetime null, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;
alter table gh_ost_test change column t t timestamp null;

-- group: gh-ost/datetime-to-timestamp-pk-fail
-- origin: github.com/github/gh-ost localtests/datetime-to-timestamp-pk-fail/create.sql, extra_args (--alter)
create table gh_ost_test ( id int unsigned auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp null, dt2 datetime, t datetime default current_timestamp, updated tinyint unsigned default 0, primary key(id, t), key i_idx(i) ) auto_increment=1;
alter table gh_ost_test change column t t timestamp default current_timestamp;

-- group: gh-ost/datetime-with-zero
-- origin: github.com/github/gh-ost localtests/datetime-with-zero/create.sql, extra_args (--alter)
create table gh_ost_test ( id int unsigned auto_increment, i int not null, dt datetime, primary key(id) ) auto_increment=1;
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'dt'
alter table gh_ost_test change column dt dt datetime not null default '1970-00-00 00:00:00';

-- group: gh-ost/decimal
-- origin: github.com/github/gh-ost localtests/decimal/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, dec0 decimal(65,30) unsigned NOT NULL DEFAULT '0.000000000000000000000000000000', dec1 decimal(65,30) unsigned NOT NULL DEFAULT '1.000000000000000000000000000000', primary key(id) ) auto_increment=1;

-- group: gh-ost/discard-fk
-- origin: github.com/github/gh-ost localtests/discard-fk/create.sql, extra_args (--alter)
drop table if exists gh_ost_test_child;
drop table if exists gh_ost_test_fk_parent;
create table gh_ost_test_fk_parent ( id int auto_increment, ts timestamp, primary key(id) );
create table gh_ost_test ( id int auto_increment, i int not null, parent_id int not null, primary key(id), constraint test_fk foreign key (parent_id) references gh_ost_test_fk_parent (id) on delete no action ) auto_increment=1;

-- group: gh-ost/drop-null-add-not-null
-- origin: github.com/github/gh-ost localtests/drop-null-add-not-null/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int null, c2 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test drop column c1, add column c1 int not null default 47;

-- group: gh-ost/enum
-- origin: github.com/github/gh-ost localtests/enum/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, e enum('red', 'green', 'blue', 'orange') null default null collate 'utf8_bin', primary key(id) ) auto_increment=1;
alter table gh_ost_test change e e enum('red', 'green', 'blue', 'orange', 'yellow') null default null collate 'utf8_bin';

-- group: gh-ost/enum-pk
-- origin: github.com/github/gh-ost localtests/enum-pk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, e enum('red', 'green', 'blue', 'orange') not null default 'red' collate 'utf8_bin', primary key(id, e) ) auto_increment=1;

-- group: gh-ost/enum-to-varchar
-- origin: github.com/github/gh-ost localtests/enum-to-varchar/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, e enum('red', 'green', 'blue', 'orange') null default null collate 'utf8_bin', primary key(id) ) auto_increment=1;
alter table gh_ost_test change e e varchar(32) not null default '';

-- group: gh-ost/existing-datetime-with-zero
-- origin: github.com/github/gh-ost localtests/existing-datetime-with-zero/create.sql, extra_args (--alter)
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'dt'
create table gh_ost_test ( id int unsigned auto_increment, i int not null, dt datetime not null default '1970-00-00 00:00:00', primary key(id) ) auto_increment=1;
-- mysql 9.7 rejects: Error 1146 (42S02): Table 'zz_sluice_ddlcorpus_build.gh_ost_test' doesn't exist
alter table gh_ost_test engine=innodb;

-- group: gh-ost/fail-datetime-with-zero
-- origin: github.com/github/gh-ost localtests/fail-datetime-with-zero/create.sql, extra_args (--alter)
create table gh_ost_test ( id int unsigned auto_increment, i int not null, dt datetime, primary key(id) ) auto_increment=1;

-- group: gh-ost/fail-drop-pk
-- origin: github.com/github/gh-ost localtests/fail-drop-pk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts timestamp, primary key(id) ) auto_increment=1;
alter table gh_ost_test change id id int, drop primary key;

-- group: gh-ost/fail-existing-datetime-with-zero
-- origin: github.com/github/gh-ost localtests/fail-existing-datetime-with-zero/create.sql, extra_args (--alter)
-- mysql 9.7 rejects: Error 1067 (42000): Invalid default value for 'dt'
create table gh_ost_test ( id int unsigned auto_increment, i int not null, dt datetime not null default '1970-00-00 00:00:00', primary key(id) ) auto_increment=1;

-- group: gh-ost/fail-fk
-- origin: github.com/github/gh-ost localtests/fail-fk/create.sql, extra_args (--alter)
create table gh_ost_test_fk_parent ( id int auto_increment, ts timestamp, primary key(id) );
create table gh_ost_test ( id int auto_increment, i int not null, parent_id int not null, primary key(id), constraint test_fk foreign key (parent_id) references gh_ost_test_fk_parent (id) on delete no action ) auto_increment=1;

-- group: gh-ost/fail-fk-parent
-- origin: github.com/github/gh-ost localtests/fail-fk-parent/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, primary key(id) ) engine=innodb auto_increment=1;
create table gh_ost_test_child ( id int auto_increment, i int not null, parent_id int not null, constraint test_fk foreign key (parent_id) references gh_ost_test (id) on delete no action, primary key(id) ) engine=innodb;

-- group: gh-ost/fail-float-unique-key
-- origin: github.com/github/gh-ost localtests/fail-float-unique-key/create.sql, extra_args (--alter)
create table gh_ost_test ( f float, i int not null, ts timestamp default current_timestamp, dt datetime, key i_idx(i), unique key f_uidx(f) ) auto_increment=1;
alter table gh_ost_test add column v varchar(32);

-- group: gh-ost/fail-no-shared-uk
-- origin: github.com/github/gh-ost localtests/fail-no-shared-uk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int not null, i int not null, ts timestamp, primary key(id) );
alter table gh_ost_test drop primary key, add primary key (i);

-- group: gh-ost/fail-no-unique-key
-- origin: github.com/github/gh-ost localtests/fail-no-unique-key/create.sql, extra_args (--alter)
create table gh_ost_test ( i int not null, ts timestamp default current_timestamp, dt datetime, key i_idx(i) ) auto_increment=1;

-- group: gh-ost/fail-rename-table
-- origin: github.com/github/gh-ost localtests/fail-rename-table/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts timestamp, primary key(id) ) auto_increment=1;
alter table gh_ost_test rename as something_else;

-- group: gh-ost/fail-update-pk-column
-- origin: github.com/github/gh-ost localtests/fail-update-pk-column/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/gbk-charset
-- origin: github.com/github/gh-ost localtests/gbk-charset/create.sql, extra_args (--alter)
create table gh_ost_test ( id int(11) NOT NULL AUTO_INCREMENT, name varchar(512) DEFAULT NULL, v varchar(255) DEFAULT NULL COMMENT '添加普通列测试', PRIMARY KEY (id) ) ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=gbk;

-- group: gh-ost/generated-columns
-- origin: github.com/github/gh-ost localtests/generated-columns/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, a int not null, b int not null, sum_ab int as (a + b) virtual, primary key(id) ) auto_increment=1;

-- group: gh-ost/generated-columns-add
-- origin: github.com/github/gh-ost localtests/generated-columns-add/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, a int not null, b int not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test add column sum_ab int as (a + b) virtual;

-- group: gh-ost/generated-columns-rename
-- origin: github.com/github/gh-ost localtests/generated-columns-rename/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, a int not null, b int not null, sum_ab int as (a + b) virtual, primary key(id) ) auto_increment=1;
alter table gh_ost_test change sum_ab total_ab int as (a + b) virtual;

-- group: gh-ost/geometry
-- origin: github.com/github/gh-ost localtests/geometry/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, g geometry, primary key(id) ) auto_increment=1;

-- group: gh-ost/gtid
-- origin: github.com/github/gh-ost localtests/gtid/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset utf8mb4, primary key(id) ) auto_increment=1;

-- group: gh-ost/gtid-resume
-- origin: github.com/github/gh-ost localtests/gtid-resume/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset utf8mb4, primary key(id) ) auto_increment=1;

-- group: gh-ost/json
-- origin: github.com/github/gh-ost localtests/json/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, j json, primary key(id) ) auto_increment=1;

-- group: gh-ost/json-dml
-- origin: github.com/github/gh-ost localtests/json-dml/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, updated tinyint not null default 0, j json, primary key(id) ) auto_increment=1;

-- group: gh-ost/keyword-column
-- origin: github.com/github/gh-ost localtests/keyword-column/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, color varchar(32), primary key(id) ) auto_increment=1;
alter table gh_ost_test add column `index` int unsigned;

-- group: gh-ost/latin1
-- origin: github.com/github/gh-ost localtests/latin1/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset latin1 collate latin1_swedish_ci, primary key(id) ) auto_increment=1 charset latin1 collate latin1_swedish_ci;

-- group: gh-ost/latin1text
-- origin: github.com/github/gh-ost localtests/latin1text/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t text charset latin1 collate latin1_swedish_ci, primary key(id) ) auto_increment=1 charset latin1 collate latin1_swedish_ci;

-- group: gh-ost/mixed-charset
-- origin: github.com/github/gh-ost localtests/mixed-charset/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset latin1 collate latin1_swedish_ci, tutf8 varchar(128) charset utf8, tutf8mb4 varchar(128) charset utf8mb4, primary key(id) ) auto_increment=1;

-- group: gh-ost/modify-change-case
-- origin: github.com/github/gh-ost localtests/modify-change-case/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null default 0, c2 int not null default 0, primary key (id) ) auto_increment=1;
alter table gh_ost_test modify C2 int not null default 0;

-- group: gh-ost/modify-change-case-pk
-- origin: github.com/github/gh-ost localtests/modify-change-case-pk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null default 0, c2 int not null default 0, primary key (id) ) auto_increment=1;
alter table gh_ost_test modify ID int;

-- group: gh-ost/panic-on-warnings-batch-middle
-- origin: github.com/github/gh-ost localtests/panic-on-warnings-batch-middle/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, email varchar(255) not null, primary key (id) ) auto_increment=1;

-- group: gh-ost/panic-on-warnings-duplicate-unique-values-on-column-type-change
-- origin: github.com/github/gh-ost localtests/panic-on-warnings-duplicate-unique-values-on-column-type-change/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, name varchar(255) not null, primary key (id) ) auto_increment=1;
create unique index name_index on gh_ost_test (name);

-- group: gh-ost/panic-on-warnings-duplicate-values-for-unique-index
-- origin: github.com/github/gh-ost localtests/panic-on-warnings-duplicate-values-for-unique-index/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, name varchar(255) not null, primary key (id) ) auto_increment=1;

-- group: gh-ost/panic-on-warnings-update-pk-with-duplicate-on-new-unique-index
-- origin: github.com/github/gh-ost localtests/panic-on-warnings-update-pk-with-duplicate-on-new-unique-index/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, email varchar(100) not null, primary key (id) ) auto_increment=1;

-- group: gh-ost/rename
-- origin: github.com/github/gh-ost localtests/rename/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, c2 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test change column c2 c3 int not null;

-- group: gh-ost/rename-inserts-only
-- origin: github.com/github/gh-ost localtests/rename-inserts-only/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, c2 int not null, primary key (id) ) auto_increment=1;

-- group: gh-ost/rename-none-column
-- origin: github.com/github/gh-ost localtests/rename-none-column/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test add column exchange double comment 'exchange rate used for pay in your own currency';

-- group: gh-ost/rename-none-comment
-- origin: github.com/github/gh-ost localtests/rename-none-comment/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test add column exchange_rate double comment 'change rate used for pay in your own currency';

-- group: gh-ost/rename-reorder-column
-- origin: github.com/github/gh-ost localtests/rename-reorder-column/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, c2 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test change column c2 c2a int not null after id;

-- group: gh-ost/rename-reorder-columns
-- origin: github.com/github/gh-ost localtests/rename-reorder-columns/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, c2 int not null, c3 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test change column c2 c2a int not null, change column c3 c3 int not null after id;

-- group: gh-ost/reorder-columns
-- origin: github.com/github/gh-ost localtests/reorder-columns/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, c1 int not null, c2 int not null, primary key (id) ) auto_increment=1;
alter table gh_ost_test change column c2 c2 int not null after id;

-- group: gh-ost/shared-uk
-- origin: github.com/github/gh-ost localtests/shared-uk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts timestamp, primary key(id) ) auto_increment=1;
alter table gh_ost_test drop primary key, add primary key (id, i);

-- group: gh-ost/spatial
-- origin: github.com/github/gh-ost localtests/spatial/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, g geometry, pt point, primary key(id) ) auto_increment=1;

-- group: gh-ost/swap-pk-uk
-- origin: github.com/github/gh-ost localtests/swap-pk-uk/create.sql, extra_args (--alter)
create table gh_ost_test ( id bigint, i int not null, ts timestamp(6), primary key(id), unique key its_uidx(i, ts) );
alter table gh_ost_test drop primary key, drop key its_uidx, add primary key (i, ts), add unique key id_uidx(id);

-- group: gh-ost/swap-uk
-- origin: github.com/github/gh-ost localtests/swap-uk/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts timestamp, primary key(id) ) auto_increment=1;
alter table gh_ost_test drop primary key, add unique key(id);

-- group: gh-ost/swap-uk-uk
-- origin: github.com/github/gh-ost localtests/swap-uk-uk/create.sql, extra_args (--alter)
create table gh_ost_test ( id bigint not null, i int not null, ts timestamp(6) not null, unique key id_uidx(id), unique key its_uidx(i, ts) );
alter table gh_ost_test drop key id_uidx, drop key its_uidx, add unique key its2_uidx(i, ts), add unique key id2_uidx(id);

-- group: gh-ost/sysbench
-- origin: github.com/github/gh-ost localtests/sysbench/create.sql, extra_args (--alter)
DROP TABLE IF EXISTS `sbtest1`;

-- group: gh-ost/timestamp
-- origin: github.com/github/gh-ost localtests/timestamp/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp default current_timestamp, ts2 timestamp default current_timestamp, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/timestamp-datetime
-- origin: github.com/github/gh-ost localtests/timestamp-datetime/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts timestamp default current_timestamp, dt datetime, ts2ts timestamp null, ts2dt datetime null, dt2ts timestamp null, dt2dt datetime null, updated tinyint unsigned default 0, primary key(id) ) auto_increment=1;

-- group: gh-ost/timestamp-to-datetime
-- origin: github.com/github/gh-ost localtests/timestamp-to-datetime/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp default current_timestamp, dt2 datetime, t datetime, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;
alter table gh_ost_test change column t t datetime not null;

-- group: gh-ost/trigger-advanced-features
-- origin: github.com/github/gh-ost localtests/trigger-advanced-features/create.sql, extra_args (--alter)
drop table if exists gh_ost_test_log;
drop table if exists gh_ost_test_stats;
create table gh_ost_test ( id int auto_increment, i int not null, color varchar(32), ts timestamp default current_timestamp, modified_count int default 0, primary key(id) ) auto_increment=1;
create table gh_ost_test_log ( id int auto_increment, test_id int, trigger_name varchar(128), action varchar(16), ts timestamp default current_timestamp, primary key(id) );
create table gh_ost_test_stats ( id int auto_increment, event_type varchar(32), i_sum int not null default 0, count_events int not null default 0, primary key(id), unique key event_type_uidx(event_type) );

-- group: gh-ost/trigger-ghost-name-conflict
-- origin: github.com/github/gh-ost localtests/trigger-ghost-name-conflict/create.sql, extra_args (--alter)
drop table if exists gh_ost_test_other;
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;
create table gh_ost_test_other ( id int auto_increment, primary key(id) );

-- group: gh-ost/trigger-long-name-validation
-- origin: github.com/github/gh-ost localtests/trigger-long-name-validation/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/trivial
-- origin: github.com/github/gh-ost localtests/trivial/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, color varchar(32), primary key(id) ) auto_increment=1;

-- group: gh-ost/tz
-- origin: github.com/github/gh-ost localtests/tz/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp default current_timestamp, ts2 timestamp default current_timestamp, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/tz-datetime
-- origin: github.com/github/gh-ost localtests/tz-datetime/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 datetime, ts2 datetime, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;

-- group: gh-ost/tz-datetime-ts
-- origin: github.com/github/gh-ost localtests/tz-datetime-ts/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, ts0 timestamp default current_timestamp, ts1 timestamp default current_timestamp, dt2 datetime, t datetime, updated tinyint unsigned default 0, primary key(id), key i_idx(i) ) auto_increment=1;
alter table gh_ost_test change column t t timestamp not null default current_timestamp;

-- group: gh-ost/unsigned
-- origin: github.com/github/gh-ost localtests/unsigned/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, bi bigint not null, iu int unsigned not null, biu bigint unsigned not null, primary key(id) ) auto_increment=1;

-- group: gh-ost/unsigned-modify
-- origin: github.com/github/gh-ost localtests/unsigned-modify/create.sql, extra_args (--alter)
create table gh_ost_test ( id bigint(20) NOT NULL AUTO_INCREMENT, column1 int(11) NOT NULL, column2 smallint(5) unsigned NOT NULL, column3 mediumint(8) unsigned NOT NULL, column4 tinyint(3) unsigned NOT NULL, column5 int(11) NOT NULL, column6 int(11) NOT NULL, PRIMARY KEY (id), KEY c12_ix (column1, column2) ) auto_increment=1;

-- group: gh-ost/unsigned-rename
-- origin: github.com/github/gh-ost localtests/unsigned-rename/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, bi bigint not null, iu int unsigned not null, biu bigint unsigned not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test change column iu iu_renamed int unsigned not null;

-- group: gh-ost/unsigned-reorder
-- origin: github.com/github/gh-ost localtests/unsigned-reorder/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, i int not null, bi bigint not null, iu int unsigned not null, biu bigint unsigned not null, primary key(id) ) auto_increment=1;
alter table gh_ost_test change column iu iu int unsigned not null after id;

-- group: gh-ost/utf8
-- origin: github.com/github/gh-ost localtests/utf8/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset utf8 collate utf8_general_ci, primary key(id) ) auto_increment=1;

-- group: gh-ost/utf8mb4
-- origin: github.com/github/gh-ost localtests/utf8mb4/create.sql, extra_args (--alter)
create table gh_ost_test ( id int auto_increment, t varchar(128) charset utf8mb4, primary key(id) ) auto_increment=1;

-- group: gh-ost/varbinary
-- origin: github.com/github/gh-ost localtests/varbinary/create.sql, extra_args (--alter)
create table gh_ost_test ( id binary(16) NOT NULL, info varchar(255) COLLATE utf8_unicode_ci NOT NULL, data binary(8) NOT NULL, primary key (id), unique key info_uidx (info) ) auto_increment=1;
