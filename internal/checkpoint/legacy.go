package checkpoint

import "fmt"

// Before positions became opaque (model.Position), the state tables had
// binlog_file/binlog_pos/gtid_set/flavor columns. Every such table was
// written by the MySQL source, so its rows convert to the MySQL position
// encoding (internal/source/mysql/binlogpos: Encode is JSON with kind, file,
// pos, gtid_set and flavor; Key is "file:pos"). The conversions run in place
// and once (a table is converted when it still has the legacy column), so a
// replication started by an earlier sluice keeps going across the upgrade.

// LegacyConversion returns a statement that runs sql when table sluice.<table>
// has the column (PL/pgSQL plans each statement only when it runs, so sql
// may name columns that only the legacy table has).
func LegacyConversion(table, column, sql string) string {
	return fmt.Sprintf(`
DO $legacy$ BEGIN
IF EXISTS (SELECT 1 FROM information_schema.columns
	WHERE table_schema = 'sluice' AND table_name = '%s' AND column_name = '%s') THEN
%s;
END IF;
END $legacy$;`, table, column, sql)
}

// MySQLPositionJSON is the SQL expression of a legacy row's position in the
// binlogpos encoding.
const MySQLPositionJSON = `json_build_object('kind', 'mysql', 'file', binlog_file, 'pos', binlog_pos, 'gtid_set', gtid_set)::text`

var legacyCheckpointSQL = LegacyConversion("checkpoint", "binlog_file", `
ALTER TABLE sluice.checkpoint ADD COLUMN position text NOT NULL DEFAULT '';
UPDATE sluice.checkpoint SET position = json_build_object('kind', 'mysql', 'file', binlog_file,
	'pos', binlog_pos, 'gtid_set', gtid_set, 'flavor', flavor)::text;
ALTER TABLE sluice.checkpoint ALTER COLUMN position DROP DEFAULT, DROP COLUMN binlog_file,
	DROP COLUMN binlog_pos, DROP COLUMN gtid_set, DROP COLUMN flavor`) +
	LegacyConversion("schema_history", "binlog_file", `
ALTER TABLE sluice.schema_history ADD COLUMN position text NOT NULL DEFAULT '';
UPDATE sluice.schema_history SET position = `+MySQLPositionJSON+` WHERE binlog_file <> '' OR gtid_set <> '';
ALTER TABLE sluice.schema_history DROP COLUMN binlog_file, DROP COLUMN binlog_pos, DROP COLUMN gtid_set`)

var legacyAppliedSQL = LegacyConversion("applied", "binlog_file", `
ALTER TABLE sluice.applied ADD COLUMN IF NOT EXISTS start_file text NOT NULL DEFAULT '';
ALTER TABLE sluice.applied ADD COLUMN IF NOT EXISTS start_pos bigint NOT NULL DEFAULT 0;
ALTER TABLE sluice.applied ADD COLUMN last_key text, ADD COLUMN ends text[],
	ADD COLUMN start_key text NOT NULL DEFAULT '';
UPDATE sluice.applied SET last_key = binlog_file || ':' || binlog_pos,
	ends = ARRAY(SELECT f || ':' || p FROM unnest(files, positions) AS u(f, p)),
	start_key = CASE WHEN start_file = '' THEN '' ELSE start_file || ':' || start_pos END;
ALTER TABLE sluice.applied DROP CONSTRAINT applied_pkey, DROP COLUMN binlog_file, DROP COLUMN binlog_pos,
	DROP COLUMN files, DROP COLUMN positions, DROP COLUMN start_file, DROP COLUMN start_pos,
	ALTER COLUMN last_key SET NOT NULL, ALTER COLUMN ends SET NOT NULL, ADD PRIMARY KEY (stream, last_key)`)
