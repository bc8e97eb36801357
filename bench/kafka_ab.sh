#!/usr/bin/env bash
# bench/kafka_ab.sh: bench/kafka.sh's catch-up of two sluice builds side by side, so that a change is
# measured against the build before it in one run on the same shards and broker. Per pass and
# workload each build (the order alternates per pass) runs kafka.sh's catchup_run: a new stream at
# the idle shards' positions, BENCH_SECONDS of sysbench on both shards, `sluice stream
# --until-caught-up` timed, the records counted by bench/kafkacount and checked against the
# binlogs, then Kafka's ProducerPerformance with the same number and size of records (plain and
# transactional): the broker's limit in that same pass. Debezium is not run.
# Prints a markdown table: per build and workload the median sluice records/s / the transactional
# ProducerPerformance's records/s of the same pass (min–max), and per pass the new/base ratio.
#
# Knobs: BENCH_SLUICE (the new build; with BENCH_SLUICE_FROM=none as given, else the committed HEAD),
# BENCH_SLUICE_BASE or BENCH_BASE_REV (default HEAD~1), BENCH_REPS (3), BENCH_WORKLOADS
# (oltp_write_only), and kafka.sh's BENCH_TABLES, BENCH_TABLE_SIZE, BENCH_THREADS, BENCH_SECONDS,
# BENCH_SHARD_FLAVOR, BENCH_WORK (/tmp/sluice-bench/kafka-ab).
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-3}"
export BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/kafka-ab}"
export BENCH_NO_DEBEZIUM=1
# shellcheck source=bench/kafka.sh
source "$BENCH_DIR/kafka.sh"
BENCH_REPS="$USER_REPS"
WORKLOADS="${BENCH_WORKLOADS:-oltp_write_only}"

builds() { if (($1 % 2 == 1)); then echo base new; else echo new base; fi; }

# The pass is named REP-BUILD, so that each run has its own topics and logs and its lines in
# catchup.tsv and pp.tsv carry the build.
ab_run() {
	local build=$1 wl=$2 rep=$3 bin=$BENCH_SLUICE
	[[ $build == base ]] && bin=$BENCH_SLUICE_BASE
	BENCH_SLUICE="$bin" catchup_run "$wl" "$rep-$build"
}

report() {
	local wl
	echo "| workload | build | passes | sluice records/s / broker (transactional ProducerPerformance) records/s, median (min–max) | sluice records/s, median | correct |"
	echo "|---|---|---|---|---|---|"
	for wl in $WORKLOADS; do
		# per pass: build pass ratio sluice_rate correct cpu_us_per_record
		join -t $'\t' \
			<(awk -F'\t' -v w="$wl" '$1 == w && $3 != "failed" { print $2 "\t" $13 / $6 "\t" $16 "\t" $8 * 1e6 / $13 }' "$CATCHUP_TSV" | sort) \
			<(awk -F'\t' -v w="$wl" '$1 == w && $3 == "txn" { print $2 "\t" $6 }' "$PP_TSV" | sort) |
			awk -F'\t' '{ split($1, p, "-"); print p[2] "\t" p[1] "\t" $2 / $5 "\t" $2 "\t" $3 "\t" $4 }' >"$BENCH_WORK/ab.$wl.tsv"
		for b in base new; do
			awk -F'\t' -v b="$b" -v w="$wl" '$1 == b { r[++n] = $3; s[n] = $4; if ($5 != "yes") bad++ } END {
				if (!n) { printf "| %s | %s | 0 | failed | | |\n", w, b; exit }
				asort(r); asort(s)
				m = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
				ms = (n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
				printf "| %s | %s | %d | %.2f (%.2f–%.2f) | %.0f | %s |\n", w, b, n, m, r[1], r[n], ms, bad ? "NO" : "yes" }' "$BENCH_WORK/ab.$wl.tsv"
		done
		echo
		echo "per pass new/base ($wl): $(join <(awk '$1 == "new" { print $2, $3 }' "$BENCH_WORK/ab.$wl.tsv" | sort) \
			<(awk '$1 == "base" { print $2, $3 }' "$BENCH_WORK/ab.$wl.tsv" | sort) | awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), $2 / $3 }')"
	done
}

ab_main() {
	init
	bench_build_base
	bench_log "base: $BENCH_SLUICE_BASE (${BENCH_BASE_COMMIT:-given}); new: $BENCH_SLUICE (${BENCH_SLUICE_COMMIT:-})"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	mt_server_start shard1 1 || bench_die "cannot start shard1"
	mt_server_start shard2 2 || bench_die "cannot start shard2"
	prepare_shards
	local rep wl b
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $WORKLOADS; do
			for b in $(builds "$rep"); do ab_run "$b" "$wl" "$rep"; done
		done
	done
	cleanup
	trap - EXIT
	report | tee "$BENCH_WORK/report.md"
}

ab_main "$@"
