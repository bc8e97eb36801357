#!/usr/bin/env bash
# bench/refactor_ab.sh: a refactoring must not make sluice slower. Runs the A/B form of every
# benchmark area with two builds, before and after, interleaved pass by pass on the same servers
# and data, and prints one table: area, metric (each a ratio to a limit or to the source measured
# in the same pass), before, after, after/before (median of the per-pass ratios, min–max).
#
#   snapshot  bench/snapshot.sh with BENCH_TOOLS="sluice sluice_base copy": MB/s of each build /
#             MB/s of the COPY limit in the same pass (MariaDB sandbox → PostgreSQL sandbox)
#   pg        bench/catchup_ab.sh: catch-up factor into PostgreSQL (backlog applied per second /
#             written per second)
#   mysql     bench/mysql_catchup_ab.sh: catch-up factor into MariaDB (throwaway servers; load
#             seconds / seconds to apply the same backlog)
#   reverse   bench/reverse_ab.sh, catch-up part: PostgreSQL → MariaDB catch-up factor
#   kafka     bench/kafka_ab.sh: records/s of two shards' backlog / transactional
#             ProducerPerformance records/s in the same pass (the broker's limit)
#
# Usage: BENCH_SLUICE=/path/new BENCH_SLUICE_BASE=/path/old bash bench/refactor_ab.sh
# Knobs: BENCH_AB_PARTS ("snapshot pg mysql reverse kafka"), BENCH_REPS (3), BENCH_TABLES (4; snapshot
# 8), BENCH_TABLE_SIZE (50000; snapshot 100000), BENCH_SECONDS (30; kafka 20), BENCH_WORK
# (/tmp/sluice-bench/refactor-ab; one directory per part), BENCH_REPORT_ONLY=1 (only the table,
# from the last run's files). The sandbox keeps binlogs 2 h, so SLUICE_MIN_BINLOG_RETENTION
# defaults to 1h here (builds without the flag ignore it). About 25 minutes on a busy box.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${BENCH_WORK:-/tmp/sluice-bench/refactor-ab}"
PARTS="${BENCH_AB_PARTS:-snapshot pg mysql reverse kafka}"
REPS="${BENCH_REPS:-3}"
TABLES="${BENCH_TABLES:-4}"
ROWS="${BENCH_TABLE_SIZE:-50000}"
LOAD_S="${BENCH_SECONDS:-30}"
export SLUICE_MIN_BINLOG_RETENTION="${SLUICE_MIN_BINLOG_RETENTION:-1h}" BENCH_QUIET_MAX="${BENCH_QUIET_MAX:-10}"

run_part() {
	local part=$1
	# The A/B scripts read the two builds from these; BENCH_SLUICE_FROM=none takes BENCH_SLUICE as given.
	local ab=(BENCH_SLUICE_FROM=none BENCH_SLUICE="$BENCH_SLUICE" BENCH_SLUICE_BASE="$BENCH_SLUICE_BASE"
		BENCH_WORK="$WORK/$part" BENCH_REPS="$REPS")
	mkdir -p "$WORK/$part"
	case $part in
	snapshot) env "${ab[@]}" BENCH_SNAPSHOT_DB=bench_refactor_ab BENCH_TABLES="${BENCH_TABLES:-8}" \
		BENCH_TABLE_SIZE="${BENCH_TABLE_SIZE:-100000}" BENCH_TOOLS="sluice sluice_base copy" BENCH_PROFILE=0 \
		BENCH_NO_DOC=1 bash "$BENCH_DIR/snapshot.sh" ;;
	pg) env "${ab[@]}" BENCH_TABLES="$TABLES" BENCH_TABLE_SIZE="$ROWS" BENCH_SECONDS="$LOAD_S" \
		BENCH_CATCHUP_WORKLOADS=oltp_write_only bash "$BENCH_DIR/catchup_ab.sh" ;;
	mysql) env "${ab[@]}" BENCH_AB="before=$BENCH_SLUICE_BASE after=$BENCH_SLUICE" BENCH_TABLES="$TABLES" \
		BENCH_TABLE_SIZE="$ROWS" BENCH_SECONDS="$LOAD_S" BENCH_CATCHUP_WORKLOADS=oltp_write_only \
		bash "$BENCH_DIR/mysql_catchup_ab.sh" ;;
	reverse) env "${ab[@]}" BENCH_PARTS=catchup BENCH_WORKLOADS=oltp_write_only BENCH_TABLES="$TABLES" \
		BENCH_TABLE_SIZE="$ROWS" BENCH_SECONDS="$LOAD_S" bash "$BENCH_DIR/reverse_ab.sh" ;;
	kafka) env "${ab[@]}" BENCH_WORKLOADS=oltp_insert BENCH_TABLES="$TABLES" BENCH_TABLE_SIZE="$ROWS" \
		BENCH_SECONDS="${BENCH_SECONDS:-20}" bash "$BENCH_DIR/kafka_ab.sh" ;;
	*) echo "unknown part $part (snapshot pg mysql reverse kafka)" >&2 && return 2 ;;
	esac >"$WORK/$part.out" 2>&1
}

