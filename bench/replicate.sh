#!/usr/bin/env bash
# bench/replicate.sh: live replication and backlog catch-up, sluice vs pg_chameleon (issue 4).
#
# For each sysbench workload (oltp_insert, oltp_update_index, oltp_update_non_index, oltp_delete,
# oltp_write_only; 8 threads, 60 s, 8 tables x 100,000 rows) and each tool, the tool replicates
# while the load runs; measured: source tps, applied tps (source transactions / time until the
# target has them all), lag p50/p99/max, CPU seconds of the tool, mariadbd and postgres. Then the
# catch-up: with the tool stopped, 60 s of oltp_insert and of oltp_write_only, then the tool is
# started and timed until it has caught up.
#
# Each tool replicates its own copy of the data set (MariaDB databases sbrepl_sluice and
# sbrepl_chameleon, PostgreSQL databases bench_repl_sluice and bench_repl_chameleon), so a stopped
# tool never accumulates the other's load. Lag is measured the same way for both, outside the
# tools: a heartbeat row (epoch microseconds, written every 0.1 s on the source) is polled in the
# target every 0.25 s; lag = now - newest heartbeat in the target. Applied row changes per second
# come from pg_stat_user_tables, source row changes per second from sysbench's write qps.
#
# Knobs: BENCH_REPS (default 1 here: one pass takes ~30 min), BENCH_TABLES (8), BENCH_TABLE_SIZE
# (100000), BENCH_THREADS (8), BENCH_SECONDS (60), BENCH_WORKLOADS, BENCH_TOOLS ("sluice chameleon"),
# BENCH_SOURCE=mysql (the sandbox MySQL 9.7 as the source; with BENCH_TOOLS=sluice),
# BENCH_NO_DOC=1 (print the section, leave docs/ alone), BENCH_SLUICE_ARGS (extra replicate flags),
# BENCH_WORK (default /tmp/sluice-bench/replicate), BENCH_APPEND=1 (keep the results already in
# BENCH_WORK, e.g. to add the catch-up runs with BENCH_WORKLOADS=" ").
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-}"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

BENCH_REPS="${USER_REPS:-1}"
TABLES="${BENCH_TABLES:-8}"
TABLE_SIZE="${BENCH_TABLE_SIZE:-100000}"
THREADS="${BENCH_THREADS:-8}"
SECONDS_LOAD="${BENCH_SECONDS:-60}"
WORKLOADS="${BENCH_WORKLOADS:-oltp_insert oltp_update_index oltp_update_non_index oltp_delete oltp_write_only}"
CATCHUP_WORKLOADS="${BENCH_CATCHUP_WORKLOADS:-oltp_insert oltp_write_only}"
TOOLS="${BENCH_TOOLS:-sluice chameleon}"
CHAMELEON_USER=sluicebench
CHAMELEON_VERSION=2.0.21
CHAMELEON_HOME="/home/$CHAMELEON_USER"
STREAM=bench_repl

mydb() { echo "sbrepl_$1"; }        # source database of a tool
pgdb() { echo "bench_repl_$1"; }    # target database of a tool (schema = mydb)
now_us() { date +%s%6N; }

# ---------------------------------------------------------------- data

