package pipeline

// A source failover (internal/source/mysql/binlog failover.go) continues a
// stream on another server: its transactions end at file:pos of that
// server's binlog, which do not order against the checkpoint's.

// AppliedAbove is how many source transactions above the checkpoint an
// earlier run committed (sluice.applied), as Open found them. They are
// named by file:pos of the server they were read from: on another server
// they cannot be recognised.
func (a *Applier) AppliedAbove() int { return len(a.skip) }

// SourceMoved says this run reads another server than the checkpoint's:
// its applied records then name no start (a start on the old server's
// file:pos says nothing about the new server's checkpoints, and would make
// the next run take them for records of another history).
func (a *Applier) SourceMoved() { a.runStart = nil }
