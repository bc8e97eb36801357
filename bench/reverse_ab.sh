#!/usr/bin/env bash
# bench/reverse_ab.sh: the reverse stream (PostgreSQL -> MariaDB) of two sluice builds side by side,
# so that a change to it is measured against the build before it in one run on the same servers and
# data. bench/reverse.sh's live and catch-up measurements (its functions, its throwaway servers), for
# the committed HEAD ("new") and a base build ("base": BENCH_BASE_REV, default HEAD~1, or a binary
# given as BENCH_SLUICE_BASE), interleaved pass by pass (the order alternates), on one stream whose
# state both builds read. Prints a markdown table per part: per build and workload the median
# applied/source and max lag (live), catch-up / write and sluice CPU µs per transaction (catch-up).
#
# Knobs: BENCH_REPS (2), BENCH_PARTS ("live catchup"), BENCH_BASE_REV, BENCH_SLUICE_BASE, and
# bench/reverse.sh's BENCH_WORKLOADS, BENCH_TABLES, BENCH_TABLE_SIZE, BENCH_THREADS, BENCH_SECONDS.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-2}"
BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/reverse-ab}"
# shellcheck source=bench/reverse.sh
source "$BENCH_DIR/reverse.sh"
BENCH_REPS="$USER_REPS"
DIRECTIONS=reverse

build_base() { bench_build_base; }

# as BUILD FUNC ARGS...: run a reverse.sh measurement with one build; its line in the TSV gets the
# build's name in place of the direction.
as() {
	local build=$1 tsv bin=$BENCH_SLUICE
	shift
	[[ $build == base ]] && bin=$BENCH_SLUICE_BASE
	if [[ $1 == live_run ]]; then tsv=$LIVE_TSV; else tsv=$CATCHUP_TSV; fi
	BENCH_SLUICE="$bin" "$@"
	sed -i "\$s/^reverse\t/$build\t/" "$tsv"
}

builds() { if (($1 % 2 == 1)); then echo base new; else echo new base; fi; }

# med: the median of the numbers on stdin ("-" without any).
med() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) printf "-"; else printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

report() {
	local wl b n
	echo "| part | workload | build | passes | applied/source (live) or catch-up/write, median | max lag s (live) or sluice CPU µs per txn (catch-up), median |"
	echo "|---|---|---|---|---|---|"
	for wl in $WORKLOADS; do
		for b in base new; do
			# live: applied/source = load seconds / seconds until applied; column 9 is the max lag
			sel() { awk -F'\t' -v w="$wl" -v b="$b" "\$1 == b && \$2 == w && \$4 != \"failed\" { print $1 }" "$2"; }
			n="$(sel 1 "$LIVE_TSV" | wc -l)"
			((n > 0)) && echo "| live | $wl | $b | $n | $(sel '$5 / $6' "$LIVE_TSV" | med) | $(sel '$9' "$LIVE_TSV" | med) |"
			n="$(sel 1 "$CATCHUP_TSV" | wc -l)"
			((n > 0)) && echo "| catch-up | $wl | $b | $n | $(sel '$5 / $6' "$CATCHUP_TSV" | med) | $(sel '$7 * 1e6 / $4' "$CATCHUP_TSV" | med) |"
		done
	done
}

ab_main() {
	rv_init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	mt_server_start mysql 1 || bench_die "cannot start the MariaDB server"
	BENCH_MY_HOST=127.0.0.1 BENCH_MY_PORT="$(mt_port mysql)" BENCH_MY_PIDFILE="$MT_SRV_ROOT/mysql/server.pid"
	pg_server_start || bench_die "cannot start the PostgreSQL server"
	bench_build_sluice || bench_die "cannot build sluice (see $BENCH_WORK/logs/go-build.log)"
	build_base
	bench_log "base: $BENCH_SLUICE_BASE (${BENCH_BASE_COMMIT:-given}); new: $BENCH_SLUICE (${BENCH_SLUICE_COMMIT:-})"
	prepare_data
	snapshot reverse || bench_die "snapshot of rev failed"
	local wl rep b
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $WORKLOADS; do
			# The pass is named with the build, so that each run keeps its own logs.
			if part live; then for b in $(builds "$rep"); do as "$b" live_run reverse "$wl" "$rep-$b"; done; fi
			if part catchup; then for b in $(builds "$rep"); do as "$b" catchup_run reverse "$wl" "$rep-$b"; done; fi
		done
	done
	final_check reverse
	cleanup
	trap - EXIT
	report | tee "$BENCH_WORK/report.md"
}

ab_main "$@"
