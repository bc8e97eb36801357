-- ALTER TABLE t MODIFY d DATE NOT NULL, MODIFY n INT NOT NULL
UPDATE "src"."t" SET "d" = '-infinity' WHERE "d" IS NULL;
ALTER TABLE "src"."t" ALTER COLUMN "d" SET NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "n" SET NOT NULL;
-- table src.t
--   1 id int(11)
--   2 d date NOT NULL
--   3 dt datetime
--   4 ts timestamp
--   5 n int(11) NOT NULL

-- ALTER TABLE t CHANGE dt dt2 DATETIME NOT NULL DEFAULT '2000-01-01 00:00:00'
ALTER TABLE "src"."t" RENAME COLUMN "dt" TO "dt2";
UPDATE "src"."t" SET "dt2" = '-infinity' WHERE "dt2" IS NULL;
ALTER TABLE "src"."t" ALTER COLUMN "dt2" SET NOT NULL;
ALTER TABLE "src"."t" ALTER COLUMN "dt2" SET DEFAULT '2000-01-01 00:00:00';
-- table src.t
--   1 id int(11)
--   2 d date NOT NULL
--   3 dt2 datetime NOT NULL DEFAULT '2000-01-01 00:00:00'
--   4 ts timestamp
--   5 n int(11) NOT NULL

-- ALTER TABLE t ADD PRIMARY KEY (id, ts)
UPDATE "src"."t" SET "ts" = '2024-05-06 07:08:09+00'::timestamptz WHERE "ts" IS NULL;
ALTER TABLE "src"."t" ADD CONSTRAINT "t_pkey" PRIMARY KEY ("id", "ts");
-- table src.t
--   1 id int(11) NOT NULL
--   2 d date NOT NULL
--   3 dt2 datetime NOT NULL DEFAULT '2000-01-01 00:00:00'
--   4 ts timestamp NOT NULL
--   5 n int(11) NOT NULL
--   PRIMARY KEY (id, ts)

