// Package verifydb is the comparison of one table that `sluice verify`
// runs on both sides, and the seam between verify and the target engines:
// a table's Plan (its normalised row and key texts in MySQL's and
// PostgreSQL's dialect, its key, its chunk scopes), the checksums, digests,
// row fetches and repair statements built from it, and the Target
// interface verify compares the source with.
//
// The source side is always MySQL/MariaDB and is run here (OpenSource,
// Plan.SourceChecksum, …). A target engine implements Target in its own
// package (internal/sink/postgres, internal/sink/mysql: verify*.go) and
// exposes it as the Verifier facet of its target.Engine; internal/verify
// asks the engine for it and never which engine it is. Nothing here
// imports an engine or internal/verify, so the engines can import it.
package verifydb
