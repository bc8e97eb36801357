package target

// DDLMode says what a source schema change becomes on the target.
type DDLMode uint8

const (
	// DDLTranslate: the change is translated (internal/ddl) into the
	// target's statements; column moves are noted for the report.
	DDLTranslate DDLMode = iota
	// DDLReplay: the target runs the source's own statement (a MySQL-family
	// target; ddl.Translator.ReplayTarget).
	DDLReplay
)

// GeneratedMode says which generated columns the target is written
// (binlog.Config.WrittenGenerated).
type GeneratedMode uint8

const (
	// GeneratedTranslated: the stored generated columns whose expression
	// does not translate are written as values (ddl.WritableColumns).
	GeneratedTranslated GeneratedMode = iota
	// GeneratedComputed: the target computes every generated column itself.
	GeneratedComputed
	// GeneratedAll: every column is written, generated or not (events).
	GeneratedAll
)

// Capabilities are what an engine does differently from the others; the
// commands read them instead of asking which engine it is.
type Capabilities struct {
	DDL DDLMode
	// SourceStatements: the schema change the sink receives is the source's
	// statement (replicate's mysqlStatements), whatever DDL says.
	SourceStatements bool
	// KeepReplace: REPLACE stays a delete plus an insert, as logged
	// (binlog.Config.KeepReplace): events as Debezium emits them.
	KeepReplace bool
	// KeepsSourceNames: tables and columns keep the source's names
	// (schema.Naming.ForMySQLTarget; no identifier folding or renames).
	KeepsSourceNames bool
	// RawVector: MySQL 9's VECTOR is taken as the source has it
	// (typemap.Options.RawVector).
	RawVector bool
	// StorageEngines: --target-engine chooses the tables' storage engine.
	StorageEngines bool
	// DefaultWorkers is the apply workers without --workers (0: the
	// pipeline's default).
	DefaultWorkers int
	Generated      GeneratedMode
	// Recopy: a snapshot --recopy can re-copy tables of a running stream,
	// which the replicator waits for.
	Recopy bool
	// Cutover: `sluice cutover` can switch the application to this target.
	Cutover bool
	// WayBack: the way back (a postgres:// --source) writes into this
	// target: the database the tables came from.
	WayBack bool
	// Standby: replicate --standby can wait beside the active replicator
	// and take over (pipeline.AwaitTurn over the engine's fence).
	Standby bool
}
