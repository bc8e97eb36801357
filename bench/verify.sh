#!/usr/bin/env bash
# bench/verify.sh: verification benchmark (issue 5): `sluice verify` against reladiff (PyPI
# reladiff[mysql,postgresql], the maintained fork of data-diff) and the read limit (a plain
# full-scan SELECT of every table on both sides at once), on sysbench data in the sandbox,
# interleaved, BENCH_REPS (3) times each. Writes the "## verify" section of docs/benchmarks.md.
#
# Knobs (environment):
#   BENCH_VERIFY_DB=sbtest        MariaDB database of the data set (shared with bench/snapshot.sh;
#                                 reused when it holds exactly TABLES x ROWS)
#   BENCH_TABLES=8 BENCH_TABLE_SIZE=250000
#   BENCH_TOOLS="sluice reladiff scan"   which contenders to run
#   BENCH_RELADIFF_THREADS=2      reladiff --threads (per database)
#   BENCH_TIMEOUT=1800            seconds before one run is killed
#   BENCH_REPS=3  BENCH_WORK=/tmp/sluice-bench/verify  BENCH_NO_DOC=1 (do not touch docs/)
#   BENCH_SLUICE_ARGS             extra arguments for `sluice verify` (e.g. "--workers 4")
#
# The target is the PostgreSQL database bench_verify, made once per script run by
# `sluice snapshot` (or, while that command is not implemented, by piping each table from
# `mariadb --batch --raw` into `\copy`, with the types sluice maps them to; the report says which).
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

DB="${BENCH_VERIFY_DB:-sbtest}"
TABLES="${BENCH_TABLES:-8}"
ROWS="${BENCH_TABLE_SIZE:-250000}"
TOOLS="${BENCH_TOOLS:-sluice reladiff scan}"
RELADIFF_THREADS="${BENCH_RELADIFF_THREADS:-2}"
TIMEOUT="${BENCH_TIMEOUT:-1800}"
PGDB=bench_verify
PREPARED_BY=""

bench_init verify
VENV="$BENCH_WORK/reladiff-venv"

source_url() { echo "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$DB"; }
target_url() { echo "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$PGDB"; }

# prepare_target copies the source into bench_verify once.
prepare_target() {
	bench_pg_recreate_db "$PGDB"
	if bench_sluice_has snapshot; then
		bench_log "target: sluice snapshot of $DB into $PGDB"
		"$BENCH_SLUICE" snapshot --source "$(source_url)" --target "$(target_url)" --include "$DB.*" \
			>"$BENCH_WORK/logs/snapshot.log" 2>&1 || bench_die "sluice snapshot failed (log $BENCH_WORK/logs/snapshot.log)"
		PREPARED_BY="\`sluice snapshot\`"
		return
	fi
	bench_log "target: sluice snapshot is not implemented yet; piping the tables with mariadb | psql \\copy"
	bench_psql "$PGDB" -c "CREATE SCHEMA \"$DB\" AUTHORIZATION sluice"
	local t
	for t in $(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$DB' ORDER BY 1"); do
		bench_psql "$PGDB" -c "CREATE TABLE \"$DB\".\"$t\" (id integer PRIMARY KEY, k integer NOT NULL DEFAULT 0,
			c varchar(120) NOT NULL DEFAULT '', pad varchar(60) NOT NULL DEFAULT '');
			ALTER TABLE \"$DB\".\"$t\" OWNER TO sluice"
		bench_mysql --raw -e "SELECT id, k, c, pad FROM \`$DB\`.\`$t\`" |
			bench_psql "$PGDB" -c "\\copy \"$DB\".\"$t\" FROM STDIN"
		bench_psql "$PGDB" -c "CREATE INDEX ON \"$DB\".\"$t\" (k); ANALYZE \"$DB\".\"$t\""
	done
	PREPARED_BY="a pipe \`mariadb --batch --raw | psql \\copy\` per table into the types sluice maps them to (\`sluice snapshot\` is not implemented yet in this build)"
}

setup_reladiff() {
	[[ -x $VENV/bin/reladiff ]] && return 0
	bench_log "installing reladiff[mysql,postgresql] into $VENV"
	python3 -m venv "$VENV" >"$BENCH_WORK/logs/reladiff-install.log" 2>&1 &&
		"$VENV/bin/pip" install -q 'reladiff[mysql,postgresql]' >>"$BENCH_WORK/logs/reladiff-install.log" 2>&1
}

# ---------------------------------------------------------------- contenders

run_sluice() {
	local rep=$1 log="$BENCH_WORK/logs/sluice.$1.log"
	# shellcheck disable=SC2086
	bench_measure sluice "$rep" "$log" -- timeout --kill-after=30 "$TIMEOUT" \
		"$BENCH_SLUICE" verify --source "$(source_url)" --target "$(target_url)" --include "$DB.*" \
		--online=off --json --log-level warn ${BENCH_SLUICE_ARGS:-} || return 1
	grep -q '"result": "equal"' "$log" || {
		bench_log "sluice verify #$rep did not report equal (log $log)"
		bench_mark_failed sluice "$rep"
	}
}

