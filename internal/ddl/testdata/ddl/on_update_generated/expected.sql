-- ALTER TABLE t MODIFY changed DATETIME DEFAULT NULL
DROP TRIGGER IF EXISTS "sluice_on_update" ON "src"."t";
DROP FUNCTION IF EXISTS "src"."t_on_update"();
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b int(11) AS (a * 2)
--   4 changed datetime
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN stamped TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(0)
ALTER TABLE "src"."t" ADD COLUMN "stamped" timestamp(0) with time zone;
CREATE OR REPLACE FUNCTION "src"."t_on_update"() RETURNS trigger LANGUAGE plpgsql AS $sluice$
BEGIN
  IF current_setting('sluice.apply', true) = 'on' THEN RETURN NEW; END IF;
  IF NEW IS DISTINCT FROM OLD THEN
    IF NEW."stamped" IS NOT DISTINCT FROM OLD."stamped" THEN NEW."stamped" := CURRENT_TIMESTAMP; END IF;
  END IF;
  RETURN NEW;
END
$sluice$;
CREATE OR REPLACE TRIGGER "sluice_on_update" BEFORE UPDATE ON "src"."t" FOR EACH ROW EXECUTE FUNCTION "src"."t_on_update"();
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b int(11) AS (a * 2)
--   4 changed datetime
--   5 stamped timestamp ON UPDATE
--   PRIMARY KEY (id)

-- ALTER TABLE t MODIFY b INT AS (a * 3) VIRTUAL
ALTER TABLE "src"."t" DROP COLUMN "b";
ALTER TABLE "src"."t" ADD COLUMN "b" integer GENERATED ALWAYS AS (("a"::bigint * 3)) STORED;
-- warning: src.t.b: VIRTUAL generated column becomes STORED (PostgreSQL 15 has no virtual columns)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b int(11) AS (a * 3)
--   4 changed datetime
--   5 stamped timestamp ON UPDATE
--   PRIMARY KEY (id)

-- ALTER TABLE t MODIFY b INT AS (crc32(a)) VIRTUAL
-- unsupported: generated column b AS (crc32(a)): cannot translate function crc32(), and the values MySQL computed for existing rows are not in the binlog

-- ALTER TABLE t MODIFY b BIGINT
ALTER TABLE "src"."t" ALTER COLUMN "b" DROP EXPRESSION;
ALTER TABLE "src"."t" ALTER COLUMN "b" TYPE bigint USING "b"::bigint;
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b bigint(20)
--   4 changed datetime
--   5 stamped timestamp ON UPDATE
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN c INT AS (b + 1) STORED
ALTER TABLE "src"."t" ADD COLUMN "c" integer GENERATED ALWAYS AS (("b" + 1)) STORED;
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b bigint(20)
--   4 changed datetime
--   5 stamped timestamp ON UPDATE
--   6 c int(11) AS (b + 1)
--   PRIMARY KEY (id)

