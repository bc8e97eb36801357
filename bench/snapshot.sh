#!/usr/bin/env bash
# bench/snapshot.sh: full-migration benchmark (issue 3): `sluice snapshot` against pgloader,
# pg_chameleon's init_replica and the physical limit of the target (psql \copy of the same rows
# from local files), on sysbench data in the sandbox MariaDB, all in one run, interleaved,
# BENCH_REPS (3) times each. Writes the "## snapshot" section of docs/benchmarks.md.
#
# Knobs (environment):
#   BENCH_SNAPSHOT_DB=sbtest      MariaDB database of the data set (reused when it already holds
#                                 exactly TABLES x ROWS; otherwise dropped and re-prepared)
#   BENCH_TABLES=8 BENCH_TABLE_SIZE=250000
#   BENCH_TOOLS="sluice pgloader chameleon copy pipe"   which contenders to run
#   BENCH_COPY_SESSIONS=2         parallel psql sessions of the COPY limit
#   BENCH_TIMEOUT=1800            seconds before one run is killed
#   BENCH_HASH_COLS=id,k,c,pad    columns of the per-table content hash checked after every run
#   BENCH_REPS=3  BENCH_WORK=/tmp/sluice-bench/snapshot  BENCH_NO_DOC=1 (do not touch docs/)
#   BENCH_SLUICE_ARGS             extra arguments for `sluice snapshot` (e.g. "--workers 4")
#   BENCH_SLUICE_FROM=head        build sluice from the committed HEAD (git archive), `tree` from the
#                                 work tree as it is, `none` to use BENCH_SLUICE as given
#   BENCH_REPORT_ONLY=1           rewrite the section from the last run in BENCH_WORK (measure nothing)
#   BENCH_PROFILE=1               after the measured runs, one extra sluice run under
#                                 `perf record -a -g` (not counted); its top symbols go in the report
#
# Each contender writes into its own PostgreSQL database, dropped and created before every run:
# bench_sluice, bench_pgloader, bench_chameleon, bench_copy, bench_pipe (owner: the sandbox role sluice).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

DB="${BENCH_SNAPSHOT_DB:-sbtest}"
TABLES="${BENCH_TABLES:-8}"
ROWS="${BENCH_TABLE_SIZE:-250000}"
TOOLS="${BENCH_TOOLS:-sluice pgloader chameleon copy pipe}"
COPY_SESSIONS="${BENCH_COPY_SESSIONS:-2}"
TIMEOUT="${BENCH_TIMEOUT:-1800}"
HASH_COLS="${BENCH_HASH_COLS:-id,k,c,pad}"
CHAMELEON_USER=sluicebench
CHAMELEON_VERSION=2.0.21
# SKIPPED[tool] = why the tool was not measured (set by its setup_TOOL)
declare -A SKIPPED=()

bench_init snapshot
# shellcheck source=bench/snapshot_tools.sh
source "$BENCH_DIR/snapshot_tools.sh"
# shellcheck source=bench/snapshot_report.sh
source "$BENCH_DIR/snapshot_report.sh"

# report_only: rewrite the section from the last run's files in BENCH_WORK (e.g. after editing
# bench/snapshot-notes.md), measuring nothing.
report_only() {
	[[ -s $BENCH_WORK/state.sh && -s $BENCH_RESULTS ]] || bench_die "no earlier run in $BENCH_WORK to report on"
	# shellcheck source=/dev/null
	source "$BENCH_WORK/state.sh"
	write_report >"$BENCH_WORK/section.md"
	cat "$BENCH_WORK/section.md"
	[[ -n ${BENCH_NO_DOC:-} ]] || bench_doc_section snapshot "$BENCH_WORK/section.md"
}

main() {
	if [[ -n ${BENCH_REPORT_ONLY:-} ]]; then
		report_only
		return
	fi
	bench_sysbench_prepare "$DB" "$TABLES" "$ROWS" || bench_die "sysbench prepare of $DB failed"
	bench_my_table_stats "$DB" >"$BENCH_WORK/source-tables.txt" || bench_die "reading table sizes of $DB failed"
	SRC_ROWS="$(awk '{ s += $2 } END { print s }' "$BENCH_WORK/source-tables.txt")"
	SRC_BYTES="$(awk '{ s += $3 } END { print s }' "$BENCH_WORK/source-tables.txt")"
	bench_log "source $DB: $SRC_ROWS rows, $((SRC_BYTES / 1048576)) MB"
	: >"$BENCH_WORK/checks.txt"
	rm -f "$BENCH_WORK/hash-$DB.txt" # the source's hashes, recomputed once per script run

	local tool active=()
	for tool in $TOOLS; do
		if "setup_$tool"; then
			active+=("$tool")
		else
			bench_log "$tool: not measured (${SKIPPED[$tool]:-setup failed})"
			SKIPPED[$tool]="${SKIPPED[$tool]:-setup failed, see $BENCH_WORK/logs}"
		fi
	done

	bench_machine_md >"$BENCH_WORK/machine.md"
	declare -p SLUICE_ARGS SKIPPED SRC_ROWS SRC_BYTES DB TABLES ROWS TOOLS COPY_SESSIONS BENCH_REPS HASH_COLS \
		| sed -E 's/^declare -- /declare -g /; t; s/^declare -([a-zA-Z]+)/declare -g\1/' >"$BENCH_WORK/state.sh"

	local rep
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for tool in "${active[@]}"; do
			prepare_run "$tool"
			if "run_$tool" "$rep"; then
				check_run "$tool" "$rep"
			else
				bench_log "$tool #$rep failed (log $BENCH_WORK/logs/$tool.$rep.log)"
			fi
		done
	done

	rm -rf "$BENCH_WORK/profile"
	if [[ ${BENCH_PROFILE:-1} != 0 && " ${active[*]} " == *" sluice "* ]]; then
		bench_log "profiling one extra sluice run with perf (not counted)"
		profile_run sluice || true
	fi

	write_report >"$BENCH_WORK/section.md"
	cat "$BENCH_WORK/section.md"
	if [[ -z ${BENCH_NO_DOC:-} ]]; then
		bench_doc_section snapshot "$BENCH_WORK/section.md"
		bench_log "wrote the snapshot section of $BENCH_DOC"
	fi
}

main "$@"
