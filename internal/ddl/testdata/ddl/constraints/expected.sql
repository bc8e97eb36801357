-- ALTER TABLE t ADD CONSTRAINT t_p FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE SET NULL
CREATE INDEX IF NOT EXISTS "t_t_p" ON "src"."t" ("p_id");
ALTER TABLE "src"."t" ADD CONSTRAINT "t_p" FOREIGN KEY ("p_id") REFERENCES "src"."p" ("id") ON DELETE SET NULL ON UPDATE RESTRICT;
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   PRIMARY KEY (id)
--   BTREE t_p (p_id)
--   FK t_p (p_id) -> src.p (id) ON DELETE SET NULL ON UPDATE RESTRICT

-- ALTER TABLE t ADD FOREIGN KEY (q) REFERENCES p (id), ADD CONSTRAINT q_chk CHECK (q BETWEEN 1 AND 10)
CREATE INDEX IF NOT EXISTS "t_q" ON "src"."t" ("q");
ALTER TABLE "src"."t" ADD CONSTRAINT "t_ibfk_1" FOREIGN KEY ("q") REFERENCES "src"."p" ("id") ON DELETE RESTRICT ON UPDATE RESTRICT;
ALTER TABLE "src"."t" ADD CONSTRAINT "q_chk" CHECK ("q" BETWEEN 1 AND 10);
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   PRIMARY KEY (id)
--   BTREE q (q)
--   BTREE t_p (p_id)
--   FK t_ibfk_1 (q) -> src.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   FK t_p (p_id) -> src.p (id) ON DELETE SET NULL ON UPDATE RESTRICT
--   CHECK q_chk (q between 1 and 10)

-- ALTER TABLE t ADD CHECK (q <> 5), ADD CONSTRAINT weird CHECK (crc32(q) > 0)
ALTER TABLE "src"."t" ADD CONSTRAINT "CONSTRAINT_1" CHECK ("q" <> 5);
-- warning: src.t: CHECK constraint weird (crc32(q) > 0) not created: cannot translate function crc32()
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   PRIMARY KEY (id)
--   BTREE q (q)
--   BTREE t_p (p_id)
--   FK t_ibfk_1 (q) -> src.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   FK t_p (p_id) -> src.p (id) ON DELETE SET NULL ON UPDATE RESTRICT
--   CHECK CONSTRAINT_1 (q != 5)
--   CHECK q_chk (q between 1 and 10)
--   CHECK weird (crc32(q) > 0)

-- ALTER TABLE t DROP FOREIGN KEY t_p
ALTER TABLE "src"."t" DROP CONSTRAINT IF EXISTS "t_p";
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   PRIMARY KEY (id)
--   BTREE q (q)
--   BTREE t_p (p_id)
--   FK t_ibfk_1 (q) -> src.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK CONSTRAINT_1 (q != 5)
--   CHECK q_chk (q between 1 and 10)
--   CHECK weird (crc32(q) > 0)

-- ALTER TABLE t DROP CONSTRAINT q_chk, DROP CONSTRAINT CONSTRAINT_1
ALTER TABLE "src"."t" DROP CONSTRAINT IF EXISTS "q_chk";
ALTER TABLE "src"."t" DROP CONSTRAINT IF EXISTS "CONSTRAINT_1";
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   PRIMARY KEY (id)
--   BTREE q (q)
--   BTREE t_p (p_id)
--   FK t_ibfk_1 (q) -> src.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK weird (crc32(q) > 0)

-- ALTER TABLE t ADD COLUMN r INT, ADD CONSTRAINT ext FOREIGN KEY (r) REFERENCES skip_ref (id)
ALTER TABLE "src"."t" ADD COLUMN "r" integer;
CREATE INDEX IF NOT EXISTS "t_ext" ON "src"."t" ("r");
-- warning: src.t: foreign key ext references src.skip_ref, which sluice does not replicate: not created
-- table src.t
--   1 id int(11) NOT NULL
--   2 p_id int(11)
--   3 q int(11)
--   4 r int(11)
--   PRIMARY KEY (id)
--   BTREE ext (r)
--   BTREE q (q)
--   BTREE t_p (p_id)
--   FK ext (r) -> src.skip_ref (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   FK t_ibfk_1 (q) -> src.p (id) ON DELETE RESTRICT ON UPDATE RESTRICT
--   CHECK weird (crc32(q) > 0)

-- ALTER TABLE t DROP FOREIGN KEY IF EXISTS gone
-- ignored: changes nothing on the target