# reladiff compares one table per invocation; all tables one after the other, every column.
reladiff_all() {
	local t out rc=0
	for t in $(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$DB' ORDER BY 1"); do
		out="$("$VENV/bin/reladiff" "mysql://root:root@$BENCH_MY_HOST:$BENCH_MY_PORT/$DB" "$t" \
			"postgresql://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$PGDB" "$DB.$t" \
			-k id -c k -c c -c pad --threads "$RELADIFF_THREADS" -s 2>&1)" || rc=1
		printf '%s\n%s\n' "== $t" "$out"
		grep -q '^0 rows exclusive to table A' <<<"$out" && grep -q '^0 rows exclusive to table B' <<<"$out" &&
			grep -q '^0 rows updated' <<<"$out" || rc=1
	done
	return $rc
}

run_reladiff() {
	local rep=$1
	export DB PGDB VENV RELADIFF_THREADS BENCH_MY_HOST BENCH_MY_PORT BENCH_PG_HOST BENCH_PG_PORT
	bench_measure reladiff "$rep" "$BENCH_WORK/logs/reladiff.$rep.log" -- timeout --kill-after=30 "$TIMEOUT" \
		bash -c "$(declare -f bench_mysql reladiff_all); reladiff_all"
}

# The read limit: every table read in full by the plain clients, the MariaDB side and the
# PostgreSQL side at the same time (one session each), output thrown away.
scan_all() {
	local t tables
	tables="$(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$DB' ORDER BY 1")"
	(for t in $tables; do bench_mysql --raw -e "SELECT * FROM \`$DB\`.\`$t\`" >/dev/null || exit 1; done) &
	local my=$!
	(for t in $tables; do bench_psql "$PGDB" -c "COPY (SELECT * FROM \"$DB\".\"$t\") TO STDOUT" >/dev/null || exit 1; done) &
	local pg=$!
	wait "$my" && wait "$pg"
}

run_scan() {
	local rep=$1
	export DB PGDB BENCH_MY_HOST BENCH_MY_PORT BENCH_PG_HOST BENCH_PG_PORT BENCH_PSQL
	bench_measure scan "$rep" "$BENCH_WORK/logs/scan.$rep.log" -- timeout --kill-after=30 "$TIMEOUT" \
		bash -c "$(declare -f bench_mysql bench_psql scan_all); scan_all"
}

# ---------------------------------------------------------------- report

tool_name() {
	case $1 in
	sluice) echo "sluice verify" ;;
	reladiff) echo "reladiff (--threads $RELADIFF_THREADS, one table per run)" ;;
	scan) echo "full-scan SELECT, both sides at once (read limit)" ;;
	esac
}

median_of() { bench_stat "$1" "$2" | awk '{ print $1 }'; }
mbps() { awk -v b="$SRC_BYTES" -v s="$1" 'BEGIN{ if (s == "-" || s <= 0) print "-"; else printf "%.1f", b / 1048576 / s }'; }

result_row() {
	local tool=$1 wmed wmin wmax n
	read -r wmed wmin wmax n < <(bench_stat "$tool" wall)
	if [[ $n == 0 ]]; then
		printf '| %s | no successful run (logs in %s) | | | | | |\n' "$(tool_name "$tool")" "$BENCH_WORK/logs"
		return
	fi
	printf '| %s | %s (%s–%s) | %s (%s–%s) | %s | %s | %s | %s/%s |\n' "$(tool_name "$tool")" \
		"$(bench_fmt "$wmed" 2)" "$(bench_fmt "$wmin" 2)" "$(bench_fmt "$wmax" 2)" \
		"$(mbps "$wmed")" "$(mbps "$wmax")" "$(mbps "$wmin")" \
		"$(bench_fmt "$(median_of "$tool" tool)" 1)" "$(bench_fmt "$(median_of "$tool" my)" 1)" \
		"$(bench_fmt "$(median_of "$tool" pg)" 1)" "$n" "$BENCH_REPS"
}

# ratio A B: median seconds of B / median seconds of A.
ratio() {
	awk -v a="$(median_of "$1" wall)" -v b="$(median_of "$2" wall)" \
		'BEGIN{ if (a == "-" || b == "-" || a <= 0) print "-"; else printf "%.2f", b / a }'
}

