-- CREATE TABLE outside.sv (a INT) WITH SYSTEM VERSIONING
-- ignored: outside.sv not in scope (the statement was not parsed: syntax error at position 55 near 'VERSIONING')

-- CREATE TABLE skip_sv (a INT) WITH SYSTEM VERSIONING
-- ignored: src.skip_sv not in scope (the statement was not parsed: syntax error at position 52 near 'VERSIONING')

-- CREATE TABLE sv (a INT) WITH SYSTEM VERSIONING
-- unsupported: sluice cannot parse it (syntax error at position 47 near 'VERSIONING')

-- CREATE OR REPLACE TABLE IF NOT EXISTS `outside`.`Sv2` (a INT) WITH SYSTEM VERSIONING
-- ignored: outside.Sv2 not in scope (the statement was not parsed: syntax error at position 74 near 'VERSIONING')

-- ALTER TABLE outside.t ADD SYSTEM VERSIONING
-- ignored: outside.t not in scope (the statement was not parsed: syntax error at position 44 near 'VERSIONING')

-- ALTER TABLE outside.t ADD SYSTEM VERSIONING, RENAME TO src.t2
-- unsupported: sluice cannot parse it (syntax error at position 44 near 'VERSIONING')

-- ALTER ONLINE TABLE outside.t ADD SYSTEM VERSIONING, RENAME COLUMN a TO b
-- ignored: outside.t not in scope (the statement was not parsed: syntax error at position 44 near 'VERSIONING')

-- ALTER TABLE t ADD SYSTEM VERSIONING
-- unsupported: sluice cannot parse it (syntax error at position 36 near 'VERSIONING')

-- DROP TABLE IF EXISTS outside.a, outside.b WAIT 5 WITH GARBAGE
-- ignored: outside.a, outside.b not in scope (the statement was not parsed: syntax error at position 47 near 'WITH')

-- DROP TABLE outside.a, t WITH GARBAGE
-- unsupported: sluice cannot parse it (syntax error at position 29 near 'WITH')

-- TRUNCATE TABLE outside.a WITH GARBAGE
-- ignored: outside.a not in scope (the statement was not parsed: syntax error at position 30 near 'WITH')

-- CREATE UNIQUE INDEX i USING HASH ON outside.a (x) WITH GARBAGE
-- ignored: outside.a not in scope (the statement was not parsed: syntax error at position 63 near 'GARBAGE')

-- CREATE INDEX i ON t (x) WITH GARBAGE
-- unsupported: sluice cannot parse it (syntax error at position 37 near 'GARBAGE')

-- CREATE DATABASE elsewhere WITH GARBAGE
-- ignored: database elsewhere not in scope (the statement was not parsed: syntax error at position 31 near 'WITH')

-- CREATE DATABASE newdb7 WITH GARBAGE
-- unsupported: sluice cannot parse it (syntax error at position 28 near 'WITH')

-- CREATE TABLE g (id INT PRIMARY KEY, location GEOMETRY REF_SYSTEM_ID=4326 NOT NULL, SPATIAL KEY (location))
CREATE SCHEMA IF NOT EXISTS "src";
CREATE TABLE "src"."g" (
  "id" integer NOT NULL,
  "location" bytea NOT NULL,
  CONSTRAINT "g_pkey" PRIMARY KEY ("id")
);
-- warning: src.g: SPATIAL index location not created: the target has no PostGIS (geometry is stored as bytea)
-- table src.g
--   1 id int(11) NOT NULL
--   2 location geometry NOT NULL
--   PRIMARY KEY (id)
--   SPATIAL location (location)