# pairs_PART: lines "build pass value cpu" (build base or new; value: higher is better; cpu: sluice's
# CPU µs per source transaction, per Kafka record, or CPU s of the whole snapshot: less sensitive
# to the other work on a shared box than the rates) from the part's files.
pairs_snapshot() {
	awk -F'\t' '$3 == 0 { w[$1, $2] = $4; c[$1, $2] = $6; p[$2] = 1 } END { for (r in p) {
		if (w["copy", r] && w["sluice_base", r]) print "base", r, w["copy", r] / w["sluice_base", r], c["sluice_base", r]
		if (w["copy", r] && w["sluice", r]) print "new", r, w["copy", r] / w["sluice", r], c["sluice", r] } }' "$WORK/snapshot/results.tsv"
}
pairs_pg() {
	awk -F'\t' '$4 != "failed" { print ($1 == "sluice" ? "new" : "base"), $3, $5 / $6, $7 * 1e6 / $4 }' "$WORK/pg/catchup.tsv"
}
pairs_mysql() {
	awk -F'\t' -v l="$LOAD_S" '{ print ($1 == "after" ? "new" : "base"), $3, l / $5, $7 * 1e6 / $4 }' "$WORK/mysql/ab.tsv"
}
pairs_reverse() {
	awk -F'\t' '$4 != "failed" { split($3, p, "-"); print $1, p[1], $5 / $6, $7 * 1e6 / $4 }' "$WORK/reverse/catchup.tsv"
}
pairs_kafka() { awk -F'\t' '{ print $1, $2, $3, $6 }' "$WORK"/kafka/ab.*.tsv; }

metric() {
	case $1 in
	snapshot) echo "snapshot MB/s / COPY limit MB/s (MariaDB → PostgreSQL)" ;;
	pg) echo "catch-up into PostgreSQL: applied / source rate (oltp_write_only)" ;;
	mysql) echo "catch-up into MariaDB: applied / source rate (oltp_write_only)" ;;
	reverse) echo "reverse catch-up PostgreSQL → MariaDB: applied / source rate (oltp_write_only)" ;;
	kafka) echo "Kafka backlog, 2 shards: sluice records/s / broker (transactional ProducerPerformance) (oltp_insert)" ;;
	esac
}

# row PART: one table row from the pairs; the ratio is per pass (same pass: same data and minute).
row() {
	pairs_"$1" 2>/dev/null | awk -v area="$1" -v m="$(metric "$1")" '
		function med(a, n) { asort(a); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function mn(a, n, i, x) { x = a[1]; for (i = 2; i <= n; i++) if (a[i] < x) x = a[i]; return x }
		function mx(a, n, i, x) { x = a[1]; for (i = 2; i <= n; i++) if (a[i] > x) x = a[i]; return x }
		{ v[$1, $2] = $3; cpu[$1, $2] = $4; pass[$2] = 1 }
		END {
			for (p in pass) {
				if ((("base", p) in v)) { b[++nb] = v["base", p]; cb[nb] = cpu["base", p] }
				if ((("new", p) in v)) { a[++na] = v["new", p]; ca[na] = cpu["new", p] }
				if ((("base", p) in v) && (("new", p) in v)) r[++nr] = v["new", p] / v["base", p]
			}
			if (!nr) { printf "| %s | %s | – | – | not measured | 0 | |\n", area, m; exit }
			printf "| %s | %s | %.2f (%.2f–%.2f) | %.2f (%.2f–%.2f) | **%.2f** (%.2f–%.2f) | %d | %.3g → %.3g |\n", area, m,
				med(b, nb), mn(b, nb), mx(b, nb), med(a, na), mn(a, na), mx(a, na), med(r, nr), mn(r, nr), mx(r, nr), nr,
				med(cb, nb), med(ca, na)
		}'
}

report() {
	echo "| area | metric | before, median (min–max) | after, median (min–max) | after/before per pass, median (min–max) | passes | sluice CPU before → after, median (µs per txn or record; snapshot: s) |"
	echo "|---|---|---|---|---|---|---|"
	local part
	for part in $PARTS; do row "$part"; done
}

main() {
	if [[ -z ${BENCH_REPORT_ONLY:-} ]]; then
		: "${BENCH_SLUICE:?BENCH_SLUICE=/path/to/the new sluice}" "${BENCH_SLUICE_BASE:?BENCH_SLUICE_BASE=/path/to/the old sluice}"
		local part
		for part in $PARTS; do
			echo "[refactor-ab $(date +%H:%M:%S)] $part (log $WORK/$part.out)" >&2
			run_part "$part" || echo "[refactor-ab] $part failed (see $WORK/$part.out)" >&2
		done
	fi
	report | tee "$WORK/report.md"
}

main "$@"
