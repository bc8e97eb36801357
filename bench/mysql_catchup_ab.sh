#!/usr/bin/env bash
# bench/mysql_catchup_ab.sh: the MySQL-target catch-up of several sluice builds side by side, on the
# same backlog (bench/mysql_target.sh's catch-up without the native replica). Throwaway source and
# target MariaDB servers; each build gets its own copy (database ab_N on the target, made by its
# own `sluice snapshot`); then per rep: BENCH_SECONDS of sysbench on the source with every copy
# stopped, and each build applies that backlog alone, one after the other (the order rotates per
# rep), timed from `sluice replicate` until the copy has the heartbeat written when the load ended.
# Prints one line per build and rep: transactions per second applied, and the target's CPU seconds
# and statement/row counters (SHOW GLOBAL STATUS deltas) per source transaction.
#
# Usage: BENCH_AB="name=/path/to/sluice name2=/path/to/sluice2 ..." bash bench/mysql_catchup_ab.sh
# Knobs: BENCH_AB_ARGS_<name> (extra flags for that build's sluice replicate), BENCH_REPS (2),
# BENCH_CATCHUP_WORKLOADS (oltp_write_only), BENCH_PERF=1 (perf record of the target mariadbd
# while each build applies, report in $BENCH_WORK/logs), BENCH_PPROF=PORT (an 8 s Go CPU profile of
# each build from its --metrics-addr 127.0.0.1:PORT with --pprof, 3 s into its catch-up), and bench/mysql_target.sh's
# BENCH_TABLES, BENCH_TABLE_SIZE, BENCH_THREADS, BENCH_SECONDS, BENCH_WORK.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-2}"
export BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/mysql-catchup-ab}"
# shellcheck source=bench/mysql_target.sh
source "$BENCH_DIR/mysql_target.sh"
BENCH_REPS="$USER_REPS"
WLS="${BENCH_CATCHUP_WORKLOADS:-oltp_write_only}"

read -ra AB <<<"${BENCH_AB:?BENCH_AB=\"name=/path/to/sluice ...\"}"
declare -A BIN=()
NAMES=()
for x in "${AB[@]}"; do
	NAMES+=("${x%%=*}")
	BIN[${x%%=*}]="${x#*=}"
done

STATUS_VARS="'HANDLER_WRITE','HANDLER_UPDATE','HANDLER_DELETE','HANDLER_READ_KEY','HANDLER_READ_RND_NEXT','COM_INSERT','COM_UPDATE','COM_DELETE','COM_UPDATE_MULTI','COM_BEGIN','COM_COMMIT','QUESTIONS','BYTES_RECEIVED','INNODB_DATA_WRITTEN','INNODB_OS_LOG_WRITTEN','BINLOG_BYTES_WRITTEN'"
status() { mt_sql target -e "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ($STATUS_VARS) ORDER BY 1"; }

# run_one NAME T_END TXNS REP WL: build NAME applies the backlog up to heartbeat T_END into ab_NAME.
run_one() {
	local name=$1 tend=$2 n=$3 rep=$4 wl=$5 db="ab_$1" log tf ts tc g0 g1 st0 st1 perf_pid=
	log="$BENCH_WORK/logs/ab.$name.$wl.$rep.log" tf="$BENCH_WORK/logs/ab.$name.$wl.$rep.time"
	: >"$log"
	BENCH_SLUICE="${BIN[$name]}"
	local var="BENCH_AB_ARGS_$name"
	BENCH_SLUICE_ARGS="${!var:-}"
	# The profiler is served with --pprof only; SLUICE_PPROF sets it and builds without the flag ignore it.
	[[ -n ${BENCH_PPROF:-} ]] && BENCH_SLUICE_ARGS+=" --metrics-addr 127.0.0.1:${BENCH_PPROF}" && export SLUICE_PPROF=true
	bench_wait_quiet
	st0="$(status)" g0="$(mt_cpu target)"
	if [[ -n ${BENCH_PERF:-} ]]; then
		perf record -F 499 -g -p "$(mt_pid target)" -o "$BENCH_WORK/logs/perf.$name.$rep.data" >/dev/null 2>&1 &
		perf_pid=$!
	fi
	ts="$(now_us)"
	start_sluice "$db" InnoDB "$db" "$log" "$tf"
	if [[ -n ${BENCH_PPROF:-} ]]; then
		(sleep 3 && curl -s -o "$BENCH_WORK/logs/pprof.$name.$rep.pb.gz" "http://127.0.0.1:${BENCH_PPROF}/debug/pprof/profile?seconds=8") &
	fi
	tc="$(wait_caught_up target "$db" "$tend" 900)" || tc=""
	g1="$(mt_cpu target)" st1="$(status)"
	[[ -n $perf_pid ]] && kill -INT "$perf_pid" && wait "$perf_pid" 2>/dev/null
	stop_sluice
	if [[ -z $tc ]]; then
		bench_log "ab $name $wl #$rep: not caught up (see $log)"
		return 1
	fi
	local s
	s="$(us_diff "$ts" "$tc")"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wl" "$rep" "$n" "$s" \
		"$(awk -v n="$n" -v s="$s" 'BEGIN { printf "%.0f", n / s }')" "$(tool_cpu "$tf")" "$(sub_s "$g0" "$g1")" |
		tee -a "$BENCH_WORK/ab.tsv"
	join <(echo "$st0") <(echo "$st1") | awk -v n="$n" -v who="$name" '{ printf "  %s %s per txn %.3f\n", who, $1, ($3 - $2) / n }' |
		tee -a "$BENCH_WORK/ab.status"
	if [[ -n $perf_pid ]]; then
		perf report -i "$BENCH_WORK/logs/perf.$name.$rep.data" --no-children --sort symbol --stdio 2>/dev/null |
			grep -v '^#' | grep '%' | head -60 >"$BENCH_WORK/logs/perf.$name.$rep.txt"
	fi
}

ab_main() {
	mt_init
	: >"$BENCH_WORK/ab.tsv"
	: >"$BENCH_WORK/ab.status"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	mt_server_start source 1 || bench_die "cannot start the source"
	mt_server_start target 2 || bench_die "cannot start the target"
	prepare_source
	local name tend rep wl n order i
	for name in "${NAMES[@]}"; do
		BENCH_SLUICE="${BIN[$name]}"
		bench_log "ab: $name snapshot into ab_$name (untimed)"
		sluice_snapshot "ab_$name" InnoDB "ab_$name" "$BENCH_WORK/logs/ab.$name.snapshot.log" || bench_die "snapshot $name"
	done
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $WLS; do
			bench_log "ab $wl #$rep: ${SECONDS_LOAD}s of load"
			start_heartbeat
			n="$(sysbench_run "$wl" "$BENCH_WORK/logs/ab.$wl.$rep.sysbench.log")"
			stop_heartbeat
			tend="$(mark_heartbeat)" || bench_die "heartbeat"
			order=()
			for ((i = 0; i < ${#NAMES[@]}; i++)); do order+=("${NAMES[(i + rep - 1) % ${#NAMES[@]}]}"); done
			for name in "${order[@]}"; do run_one "$name" "$tend" "$n" "$rep" "$wl"; done
		done
	done
	for name in "${NAMES[@]}"; do
		if check_equal target "ab_$name"; then bench_log "ab_$name equals the source"; else bench_log "ab_$name DIFFERS from the source"; fi
	done
	cleanup
	trap - EXIT
	echo "name workload rep txns seconds txn/s sluice_cpu_s target_cpu_s"
	cat "$BENCH_WORK/ab.tsv"
}

ab_main "$@"