prepare_data() {
	local tool db
	for tool in $TOOLS; do
		db="$(mydb "$tool")"
		bench_mysql -e "DROP TABLE IF EXISTS \`$db\`.hb" 2>/dev/null
		bench_sysbench_prepare "$db" "$TABLES" "$TABLE_SIZE" || bench_die "sysbench prepare $db failed"
		bench_mysql -e "CREATE TABLE \`$db\`.hb (id INT PRIMARY KEY, ts BIGINT NOT NULL);
			INSERT INTO \`$db\`.hb VALUES (1, CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED))" ||
			bench_die "heartbeat table in $db"
	done
}

# The heartbeat writer: one client session fed with an endless script (no process per write).
start_heartbeat() {
	local tool stmt=""
	for tool in $TOOLS; do
		stmt+="UPDATE \`$(mydb "$tool")\`.hb SET ts = CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED) WHERE id = 1; "
	done
	(yes "$stmt DO SLEEP(0.1);" | bench_mysql >/dev/null 2>&1) &
	HB_PID=$!
}

stop_heartbeat() {
	[[ -n ${HB_PID:-} ]] || return 0
	pkill_tree "$HB_PID"
	HB_PID=
}


# target_hb TOOL: newest heartbeat (epoch µs) in the tool's target, empty if none.
target_hb() {
	bench_psql "$(pgdb "$1")" -At -c "SELECT ts FROM \"$(mydb "$1")\".hb WHERE id = 1" 2>/dev/null
}

# start_poller TOOL FILE: every 0.25 s one line "now_us|hb_us|applied_rows" into FILE.
start_poller() {
	local tool=$1 file=$2 schema
	schema="$(mydb "$tool")"
	# psql's \watch flushes every result, so the file is complete whenever psql is killed.
	local q="SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, (SELECT ts FROM \"$schema\".hb WHERE id = 1),
		(SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables
		 WHERE schemaname = '$schema' AND relname <> 'hb') \\watch 0.25"
	(printf '%s\n' "$q" | bench_psql "$(pgdb "$tool")" -At 2>/dev/null | grep --line-buffered '|' >"$file") &
	POLL_PID=$!
}

stop_poller() {
	[[ -n ${POLL_PID:-} ]] || return 0
	pkill_tree "$POLL_PID"
	POLL_PID=
}

# wait_caught_up TOOL T_US LIMIT_S: wait until the target's heartbeat is at least T_US; prints the
# epoch µs when it was seen (empty and status 1 on timeout, or when the tool process ended).
wait_caught_up() {
	local tool=$1 t=$2 limit=$3 start=$SECONDS hb
	while ((SECONDS - start < limit)); do
		if [[ -n ${TOOL_PID:-} ]] && ! kill -0 "$TOOL_PID" 2>/dev/null; then
			bench_log "$tool exited while waiting for it to catch up"
			return 1
		fi
		hb="$(target_hb "$tool")"
		if [[ -n $hb && $hb -ge $t ]]; then
			now_us
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# ---------------------------------------------------------------- sluice

init_sluice() {
	local db log="$BENCH_WORK/logs/sluice-snapshot.log"
	db="$(mydb sluice)"
	bench_pg_recreate_db "$(pgdb sluice)" || bench_die "create $(pgdb sluice)"
	bench_log "sluice snapshot of $db (untimed)"
	"$BENCH_SLUICE" snapshot --source "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$db" \
		--target "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$(pgdb sluice)" \
		--include "$db.*" --stream "$STREAM" --log-format text >"$log" 2>&1 ||
		bench_die "sluice snapshot failed (see $log)"
}

# start_sluice LOG TIMEFILE: sluice replicate in the background under GNU time.
start_sluice() {
	local db
	db="$(mydb sluice)"
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e %M %U %S' -o "$2" "$BENCH_SLUICE" replicate \
		--source "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$db" \
		--target "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$(pgdb sluice)" \
		--include "$db.*" --stream "$STREAM" --log-format text ${BENCH_SLUICE_ARGS:-} >>"$1" 2>&1 &
	TOOL_PID=$!
}

# stop_tool TOOL: graceful stop and wait (sluice: SIGINT to the process under GNU time;
# pg_chameleon: its own stop_replica, which signals the replica process through its pid file).
stop_tool() {
	local kid
	if [[ $1 == chameleon ]]; then
		as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" stop_replica --config repl --source mysql >/dev/null 2>&1
	else
		kid="$(ps -o pid= --ppid "$TOOL_PID" | head -n1 | tr -d ' ')"
		[[ -n $kid ]] && kill -INT "$kid" 2>/dev/null
	fi
	local start=$SECONDS
	while kill -0 "$TOOL_PID" 2>/dev/null && ((SECONDS - start < 60)); do sleep 0.2; done
	kill -0 "$TOOL_PID" 2>/dev/null && pkill_tree "$TOOL_PID"
	wait "$TOOL_PID" 2>/dev/null
	TOOL_PID=
}

# ---------------------------------------------------------------- pg_chameleon

as_chameleon() { (cd "$CHAMELEON_HOME" && runuser -u "$CHAMELEON_USER" -- "$@"); }

setup_chameleon() {
	local log="$BENCH_WORK/logs/chameleon-setup.log"
	{
		id "$CHAMELEON_USER" >/dev/null 2>&1 || useradd -m -s /bin/bash "$CHAMELEON_USER"
		dpkg -s python3-venv >/dev/null 2>&1 ||
			DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv
		[[ -x $CHAMELEON_HOME/venv/bin/python ]] || as_chameleon /usr/bin/python3 -m venv "$CHAMELEON_HOME/venv"
		as_chameleon "$CHAMELEON_HOME/venv/bin/pip" show pg-chameleon 2>/dev/null | grep -qx "Version: $CHAMELEON_VERSION" ||
			as_chameleon "$CHAMELEON_HOME/venv/bin/pip" install -q "pg-chameleon==$CHAMELEON_VERSION"
		[[ -d $CHAMELEON_HOME/.pg_chameleon/configuration ]] ||
			as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" set_configuration_files
	} >"$log" 2>&1 || bench_die "pg_chameleon setup failed (see $log)"
	chameleon_config >"$CHAMELEON_HOME/.pg_chameleon/configuration/repl.yml"
	chown "$CHAMELEON_USER:" "$CHAMELEON_HOME/.pg_chameleon/configuration/repl.yml"
}

# chameleon_config: the example configuration of pg_chameleon 2.0.21 with the sandbox endpoints,
# logging to stdout (foreground, info level), its default batch sizes.
chameleon_config() {
	local db
	db="$(mydb chameleon)"
	cat <<EOF
---
pid_dir: '~/.pg_chameleon/pid/'
log_dir: '~/.pg_chameleon/logs/'
log_dest: stdout
log_level: info
log_days_keep: 10
rollbar_key: ''
rollbar_env: ''
type_override: {}
pg_conn:
  host: "$BENCH_PG_HOST"
  port: "$BENCH_PG_PORT"
  user: "sluice"
  password: "sluice"
  database: "$(pgdb chameleon)"
  charset: "utf8"
sources:
  mysql:
    db_conn:
      host: "$BENCH_MY_HOST"
      port: "$BENCH_MY_PORT"
      user: "sluice"
      password: "sluice"
      charset: 'utf8'
      connect_timeout: 10
    schema_mappings:
      $db: $db
    limit_tables:
    skip_tables:
    grant_select_to:
    lock_timeout: "120s"
    my_server_id: 101
    replica_batch_size: 10000
    replay_max_rows: 10000
    batch_retention: '1 day'
    copy_max_memory: "300M"
    copy_mode: 'file'
    out_dir: /tmp
    sleep_loop: 1
    on_error_replay: continue
    on_error_read: continue
    auto_maintenance: "disabled"
    gtid_enable: false
    type: mysql
    skip_events:
      insert:
      delete:
      update:
    keep_existing_schema: No
    net_read_timeout: 600
EOF
}

init_chameleon() {
	local log="$BENCH_WORK/logs/chameleon-init.log"
	bench_pg_recreate_db "$(pgdb chameleon)" || bench_die "create $(pgdb chameleon)"
	rm -f "$CHAMELEON_HOME"/.pg_chameleon/pid/*
	bench_log "pg_chameleon create_replica_schema, add_source, init_replica of $(mydb chameleon) (untimed)"
	{
		as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" create_replica_schema --config repl &&
			as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" add_source --config repl --source mysql &&
			as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" init_replica --config repl --source mysql
	} >"$log" 2>&1 || bench_die "pg_chameleon init failed (see $log)"
}

start_chameleon() {
	rm -f "$CHAMELEON_HOME"/.pg_chameleon/pid/*
	# A replica process that had to be killed leaves its catalogue status at "running", and
	# start_replica then refuses to start: reset it (no replica process runs at this point).
	as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" enable_replica --config repl --source mysql >>"$1" 2>&1
	(cd "$CHAMELEON_HOME" && exec /usr/bin/time -f '%e %M %U %S' -o "$2" \
		runuser -u "$CHAMELEON_USER" -- "$CHAMELEON_HOME/venv/bin/chameleon" start_replica --config repl --source mysql) >>"$1" 2>&1 &
	TOOL_PID=$!
}

# ---------------------------------------------------------------- one measured run

start_tool() {
	case $1 in
	sluice) start_sluice "$2" "$3" ;;
	chameleon) start_chameleon "$2" "$3" ;;
	esac
}

# tool_cpu TIMEFILE: user+system seconds GNU time reported.

# sysbench_run WORKLOAD DB LOG: 60 s of load; prints the number of transactions.
sysbench_run() {
	sysbench "$1" --db-driver=mysql --mysql-host="$BENCH_MY_HOST" --mysql-port="$BENCH_MY_PORT" \
		--mysql-user=root --mysql-password=root --mysql-db="$2" --tables="$TABLES" --table-size="$TABLE_SIZE" \
		--threads="$THREADS" --time="$SECONDS_LOAD" --report-interval=1 --rand-type=uniform run >"$3" 2>&1 ||
		bench_log "sysbench $1 failed (see $3)"
	awk '/^ *transactions:/ { print $2 }' "$3"
}

# lag_stats SAMPLES T0 T1: "p50 p99 max" lag in seconds over samples taken in [T0, T1] (µs).
lag_stats() {
	awk -F'|' -v a="$2" -v b="$3" '$1 >= a && $1 <= b && $2 != "" { print ($1 - $2) / 1e6 }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "- - -"; exit }
			p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
			printf "%.2f %.2f %.2f\n", (p50 < 0 ? 0 : p50), (p99 < 0 ? 0 : p99), v[NR] }'
}

# live_run TOOL WORKLOAD REP: one measured live-replication run; appends a line to $LIVE_TSV.
live_run() {
	local tool=$1 wl=$2 rep=$3 tag="$1.$2.$3"
	local log="$BENCH_WORK/logs/$tag.tool.log" tf="$BENCH_WORK/logs/$tag.time" sb="$BENCH_WORK/logs/$tag.sysbench.log"
	local samples="$BENCH_WORK/samples/$tag.tsv" t0 t1 tc n my0 pg0 my1 pg1
	: >"$log"
	start_tool "$tool" "$log" "$tf"
	if ! wait_caught_up "$tool" "$(now_us)" 180 >/dev/null; then
		bench_log "$tool did not reach the source within 180 s before $wl (see $log)"
		stop_tool "$tool"
		printf '%s\t%s\t%s\tfailed\n' "$tool" "$wl" "$rep" >>"$LIVE_TSV"
		return 1
	fi
	start_poller "$tool" "$samples"
	my0="$(bench_cpu_mariadbd)" pg0="$(bench_cpu_postgres)"
	t0="$(now_us)"
	bench_log "$tool $wl #$rep: ${SECONDS_LOAD}s of load"
	n="$(sysbench_run "$wl" "$(mydb "$tool")" "$sb")"
	t1="$(now_us)"
	tc="$(wait_caught_up "$tool" "$t1" 900)" || tc=""
	my1="$(bench_cpu_mariadbd)" pg1="$(bench_cpu_postgres)"
	stop_poller
	stop_tool "$tool"
	if [[ -z $tc || -z $n ]]; then
		bench_log "$tool $wl #$rep: not caught up within 900 s after the load"
		printf '%s\t%s\t%s\tfailed\n' "$tool" "$wl" "$rep" >>"$LIVE_TSV"
		return 1
	fi
	read -r p50 p99 pmax < <(lag_stats "$samples" "$t0" "$tc")
	# tool wl rep txns load_s apply_s lag_p50 lag_p99 lag_max tool_cpu my_cpu pg_cpu rss_mb t0 t1 tc
	printf '%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\n' "$tool" "$wl" "$rep" "$n" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN{print (b - a) / 1e6}')" "$(awk -v a="$t0" -v b="$tc" 'BEGIN{print (b - a) / 1e6}')" \
		"$p50" "$p99" "$pmax" "$(tool_cpu "$tf")" "$(awk -v a="$my0" -v b="$my1" 'BEGIN{print b - a}')" \
		"$(awk -v a="$pg0" -v b="$pg1" 'BEGIN{print b - a}')" "$(tool_rss_mb "$tf")" "$t0" "$t1" "$tc" >>"$LIVE_TSV"
	bench_log "$tool $wl #$rep: $n txns; caught up $(awk -v a="$t1" -v b="$tc" 'BEGIN{printf "%.1f", (b - a) / 1e6}') s after the load; lag p50/p99/max $p50/$p99/$pmax s"
}

# catchup_run TOOL WORKLOAD REP: tool stopped, 60 s of load, then the tool is started and timed.
catchup_run() {
	local tool=$1 wl=$2 rep=$3 tag="catchup.$1.$2.$3"
	local log="$BENCH_WORK/logs/$tag.tool.log" tf="$BENCH_WORK/logs/$tag.time" sb="$BENCH_WORK/logs/$tag.sysbench.log"
	local t0 t1 ts tc n my0 pg0 my1 pg1
	: >"$log"
	t0="$(now_us)"
	bench_log "catch-up $tool $wl #$rep: ${SECONDS_LOAD}s of load with $tool stopped"
	n="$(sysbench_run "$wl" "$(mydb "$tool")" "$sb")"
	t1="$(now_us)"
	my0="$(bench_cpu_mariadbd)" pg0="$(bench_cpu_postgres)"
	ts="$(now_us)"
	start_tool "$tool" "$log" "$tf"
	tc="$(wait_caught_up "$tool" "$t1" 1800)" || tc=""
	my1="$(bench_cpu_mariadbd)" pg1="$(bench_cpu_postgres)"
	stop_tool "$tool"
	if [[ -z $tc || -z $n ]]; then
		printf '%s\t%s\t%s\tfailed\n' "$tool" "$wl" "$rep" >>"$CATCHUP_TSV"
		bench_log "catch-up $tool $wl #$rep: not caught up within 1800 s"
		return 1
	fi
	# tool wl rep txns load_s catchup_s tool_cpu my_cpu pg_cpu
	printf '%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%.2f\t%.2f\n' "$tool" "$wl" "$rep" "$n" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN{print (b - a) / 1e6}')" "$(awk -v a="$ts" -v b="$tc" 'BEGIN{print (b - a) / 1e6}')" \
		"$(tool_cpu "$tf")" "$(awk -v a="$my0" -v b="$my1" 'BEGIN{print b - a}')" "$(awk -v a="$pg0" -v b="$pg1" 'BEGIN{print b - a}')" >>"$CATCHUP_TSV"
	bench_log "catch-up $tool $wl #$rep: $n txns written in ${SECONDS_LOAD}s, applied in $(awk -v a="$ts" -v b="$tc" 'BEGIN{printf "%.1f", (b - a) / 1e6}') s"
}

# check_equal TOOL: row counts of every table and the content hash of every sysbench table equal
# the source.
check_equal() {
	local tool=$1 db pg rc=0 i h pgh
	db="$(mydb "$tool")" pg="$(pgdb "$tool")"
	bench_compare_counts "$db" "$pg" "$db" || rc=1
	for ((i = 1; i <= TABLES; i++)); do
		h="$(bench_hash_my "$db" "sbtest$i" id,k,c,pad)"
		pgh="$(bench_hash_pg "$pg" "$db" "sbtest$i" id,k,c,pad 2>/dev/null)" || pgh=missing
		if [[ $h != "$pgh" ]]; then
			bench_log "$tool: content hash mismatch: $db.sbtest$i is $h, $pg is $pgh"
			rc=1
		fi
	done
	return $rc
}

main() {
	bench_init replicate
	mkdir -p "$BENCH_WORK/samples"
	LIVE_TSV="$BENCH_WORK/live.tsv" CATCHUP_TSV="$BENCH_WORK/catchup.tsv"
	if [[ -z ${BENCH_APPEND:-} ]]; then # BENCH_APPEND=1 adds to the results of an earlier run
		: >"$LIVE_TSV"
		: >"$CATCHUP_TSV"
	fi
	command -v sysbench >/dev/null || bench_die "sysbench is not installed (Debian package sysbench)"
	if [[ " $TOOLS " == *" sluice "* ]]; then
		bench_build_sluice || bench_die "cannot build sluice"
		bench_sluice_has replicate || bench_die "sluice replicate is not implemented yet"
	fi
	[[ " $TOOLS " == *" chameleon "* ]] && setup_chameleon
	trap 'stop_poller; stop_heartbeat; [[ -n ${TOOL_PID:-} ]] && pkill_tree "$TOOL_PID"' EXIT
	prepare_data
	local tool wl rep
	for tool in $TOOLS; do "init_$tool"; done
	start_heartbeat
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $WORKLOADS; do
			for tool in $TOOLS; do live_run "$tool" "$wl" "$rep"; done
		done
		for wl in $CATCHUP_WORKLOADS; do
			for tool in $TOOLS; do catchup_run "$tool" "$wl" "$rep"; done
		done
	done
	stop_heartbeat
	declare -gA CORRECT=()
	for tool in $TOOLS; do
		if check_equal "$tool"; then CORRECT[$tool]=yes; else CORRECT[$tool]=NO; fi
	done
	BENCH_SLUICE="${BENCH_SLUICE:-}" BENCH_SLUICE_COMMIT="${BENCH_SLUICE_COMMIT:-}" \
		bash "$BENCH_DIR/replicate_report.sh" "$BENCH_WORK" "$(for t in $TOOLS; do printf '%s=%s ' "$t" "${CORRECT[$t]}"; done)"
}

# catchup_passes: the A/B scripts' timed passes (catchup_ab.sh, policy_ab.sh): the data, each tool's
# start, BENCH_REPS passes of every catch-up workload with the tools interleaved, then each
# tool's target compared with the source.
catchup_passes() {
	trap 'stop_heartbeat; [[ -n ${TOOL_PID:-} ]] && pkill_tree "$TOOL_PID"' EXIT
	prepare_data
	local tool wl rep
	for tool in $TOOLS; do "init_$tool"; done
	start_heartbeat
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $CATCHUP_WORKLOADS; do
			for tool in $TOOLS; do catchup_run "$tool" "$wl" "$rep"; done
		done
	done
	stop_heartbeat
	for tool in $TOOLS; do
		if check_equal "$tool"; then bench_log "$tool: target equals the source"; else bench_log "$tool: TARGET DIFFERS"; fi
	done
}

[[ ${BASH_SOURCE[0]} == "$0" ]] && main "$@"
