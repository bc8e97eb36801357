-- CREATE DATABASE newdb1
CREATE SCHEMA IF NOT EXISTS "newdb1";
-- database newdb1 utf8mb4/utf8mb4_general_ci

-- CREATE DATABASE IF NOT EXISTS newdb2 CHARACTER SET latin1
CREATE SCHEMA IF NOT EXISTS "newdb2";
-- database newdb2 latin1/latin1_swedish_ci

-- CREATE SCHEMA newdb3 COLLATE utf8mb4_bin
CREATE SCHEMA IF NOT EXISTS "newdb3";
-- database newdb3 utf8mb4/utf8mb4_bin

-- CREATE TABLE newdb2.t (a VARCHAR(10))
CREATE SCHEMA IF NOT EXISTS "newdb2";
CREATE TABLE "newdb2"."t" (
  "a" varchar(10)
);
-- table newdb2.t
--   1 a varchar(10) latin1_swedish_ci

-- ALTER DATABASE newdb2 CHARACTER SET utf8mb4
-- database newdb2 utf8mb4/utf8mb4_general_ci

-- CREATE TABLE newdb2.t2 (a VARCHAR(10))
CREATE SCHEMA IF NOT EXISTS "newdb2";
CREATE TABLE "newdb2"."t2" (
  "a" varchar(10)
);
-- table newdb2.t2
--   1 a varchar(10) utf8mb4_general_ci

-- DROP DATABASE newdb2
DROP TABLE IF EXISTS "newdb2"."t" CASCADE;
DROP FUNCTION IF EXISTS "newdb2"."t_on_update"() CASCADE;
DROP TABLE IF EXISTS "newdb2"."t2" CASCADE;
DROP FUNCTION IF EXISTS "newdb2"."t2_on_update"() CASCADE;
DO $sluice$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = 'newdb2') AND NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace WHERE s.nspname = 'newdb2') THEN EXECUTE 'DROP SCHEMA IF EXISTS "newdb2"'; END IF; END $sluice$;
-- dropped newdb2.t
-- dropped newdb2.t2
-- database newdb2 dropped

-- CREATE DATABASE unrelated
-- ignored: database unrelated is not in scope

-- DROP DATABASE IF EXISTS unrelated
-- ignored: database unrelated is not in scope

