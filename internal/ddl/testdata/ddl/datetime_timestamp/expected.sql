-- ALTER TABLE t MODIFY a TIMESTAMP(2) NULL
ALTER TABLE "src"."t" ALTER COLUMN "a" TYPE timestamp(2) with time zone USING (date_trunc('second', ("a" AT TIME ZONE 'UTC')) + trunc((extract(microseconds FROM ("a" AT TIME ZONE 'UTC'))::numeric % 1000000) / 10000) * 10000 * interval '1 microsecond')::timestamp(2) with time zone;
-- warning: src.t.a: datetime(6) → timestamp(2) converted as if the statement ran with time_zone UTC; if its session used another zone, existing rows differ from the source by that offset (sluice verify shows them)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a timestamp(2)
--   3 b timestamp(3)
--   4 c datetime NOT NULL DEFAULT '2000-01-01 00:00:00'
--   PRIMARY KEY (id)

-- ALTER TABLE t MODIFY b DATETIME(3)
ALTER TABLE "src"."t" ALTER COLUMN "b" TYPE timestamp(3) without time zone USING ("b" AT TIME ZONE 'UTC')::timestamp(3) without time zone;
-- warning: src.t.b: timestamp(3) → datetime(3) converted as if the statement ran with time_zone UTC; if its session used another zone, existing rows differ from the source by that offset (sluice verify shows them)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a timestamp(2)
--   3 b datetime(3)
--   4 c datetime NOT NULL DEFAULT '2000-01-01 00:00:00'
--   PRIMARY KEY (id)

-- ALTER TABLE t MODIFY c TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
ALTER TABLE "src"."t" ALTER COLUMN "c" DROP DEFAULT;
ALTER TABLE "src"."t" ALTER COLUMN "c" TYPE timestamp(0) with time zone USING ("c" AT TIME ZONE 'UTC')::timestamp(0) with time zone;
ALTER TABLE "src"."t" ALTER COLUMN "c" SET DEFAULT CURRENT_TIMESTAMP;
-- warning: src.t.c: datetime → timestamp converted as if the statement ran with time_zone UTC; if its session used another zone, existing rows differ from the source by that offset (sluice verify shows them)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a timestamp(2)
--   3 b datetime(3)
--   4 c timestamp NOT NULL DEFAULT current_timestamp()
--   PRIMARY KEY (id)

