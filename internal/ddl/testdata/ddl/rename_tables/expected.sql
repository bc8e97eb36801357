-- RENAME TABLE t1 TO tmp, t2 TO t1, tmp TO t2
ALTER TABLE "src"."t1" RENAME TO "tmp";
ALTER TABLE "src"."tmp" RENAME CONSTRAINT "t1_pkey" TO "tmp_pkey";
ALTER INDEX IF EXISTS "src"."t1_v_ix" RENAME TO "tmp_v_ix";
ALTER SEQUENCE IF EXISTS "src"."t1_id_seq" RENAME TO "tmp_id_seq";
ALTER TABLE "src"."t2" RENAME TO "t1";
ALTER TABLE "src"."t1" RENAME CONSTRAINT "t2_pkey" TO "t1_pkey";
ALTER FUNCTION "src"."t2_on_update"() RENAME TO "t1_on_update";
ALTER TABLE "src"."tmp" RENAME TO "t2";
ALTER TABLE "src"."t2" RENAME CONSTRAINT "tmp_pkey" TO "t2_pkey";
ALTER INDEX IF EXISTS "src"."tmp_v_ix" RENAME TO "t2_v_ix";
ALTER SEQUENCE IF EXISTS "src"."tmp_id_seq" RENAME TO "t2_id_seq";
-- table src.child
--   1 id int(11) NOT NULL
--   2 t1_id int(11)
--   PRIMARY KEY (id)
--   BTREE child_t1 (t1_id)
--   FK child_t1 (t1_id) -> src.t2 (id) ON DELETE RESTRICT ON UPDATE RESTRICT
-- table src.t1
--   1 id int(11) NOT NULL
--   2 ts datetime ON UPDATE
--   PRIMARY KEY (id)
-- table src.t2
--   1 id int(11) NOT NULL AUTO_INCREMENT
--   2 v varchar(10) utf8mb4_general_ci
--   PRIMARY KEY (id)
--   BTREE v_ix (v)
-- renamed src.t1 -> src.t2
-- renamed src.t2 -> src.t1

-- RENAME TABLE big TO {db2}.big_moved
CREATE SCHEMA IF NOT EXISTS "other";
ALTER TABLE "src"."big" SET SCHEMA "other";
ALTER TABLE "other"."big" RENAME TO "big_moved";
ALTER TABLE "other"."big_moved" RENAME CONSTRAINT "big_pkey" TO "big_moved_pkey";
ALTER SEQUENCE IF EXISTS "other"."big_id_seq" RENAME TO "big_moved_id_seq";
-- table other.big_moved
--   1 id bigint(20) unsigned NOT NULL AUTO_INCREMENT
--   PRIMARY KEY (id)
-- dropped src.big
-- renamed src.big -> other.big_moved

-- ALTER TABLE t1 RENAME TO t1_new
ALTER TABLE "src"."t1" RENAME TO "t1_new";
ALTER TABLE "src"."t1_new" RENAME CONSTRAINT "t1_pkey" TO "t1_new_pkey";
ALTER FUNCTION "src"."t1_on_update"() RENAME TO "t1_new_on_update";
-- table src.t1_new
--   1 id int(11) NOT NULL
--   2 ts datetime ON UPDATE
--   PRIMARY KEY (id)
-- dropped src.t1
-- renamed src.t1 -> src.t1_new

-- RENAME TABLE child TO skip_child
-- unsupported: table src.child is renamed to src.skip_child, which is out of scope (--include/--exclude): widen the scope, or skip and drop the table on the target yourself

-- RENAME TABLE skip_a TO inscope
-- unsupported: table src.skip_a, which is out of scope, is renamed to src.inscope, which is in scope: sluice has neither its schema nor its rows; include both names or snapshot the table again

-- RENAME TABLE skip_a TO skip_b
-- ignored: changes nothing on the target

