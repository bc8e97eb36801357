package mysql

import "runtime"

// DefaultWorkers is the number of apply sessions into a MySQL target when
// none is configured: 2 per CPU less one, at least 3 — one fewer than the
// pipeline's default (2 per CPU, at least 4) on a small machine. Each
// session keeps one target thread busy with whole groups (a multi-statement
// round trip carries most of a group), so where sluice and the target share
// the CPUs a fourth session only adds lock and scheduler contention:
// measured on 2 CPUs, the oltp_write_only catch-up applied faster with 3
// sessions than with 4 (docs/benchmarks.md "## mysql target").
func DefaultWorkers() int { return max(3, 2*runtime.NumCPU()-1) }
