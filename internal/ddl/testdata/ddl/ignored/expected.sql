-- GRANT SELECT ON *.* TO 'u'@'%'
-- ignored: privileges are not migrated

-- CREATE USER 'u'@'%' IDENTIFIED BY 'x'
-- ignored: accounts are not migrated

-- FLUSH PRIVILEGES
-- ignored: server administration

-- ANALYZE TABLE t
-- ignored: table maintenance

-- OPTIMIZE TABLE t
-- ignored: table maintenance

-- CREATE VIEW v AS SELECT 1
-- ignored: views are not migrated

-- CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW v2 AS SELECT 1
-- ignored: views are not migrated

-- CREATE DEFINER=`root`@`localhost` TRIGGER trg BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1
-- ignored: triggers are not migrated

-- CREATE PROCEDURE p() SELECT 1
-- ignored: stored procedures are not migrated

-- DROP FUNCTION IF EXISTS f
-- ignored: stored functions are not migrated

-- CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO SELECT 1
-- ignored: events are not migrated

-- CREATE SEQUENCE s
-- ignored: sequences are not migrated

-- DROP VIEW IF EXISTS v
-- ignored: views are not migrated

-- SAVEPOINT x
-- ignored: transaction control

-- SET @a = 1
-- ignored: session setting

