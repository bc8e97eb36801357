package snapshot

import "github.com/sluice-db/sluice/internal/target/bulkrun"

// The runner's names for the rich writer contract (internal/target/bulkrun):
// the engines' writers (sink/postgres and sink/mysql, bulk*.go) implement
// it, and the runner and the slim contract's adapter (writer_engine.go) use
// its job and state types.
type (
	bulkWriter  = bulkrun.Writer
	targetTable = bulkrun.Table
	runState    = bulkrun.RunState
	tableState  = bulkrun.TableState
	chunkState  = bulkrun.ChunkState
	fingerprint = bulkrun.Fingerprint
	action      = bulkrun.Action
	mismatch    = bulkrun.Mismatch
	// TableReport is one table's line of the report.
	TableReport = bulkrun.TableReport
)

const (
	actCreate   = bulkrun.ActCreate
	actReuse    = bulkrun.ActReuse
	actReplace  = bulkrun.ActReplace
	actTruncate = bulkrun.ActTruncate
)

var (
	refusal          = bulkrun.Refusal
	retryLock        = bulkrun.RetryLock
	nonTransactional = bulkrun.NonTransactional
	newTableState    = bulkrun.NewTableState
	firstLine        = bulkrun.FirstLine
)
