-- ALTER TABLE t COMMENT = 'new comment', AUTO_INCREMENT = 500, ENGINE = InnoDB
COMMENT ON TABLE "src"."t" IS 'new comment';
SELECT setval(pg_get_serial_sequence('"src"."t"', 'id'), greatest(greatest((SELECT max("id") FROM "src"."t"), 499), 1)::bigint, greatest((SELECT max("id") FROM "src"."t"), 499) >= 1);
-- table src.t
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 a text latin1_swedish_ci
--   3 b varchar(10) latin1_swedish_ci
--   4 j longtext utf8mb4_bin JSON
--   PRIMARY KEY (id)

-- ALTER TABLE t COMMENT ''
COMMENT ON TABLE "src"."t" IS NULL;
-- table src.t
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 a text latin1_swedish_ci
--   3 b varchar(10) latin1_swedish_ci
--   4 j longtext utf8mb4_bin JSON
--   PRIMARY KEY (id)

-- ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4
-- table src.t
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 a mediumtext utf8mb4_general_ci
--   3 b varchar(10) utf8mb4_general_ci
--   4 j longtext utf8mb4_general_ci JSON
--   PRIMARY KEY (id)

-- ALTER TABLE t DEFAULT CHARSET = ascii
-- table src.t
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 a mediumtext utf8mb4_general_ci
--   3 b varchar(10) utf8mb4_general_ci
--   4 j longtext utf8mb4_general_ci JSON
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN c VARCHAR(5)
ALTER TABLE "src"."t" ADD COLUMN "c" varchar(5);
-- table src.t
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 a mediumtext utf8mb4_general_ci
--   3 b varchar(10) utf8mb4_general_ci
--   4 j longtext utf8mb4_general_ci JSON
--   5 c varchar(5) ascii_general_ci
--   PRIMARY KEY (id)

-- ALTER TABLE t FORCE
-- ignored: changes nothing on the target

-- ALTER TABLE t ENGINE=InnoDB, ALGORITHM=INPLACE, LOCK=NONE
-- ignored: changes nothing on the target

-- ALTER TABLE t PARTITION BY HASH (id) PARTITIONS 4
-- ignored: changes nothing on the target

-- ALTER TABLE t DROP PARTITION p0
-- unsupported: this partition operation removes or replaces rows without row events

-- ALTER TABLE t TRUNCATE PARTITION p1
-- unsupported: this partition operation removes or replaces rows without row events

-- ALTER TABLE skip_t ADD COLUMN x INT
-- ignored: table src.skip_t is not in scope

-- ALTER TABLE unknown_t ADD COLUMN x INT
-- unsupported: table src.unknown_t is in scope but not in sluice's schema history

