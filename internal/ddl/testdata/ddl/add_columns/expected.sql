-- ALTER TABLE t ADD COLUMN qty INT NOT NULL, ADD COLUMN price DECIMAL(8,2) NOT NULL DEFAULT 1.5 AFTER id
ALTER TABLE "src"."t" ADD COLUMN "qty" integer DEFAULT 0 NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "qty" DROP DEFAULT;
ALTER TABLE "src"."t" ADD COLUMN "price" numeric(8,2) DEFAULT 1.50 NOT NULL;
-- moved: src.t.price AFTER id (source: id, price, name, qty)
-- table src.t
--   1 id int(11) NOT NULL
--   2 price decimal(8,2) NOT NULL DEFAULT 1.50
--   3 name varchar(20) utf8mb4_general_ci
--   4 qty int(11) NOT NULL
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN first_col VARCHAR(5) FIRST, ADD COLUMN doc JSON, ADD COLUMN st ENUM('a','b') NOT NULL
ALTER TABLE "src"."t" ADD COLUMN "first_col" varchar(5);
ALTER TABLE "src"."t" ADD COLUMN "doc" jsonb;
ALTER TABLE "src"."t" ADD COLUMN "st" text DEFAULT 'a' NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "st" DROP DEFAULT;
ALTER TABLE "src"."t" ADD CONSTRAINT "st_enum_check" CHECK ("st" IN ('a', 'b', ''));
-- moved: src.t.first_col FIRST (source: first_col, id, price, name, qty)
-- table src.t
--   1 first_col varchar(5) utf8mb4_general_ci
--   2 id int(11) NOT NULL
--   3 price decimal(8,2) NOT NULL DEFAULT 1.50
--   4 name varchar(20) utf8mb4_general_ci
--   5 qty int(11) NOT NULL
--   6 doc longtext utf8mb4_bin JSON
--   7 st enum('a','b') NOT NULL utf8mb4_general_ci
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN IF NOT EXISTS qty INT, ADD COLUMN IF NOT EXISTS qty2 BIGINT UNSIGNED DEFAULT 7 COMMENT 'it''s'
ALTER TABLE "src"."t" ADD COLUMN "qty2" numeric(20,0) DEFAULT 7;
COMMENT ON COLUMN "src"."t"."qty2" IS 'it''s';
-- table src.t
--   1 first_col varchar(5) utf8mb4_general_ci
--   2 id int(11) NOT NULL
--   3 price decimal(8,2) NOT NULL DEFAULT 1.50
--   4 name varchar(20) utf8mb4_general_ci
--   5 qty int(11) NOT NULL
--   6 doc longtext utf8mb4_bin JSON
--   7 st enum('a','b') NOT NULL utf8mb4_general_ci
--   8 qty2 bigint(20) unsigned DEFAULT 7
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN (d1 DATE NOT NULL, b1 BINARY(2) NOT NULL, bits BIT(4) NOT NULL, tm TIME NOT NULL, u UUID NOT NULL)
ALTER TABLE "src"."t" ADD COLUMN "d1" date DEFAULT '-infinity' NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "d1" DROP DEFAULT;
ALTER TABLE "src"."t" ADD COLUMN "b1" bytea DEFAULT '\x0000'::bytea NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "b1" DROP DEFAULT;
ALTER TABLE "src"."t" ADD COLUMN "bits" bit(4) DEFAULT B'0000' NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "bits" DROP DEFAULT;
ALTER TABLE "src"."t" ADD COLUMN "tm" interval DEFAULT '00:00:00' NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "tm" DROP DEFAULT;
ALTER TABLE "src"."t" ADD COLUMN "u" uuid DEFAULT '00000000-0000-0000-0000-000000000000' NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "u" DROP DEFAULT;
-- table src.t
--   1 first_col varchar(5) utf8mb4_general_ci
--   2 id int(11) NOT NULL
--   3 price decimal(8,2) NOT NULL DEFAULT 1.50
--   4 name varchar(20) utf8mb4_general_ci
--   5 qty int(11) NOT NULL
--   6 doc longtext utf8mb4_bin JSON
--   7 st enum('a','b') NOT NULL utf8mb4_general_ci
--   8 qty2 bigint(20) unsigned DEFAULT 7
--   9 d1 date NOT NULL
--   10 b1 binary(2) NOT NULL
--   11 bits bit(4) NOT NULL
--   12 tm time NOT NULL
--   13 u uuid NOT NULL
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD COLUMN code VARCHAR(10) UNIQUE, ADD COLUMN changed TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP
ALTER TABLE "src"."t" ADD COLUMN "code" varchar(10);
CREATE UNIQUE INDEX IF NOT EXISTS "t_code" ON "src"."t" ("code");
ALTER TABLE "src"."t" ADD COLUMN "changed" timestamp(0) with time zone DEFAULT '2024-05-06 07:08:09+00'::timestamptz NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "changed" SET DEFAULT CURRENT_TIMESTAMP;
CREATE OR REPLACE FUNCTION "src"."t_on_update"() RETURNS trigger LANGUAGE plpgsql AS $sluice$
BEGIN
  IF current_setting('sluice.apply', true) = 'on' THEN RETURN NEW; END IF;
  IF NEW IS DISTINCT FROM OLD THEN
    IF NEW."changed" IS NOT DISTINCT FROM OLD."changed" THEN NEW."changed" := CURRENT_TIMESTAMP; END IF;
  END IF;
  RETURN NEW;
