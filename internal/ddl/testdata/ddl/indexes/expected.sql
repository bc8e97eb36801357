-- ALTER TABLE t ADD PRIMARY KEY (id)
ALTER TABLE "src"."t" ADD CONSTRAINT "t_pkey" PRIMARY KEY ("id");
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)

-- ALTER TABLE t ADD INDEX (a), ADD UNIQUE KEY b_uk (b), ADD INDEX a_b (a DESC, b(10))
CREATE INDEX IF NOT EXISTS "t_a" ON "src"."t" ("a");
CREATE UNIQUE INDEX IF NOT EXISTS "t_b_uk" ON "src"."t" ("b");
CREATE INDEX IF NOT EXISTS "t_a_b" ON "src"."t" ("a" DESC, left("b", 10));
-- warning: src.t: index a_b has prefix key parts (b(10)): indexed as expressions "a" DESC, left("b", 10)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a (a)
--   BTREE a_b (a DESC, b(10))
--   UNIQUE BTREE b_uk (b)

-- CREATE INDEX c_ix ON t (c(30))
CREATE INDEX IF NOT EXISTS "t_c_ix" ON "src"."t" (left("c", 30));
-- warning: src.t: index c_ix has prefix key parts (c(30)): indexed as expressions left("c", 30)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a (a)
--   BTREE a_b (a DESC, b(10))
--   UNIQUE BTREE b_uk (b)
--   BTREE c_ix (c(30))

-- CREATE UNIQUE INDEX IF NOT EXISTS b_uk ON t (b)
-- ignored: changes nothing on the target

-- ALTER TABLE t ADD FULLTEXT KEY ft (b, c), ADD SPATIAL INDEX sp (g)
CREATE INDEX IF NOT EXISTS "t_ft" ON "src"."t" USING gin (to_tsvector('simple', coalesce("b", '') || ' ' || coalesce("c", '')));
-- warning: src.t: FULLTEXT index ft becomes GIN index t_ft on to_tsvector('simple', ...): MATCH ... AGAINST queries must be rewritten to use @@
-- warning: src.t: SPATIAL index sp not created: the target has no PostGIS (geometry is stored as bytea)
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a (a)
--   BTREE a_b (a DESC, b(10))
--   UNIQUE BTREE b_uk (b)
--   BTREE c_ix (c(30))
--   FULLTEXT ft (b, c)
--   SPATIAL sp (g)

-- ALTER TABLE t RENAME INDEX a TO a_renamed
ALTER INDEX IF EXISTS "src"."t_a" RENAME TO "t_a_renamed";
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a_b (a DESC, b(10))
--   BTREE a_renamed (a)
--   UNIQUE BTREE b_uk (b)
--   BTREE c_ix (c(30))
--   FULLTEXT ft (b, c)
--   SPATIAL sp (g)

-- DROP INDEX c_ix ON t
DROP INDEX IF EXISTS "src"."t_c_ix";
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a_b (a DESC, b(10))
--   BTREE a_renamed (a)
--   UNIQUE BTREE b_uk (b)
--   FULLTEXT ft (b, c)
--   SPATIAL sp (g)

-- ALTER TABLE t DROP INDEX IF EXISTS nope, DROP KEY b_uk
DROP INDEX IF EXISTS "src"."t_b_uk";
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11)
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id)
--   BTREE a_b (a DESC, b(10))
--   BTREE a_renamed (a)
--   FULLTEXT ft (b, c)
--   SPATIAL sp (g)

-- ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY USING BTREE (id, a)
ALTER TABLE "src"."t" DROP CONSTRAINT IF EXISTS "t_pkey";
ALTER TABLE "src"."t" ADD CONSTRAINT "t_pkey" PRIMARY KEY ("id", "a");
-- table src.t
--   1 id int(11) NOT NULL
--   2 a int(11) NOT NULL
--   3 b varchar(100) utf8mb4_general_ci
--   4 c text utf8mb4_general_ci
--   5 g point NOT NULL
--   PRIMARY KEY (id, a)
--   BTREE a_b (a DESC, b(10))
--   BTREE a_renamed (a)
--   FULLTEXT ft (b, c)
--   SPATIAL sp (g)

-- ALTER TABLE t DROP INDEX missing
-- unsupported: index missing is not in sluice's schema history of src.t

