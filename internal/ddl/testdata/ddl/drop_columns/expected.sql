-- ALTER TABLE t DROP COLUMN d
ALTER TABLE "src"."t" DROP COLUMN IF EXISTS "d";
CREATE INDEX IF NOT EXISTS "t_cd" ON "src"."t" ("c");
-- table src.t
--   1 a int(11) NOT NULL
--   2 b int(11) NOT NULL
--   3 c int(11)
--   4 e timestamp ON UPDATE
--   PRIMARY KEY (a, b)
--   BTREE cd (c)
--   CHECK c_chk (c > 0)

-- ALTER TABLE t DROP COLUMN IF EXISTS nope, DROP COLUMN e
ALTER TABLE "src"."t" DROP COLUMN IF EXISTS "e";
DROP TRIGGER IF EXISTS "sluice_on_update" ON "src"."t";
DROP FUNCTION IF EXISTS "src"."t_on_update"();
-- table src.t
--   1 a int(11) NOT NULL
--   2 b int(11) NOT NULL
--   3 c int(11)
--   PRIMARY KEY (a, b)
--   BTREE cd (c)
--   CHECK c_chk (c > 0)

-- ALTER TABLE t DROP b
ALTER TABLE "src"."t" DROP COLUMN IF EXISTS "b";
ALTER TABLE "src"."t" ADD CONSTRAINT "t_pkey" PRIMARY KEY ("a");
-- table src.t
--   1 a int(11) NOT NULL
--   2 c int(11)
--   PRIMARY KEY (a)
--   BTREE cd (c)
--   CHECK c_chk (c > 0)

-- ALTER TABLE t DROP COLUMN c
ALTER TABLE "src"."t" DROP COLUMN IF EXISTS "c";
-- table src.t
--   1 a int(11) NOT NULL
--   PRIMARY KEY (a)

-- ALTER TABLE t DROP COLUMN missing
-- unsupported: column missing is not in sluice's schema history of src.t