write_report() {
	cat <<EOF
Full comparison of an equal source and target, run by \`bench/run.sh verify\` (bench/verify.sh).

$(cat "$BENCH_WORK/machine.md")
- reladiff: $("$VENV/bin/reladiff" --version 2>/dev/null | head -n1 || echo "not installed")
- data: \`sysbench oltp_common --tables=$TABLES --table-size=$ROWS prepare\` in MariaDB database \`$DB\`: $SRC_ROWS rows, $(awk -v b="$SRC_BYTES" 'BEGIN{printf "%.1f", b / 1048576}') MB (data_length + index_length)
- target: PostgreSQL database \`$PGDB\`, schema \`$DB\`, made by $PREPARED_BY
- each run compares every row and column (\`id, k, c, pad\`) of the $TABLES tables and must find them equal: sluice's JSON report says \`equal\`, reladiff prints 0 exclusive and 0 updated rows for every table; the scan reads everything once per side
- sluice: \`sluice verify --include '$DB.*' --online=off --json${BENCH_SLUICE_ARGS:+ $BENCH_SLUICE_ARGS}\` (default workers = $(nproc) cores, adaptive chunks)

| tool | seconds, median (min–max) | MB/s (min–max) | CPU s tool | CPU s mariadbd | CPU s postgres | equal runs |
|---|---|---|---|---|---|---|
$(for t in $TOOLS; do result_row "$t"; done)

Ratios of the median times (same run):

- sluice vs reladiff: **$(ratio sluice reladiff)×** as fast (goal ≥ 3)
- sluice time / read-limit time: **$(ratio scan sluice)** (goal ≤ 2)

Where the time goes (median runs):

$(for t in $TOOLS; do cpu_line "$t"; done)
- MD5 is the only hash MariaDB and PostgreSQL 15 both have built in (PostgreSQL has no crc32
  before 18), so the servers' CPU is the floor: a full comparison cannot finish faster than
  (mariadbd + postgres CPU) / $(nproc) cores. sluice keeps that CPU low by hashing each chunk
  once per side (\`MD5(GROUP_CONCAT(rowtext))\` / \`md5(string_agg(...))\` in key order; the
  per-row hash sums run only for a chunk whose digests differ, docs/verify.md) and runs both
  servers flat out for its whole run (source and target chunk queries at the same time, no
  parallel-query workers or JIT on the target, chunk bounds of dense integer keys computed
  instead of read); reladiff makes the servers spend more CPU for the same rows (see above)
  and adds its own client CPU and table-by-table pauses.
- The scan only reads and prints: its server CPU is a fraction of a hashing pass, its client
  CPU (mariadb and psql formatting rows) is most of its cost.
- CPU s mariadbd/postgres count everything those servers did meanwhile, including other work on
  this shared box.
EOF
}

# cpu_line TOOL: how the median run's CPU splits between the tool and the two servers.
cpu_line() {
	local w t m p
	w="$(median_of "$1" wall)"
	[[ $w == - ]] && return
	t="$(median_of "$1" tool)" m="$(median_of "$1" my)" p="$(median_of "$1" pg)"
	NAME="$(tool_name "$1")" awk -v w="$w" -v t="$t" -v m="$m" -v p="$p" -v cores="$(nproc)" 'BEGIN {
		printf "- %s: %.2f s wall = %.1f core-seconds; used %.1f: tool %.1f, mariadbd %.1f, postgres %.1f (server bound: %.2f s)\n",
			ENVIRON["NAME"], w, w * cores, t + m + p, t, m, p, (m + p) / cores }'
}

main() {
	bench_build_sluice || bench_die "cannot build sluice"
	bench_sluice_has verify || bench_die "sluice verify is not implemented in this build"
	bench_sysbench_prepare "$DB" "$TABLES" "$ROWS" || bench_die "sysbench prepare of $DB failed"
	bench_my_table_stats "$DB" >"$BENCH_WORK/source-tables.txt" || bench_die "reading table sizes of $DB failed"
	SRC_ROWS="$(awk '{ s += $2 } END { print s }' "$BENCH_WORK/source-tables.txt")"
	SRC_BYTES="$(awk '{ s += $3 } END { print s }' "$BENCH_WORK/source-tables.txt")"
	bench_log "source $DB: $SRC_ROWS rows, $((SRC_BYTES / 1048576)) MB"
	bench_machine_md >"$BENCH_WORK/machine.md"
	prepare_target
	if [[ " $TOOLS " == *" reladiff "* ]]; then
		setup_reladiff || bench_die "installing reladiff failed (log $BENCH_WORK/logs/reladiff-install.log)"
	fi
	local rep tool
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for tool in $TOOLS; do
			bench_pg_checkpoint
			"run_$tool" "$rep" || bench_log "$tool #$rep failed (log $BENCH_WORK/logs/$tool.$rep.log)"
		done
	done
	write_report >"$BENCH_WORK/section.md"
	cat "$BENCH_WORK/section.md"
	if [[ -z ${BENCH_NO_DOC:-} ]]; then
		bench_doc_section verify "$BENCH_WORK/section.md"
		bench_log "wrote the verify section of $BENCH_DOC"
	fi
}

main "$@"
