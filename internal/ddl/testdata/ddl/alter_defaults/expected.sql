-- ALTER TABLE t ALTER COLUMN a SET DEFAULT 42, ALTER b SET DEFAULT 'it''s'
ALTER TABLE "src"."t" ALTER COLUMN "a" SET DEFAULT 42;
ALTER TABLE "src"."t" ALTER COLUMN "b" SET DEFAULT 'it''s';
-- table src.t
--   1 a int(11) DEFAULT 42
--   2 b varchar(10) DEFAULT 'it''s' utf8mb4_general_ci
--   3 c datetime
--   4 d bit(3)
--   5 e date

-- ALTER TABLE t ALTER COLUMN a DROP DEFAULT
ALTER TABLE "src"."t" ALTER COLUMN "a" DROP DEFAULT;
-- table src.t
--   1 a int(11)
--   2 b varchar(10) DEFAULT 'it''s' utf8mb4_general_ci
--   3 c datetime
--   4 d bit(3)
--   5 e date

-- ALTER TABLE t ALTER c SET DEFAULT CURRENT_TIMESTAMP, ALTER d SET DEFAULT b'11'
ALTER TABLE "src"."t" ALTER COLUMN "c" SET DEFAULT LOCALTIMESTAMP;
ALTER TABLE "src"."t" ALTER COLUMN "d" SET DEFAULT B'011';
-- table src.t
--   1 a int(11)
--   2 b varchar(10) DEFAULT 'it''s' utf8mb4_general_ci
--   3 c datetime DEFAULT current_timestamp()
--   4 d bit(3) DEFAULT b'11'
--   5 e date

-- ALTER TABLE t ALTER e SET DEFAULT '0000-00-00'
ALTER TABLE "src"."t" ALTER COLUMN "e" DROP DEFAULT;
-- warning: src.t.e: default dropped: zero date '0000-00-00' (PostgreSQL has no zero dates)
-- table src.t
--   1 a int(11)
--   2 b varchar(10) DEFAULT 'it''s' utf8mb4_general_ci
--   3 c datetime DEFAULT current_timestamp()
--   4 d bit(3) DEFAULT b'11'
--   5 e date DEFAULT '0000-00-00'

