-- ALTER TABLE t CHANGE a a2 BIGINT
ALTER TABLE "src"."t" RENAME COLUMN "a" TO "a2";
ALTER TABLE "src"."t" ALTER COLUMN "a2" TYPE bigint USING "a2"::bigint;
-- table src.t
--   1 id int(11) NOT NULL
--   2 a2 bigint(20)
--   3 b varchar(10) utf8mb4_general_ci
--   4 st set('x','y') utf8mb4_general_ci
--   5 pc varchar(10) utf8mb4_general_ci
--   PRIMARY KEY (id)
--   BTREE ab (a2, b)
--   BTREE t_p (pc)
--   FK t_p (pc) -> src.p (code) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK a_chk (a2 > 0)

-- ALTER TABLE t RENAME COLUMN b TO b2, CHANGE COLUMN st st2 SET('x','y','z') AFTER id
ALTER TABLE "src"."t" RENAME COLUMN "b" TO "b2";
ALTER TABLE "src"."t" RENAME COLUMN "st" TO "st2";
ALTER TABLE "src"."t" RENAME CONSTRAINT "st_set_check" TO "st2_set_check";
ALTER TABLE "src"."t" DROP CONSTRAINT IF EXISTS "st2_set_check";
ALTER TABLE "src"."t" ADD CONSTRAINT "st2_set_check" CHECK (string_to_array("st2", ',') <@ ARRAY['x', 'y', 'z']::text[]);
-- moved: src.t.st2 AFTER id (source: id, st2, a2, b2, pc)
-- table src.t
--   1 id int(11) NOT NULL
--   2 st2 set('x','y','z') utf8mb4_general_ci
--   3 a2 bigint(20)
--   4 b2 varchar(10) utf8mb4_general_ci
--   5 pc varchar(10) utf8mb4_general_ci
--   PRIMARY KEY (id)
--   BTREE ab (a2, b2)
--   BTREE t_p (pc)
--   FK t_p (pc) -> src.p (code) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK a_chk (a2 > 0)

-- ALTER TABLE p CHANGE code code2 VARCHAR(10)
ALTER TABLE "src"."p" RENAME COLUMN "code" TO "code2";
-- table src.p
--   1 id int(11) NOT NULL
--   2 code2 varchar(10) utf8mb4_general_ci
--   PRIMARY KEY (id)
--   UNIQUE BTREE code_uk (code2)
-- table src.t
--   1 id int(11) NOT NULL
--   2 st2 set('x','y','z') utf8mb4_general_ci
--   3 a2 bigint(20)
--   4 b2 varchar(10) utf8mb4_general_ci
--   5 pc varchar(10) utf8mb4_general_ci
--   PRIMARY KEY (id)
--   BTREE ab (a2, b2)
--   BTREE t_p (pc)
--   FK t_p (pc) -> src.p (code2) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK a_chk (a2 > 0)

-- ALTER TABLE t CHANGE nope x INT
-- unsupported: column nope is not in sluice's schema history of src.t