END
$sluice$;
CREATE OR REPLACE TRIGGER "sluice_on_update" BEFORE UPDATE ON "src"."t" FOR EACH ROW EXECUTE FUNCTION "src"."t_on_update"();
-- table src.t
--   1 first_col varchar(5) utf8mb4_general_ci
--   2 id int(11) NOT NULL
--   3 price decimal(8,2) NOT NULL DEFAULT 1.50
--   4 name varchar(20) utf8mb4_general_ci
--   5 qty int(11) NOT NULL
--   6 doc longtext utf8mb4_bin JSON
--   7 st enum('a','b') NOT NULL utf8mb4_general_ci
--   8 qty2 bigint(20) unsigned DEFAULT 7
--   9 d1 date NOT NULL
--   10 b1 binary(2) NOT NULL
--   11 bits bit(4) NOT NULL
--   12 tm time NOT NULL
--   13 u uuid NOT NULL
--   14 code varchar(10) utf8mb4_general_ci
--   15 changed timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE
--   PRIMARY KEY (id)
--   UNIQUE BTREE code (code)

-- ALTER TABLE t ADD COLUMN expires DATETIME NOT NULL DEFAULT (CURRENT_TIMESTAMP + INTERVAL 1 DAY)
DO $sluice$ BEGIN IF EXISTS (SELECT 1 FROM "src"."t") THEN RAISE EXCEPTION '%', 'sluice: the rows src.t held got the source''s time in its session''s zone for the new column expires (DEFAULT current_timestamp() + interval 1 day), which the binlog does not carry; to skip this statement knowingly, run with --skip-ddl ''ALTER TABLE t ADD*'' and set the column on the target yourself'; END IF; END $sluice$;
ALTER TABLE "src"."t" ADD COLUMN "expires" timestamp(0) without time zone DEFAULT (LOCALTIMESTAMP + interval '1 days') NOT NULL;
-- table src.t
--   1 first_col varchar(5) utf8mb4_general_ci
--   2 id int(11) NOT NULL
--   3 price decimal(8,2) NOT NULL DEFAULT 1.50
--   4 name varchar(20) utf8mb4_general_ci
--   5 qty int(11) NOT NULL
--   6 doc longtext utf8mb4_bin JSON
--   7 st enum('a','b') NOT NULL utf8mb4_general_ci
--   8 qty2 bigint(20) unsigned DEFAULT 7
--   9 d1 date NOT NULL
--   10 b1 binary(2) NOT NULL
--   11 bits bit(4) NOT NULL
--   12 tm time NOT NULL
--   13 u uuid NOT NULL
--   14 code varchar(10) utf8mb4_general_ci
--   15 changed timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE
--   16 expires datetime NOT NULL DEFAULT current_timestamp() + interval 1 day
--   PRIMARY KEY (id)
--   UNIQUE BTREE code (code)

-- ALTER TABLE t ADD COLUMN tot DECIMAL(12,2) AS (qty * price) VIRTUAL, ADD COLUMN crc INT AS (crc32(name)) STORED
-- unsupported: generated column crc AS (crc32(`name`)): cannot translate function crc32(), and the values MySQL computed for existing rows are not in the binlog

-- ALTER TABLE t ADD COLUMN serial_no INT NOT NULL AUTO_INCREMENT UNIQUE
-- unsupported: ADD COLUMN serial_no AUTO_INCREMENT: the values MySQL numbered existing rows with are not in the binlog

-- ALTER TABLE t ADD COLUMN token VARCHAR(36) DEFAULT uuid()
-- unsupported: ADD COLUMN token DEFAULT uuid(): the values MySQL gave existing rows are not in the binlog

-- ALTER TABLE t ADD COLUMN qty INT
-- unsupported: column qty already exists in sluice's schema history of src.t

-- ALTER TABLE t ADD COLUMN xmin INT
-- unsupported: column name "xmin" is a PostgreSQL system column name: give it another name with --rename src.t.xmin=new_name

