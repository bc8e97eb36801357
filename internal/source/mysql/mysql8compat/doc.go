// Package mysql8compat holds no production code: its tests prove that the
// binlog decoding sluice relies on (go-mysql's replication package plus
// internal/typemap) handles what only MySQL 8 writes — binary JSON, GTID
// events with logical clocks and commit timestamps, compressed transaction
// payloads, partial JSON updates, binlog_row_metadata=FULL table maps and
// the fractional temporal encodings — without a MySQL 8 server, which cannot
// run in the project's sandbox.
//
// The fixtures are either bytes MySQL servers wrote, taken from public test
// suites (testdata/*.hex name their source), or bytes built by the test
// helpers exactly as MySQL's format descriptions say and cross-checked
// against those public bytes. docs/mysql8.md lists what is covered, where
// each fixture comes from, and the fidelity risks the tests found.
package mysql8compat
