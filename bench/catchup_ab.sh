#!/usr/bin/env bash
# bench/catchup_ab.sh: backlog catch-up of two sluice builds side by side (a refactoring must not
# make apply slower). The same measurement as bench/replicate.sh's catch-up (sluice stopped, 60 s
# of sysbench load at 8 threads on 8 x 100,000 rows, then sluice started and timed until caught
# up), for the committed HEAD ("sluice") and a base build ("sluice_base": BENCH_BASE_REV, default
# HEAD~1, built the same way, or a binary given as BENCH_SLUICE_BASE), interleaved rep by rep, each
# on its own copy of the data. Prints a markdown table: per build and workload the median
# catch-up factor (source transactions per second while applying the backlog / while writing it),
# with min and max, and the ratio of the two builds' medians.
#
# Knobs: BENCH_REPS (3), BENCH_CATCHUP_WORKLOADS ("oltp_insert oltp_write_only"), BENCH_BASE_REV,
# BENCH_SLUICE_BASE, and bench/replicate.sh's BENCH_TABLES, BENCH_TABLE_SIZE, BENCH_THREADS,
# BENCH_SECONDS.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-3}"
BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/catchup-ab}"
# shellcheck source=bench/replicate.sh
source "$BENCH_DIR/replicate.sh"
BENCH_REPS="$USER_REPS"
TOOLS="sluice sluice_base"

# The replicate.sh functions for "sluice" run $BENCH_SLUICE on the databases named after the tool;
# these run the base build on its own databases.
init_sluice_base() { with_base init_sluice_as sluice_base; }
init_sluice() { init_sluice_as sluice; }
init_sluice_as() {
	local tool=$1 db log="$BENCH_WORK/logs/$1-snapshot.log"
	db="$(mydb "$tool")"
	bench_pg_recreate_db "$(pgdb "$tool")" || bench_die "create $(pgdb "$tool")"
	bench_log "$tool snapshot of $db (untimed)"
	"$BENCH_SLUICE" snapshot --source "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$db" \
		--target "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$(pgdb "$tool")" \
		--include "$db.*" --stream "$STREAM" --log-format text >"$log" 2>&1 ||
		bench_die "$tool snapshot failed (see $log)"
}
start_tool() {
	local tool=$1 db
	db="$(mydb "$tool")"
	local bin="$BENCH_SLUICE"
	[[ $tool == sluice_base ]] && bin="$BENCH_SLUICE_BASE"
	/usr/bin/time -f '%e %M %U %S' -o "$3" "$bin" replicate \
		--source "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$db" \
		--target "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$(pgdb "$tool")" \
		--include "$db.*" --stream "$STREAM" --log-format text >>"$2" 2>&1 &
	TOOL_PID=$!
}
with_base() { BENCH_SLUICE="$BENCH_SLUICE_BASE" "$@"; }

build_base() { bench_build_base; }

report() {
	local wl tool
	echo "| workload | build | runs | catch-up factor, median (min–max) | sluice CPU s (median) |"
	echo "|---|---|---|---|---|"
	for wl in $CATCHUP_WORKLOADS; do
		for tool in sluice sluice_base; do
			awk -F'\t' -v t="$tool" -v w="$wl" '$1 == t && $2 == w && $4 != "failed" {
				f = ($4 / $6) / ($4 / $5); print f, $7 }' "$CATCHUP_TSV" | sort -n |
				awk -v t="$tool" -v w="$wl" '{ f[NR] = $1; c[NR] = $2 } END {
					if (NR == 0) { printf "| %s | %s | 0 | failed | |\n", w, t; exit }
					m = (NR % 2) ? f[(NR + 1) / 2] : (f[NR / 2] + f[NR / 2 + 1]) / 2
					printf "| %s | %s | %d | %.2fx (%.2f–%.2f) | %s |\n", w, t, NR, m, f[1], f[NR], c[int((NR + 1) / 2)] }'
		done
	done
	echo
	echo "sluice = $(git -C "$BENCH_ROOT" rev-parse --short HEAD), sluice_base = ${BENCH_BASE_COMMIT:-$BENCH_SLUICE_BASE}; $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
}

ab_main() {
	bench_init catchup-ab
	CATCHUP_TSV="$BENCH_WORK/catchup.tsv"
	: >"$CATCHUP_TSV"
	bench_build_sluice || bench_die "cannot build sluice"
	build_base
	catchup_passes
	report | tee "$BENCH_WORK/report.md"
}

ab_main "$@"
