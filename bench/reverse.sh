#!/usr/bin/env bash
# bench/reverse.sh: the way back, PostgreSQL -> MySQL/MariaDB (issue 10, "Tests and benchmark"),
# measured next to the forward stream in the same run. Throwaway servers started and stopped by
# the script (the sandbox's are not used): one MariaDB (bench/mysql_target_servers.sh) and one
# PostgreSQL with wal_level=logical (bench/pg_server.sh).
#
# Data: sysbench oltp_common 8 tables x 100,000 rows prepared in MariaDB database rev, copied to
# database fwd, plus a heartbeat table hb in each; both copied to PostgreSQL by `sluice snapshot`
# (untimed): PostgreSQL databases rev and fwd, schemas rev and fwd.
#
#   reverse  `sluice replicate --source postgres://…/rev --target mysql://…/rev` while sysbench with
#            the pgsql driver (PGOPTIONS=-c search_path=rev) writes the PostgreSQL tables
#   forward  `sluice replicate --source mysql://…/fwd --target postgres://…/fwd` while sysbench with
#            the mysql driver writes the MariaDB tables: the same workloads, the other way
#
# Parts, per workload (oltp_insert, oltp_write_only; 8 threads, 60 s), the two directions
# interleaved (the order alternates per pass):
#   live     the stream running during the load: source tps, applied tps (source transactions /
#            seconds from the load's start until the target has them all), applied/source, lag
#            p50/p99/max (a heartbeat row written on the source every 0.1 s, polled in the target
#            every 0.25 s), CPU seconds of sluice, mariadbd and postgres
#   catchup  the stream stopped, 60 s of load, then started: seconds to apply the backlog,
#            catch-up rate / write rate (goal >= 3 for the reverse)
# and the reverse/forward ratio of both (catch-up rate: what each direction can apply at most),
# reported next to openGauss's published 0.84. Afterwards every table is compared (row counts and
# content hash on both sides).
#
# Results: the "## reverse" section of docs/benchmarks.md and docs/benchmarks-reverse.png
# (bench/reverse_report.sh, which BENCH_REPORT_ONLY=1 re-runs on the last work dir).
#
# Opt-in part bigtxn (BENCH_PARTS="bigtxn", or added to the others): one PostgreSQL transaction of
# about 1 GB of WAL applied by the reverse stream under --max-txn-memory 128MB (bigtxn_run).
#
# Knobs: BENCH_PARTS ("live catchup"; also "bigtxn"), BENCH_BIGTXN_MB (1024), BENCH_BIGTXN_MEMORY (128MB), BENCH_DIRECTIONS ("reverse forward"), BENCH_TABLES (8),
# BENCH_TABLE_SIZE (100000), BENCH_THREADS (8), BENCH_SECONDS (60), BENCH_WORKLOADS
# ("oltp_insert oltp_write_only"), BENCH_REPS (1 pass of live + catch-up per workload),
# BENCH_SLUICE_ARGS (extra flags for both streams), BENCH_WORK (/tmp/sluice-bench/reverse),
# BENCH_NO_DOC=1 (print the section, leave docs/ alone), BENCH_KEEP_SERVERS=1,
# BENCH_PG_SHARED_BUFFERS (1GB), BENCH_PG_SYNCHRONOUS_COMMIT (on, PostgreSQL's default; off: see below), BENCH_PG_CGROUP (1: PostgreSQL in one cpu cgroup), BENCH_MT_BUFFER_POOL (1G), and lib.sh's BENCH_SLUICE,
# BENCH_SLUICE_FROM, BENCH_QUIET_MAX, BENCH_QUIET_IDLE.
# A short trial: BENCH_SECONDS=10 BENCH_TABLES=2 BENCH_TABLE_SIZE=10000 BENCH_NO_DOC=1 BENCH_QUIET_MAX=5.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-}"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
# shellcheck source=bench/mysql_target_servers.sh
source "$BENCH_DIR/mysql_target_servers.sh"
# shellcheck source=bench/pg_server.sh
source "$BENCH_DIR/pg_server.sh"

# The way back runs against PostgreSQL as the application writes to it in production: with its
# default synchronous_commit = on (a commit returns once its WAL is flushed). With off (the
# sandbox's setting, for test speed; BENCH_PG_SYNCHRONOUS_COMMIT=off) PostgreSQL acknowledges
# commits it can still lose and writes 2-3x faster on this box, and its eight backends then leave
# the MariaDB target on the same 2 cores too little CPU to apply oltp_insert's rate within 2 s
# (docs/reverse.md "Live lag"): measured and reported, not the configuration the goal is judged in.
BENCH_PG_SYNCHRONOUS_COMMIT="${BENCH_PG_SYNCHRONOUS_COMMIT:-on}"
BENCH_REPS="${USER_REPS:-1}"
PARTS="${BENCH_PARTS:-live catchup}"
DIRECTIONS="${BENCH_DIRECTIONS:-reverse forward}"
TABLES="${BENCH_TABLES:-8}"
TABLE_SIZE="${BENCH_TABLE_SIZE:-100000}"
THREADS="${BENCH_THREADS:-8}"
SECONDS_LOAD="${BENCH_SECONDS:-60}"
WORKLOADS="${BENCH_WORKLOADS:-oltp_insert oltp_write_only}"

now_us() { date +%s%6N; }
part() { [[ " $PARTS " == *" $1 "* ]]; }
# us_diff A B: (B - A) microseconds in seconds.
us_diff() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e6 }'; }
sub_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
meta() { printf '%s=%q\n' "$1" "$2" >>"$META"; }
redact() { sed "s#:sluice@#:xxxxx@#g; s#password=sluice#password=xxxxx#g; s#$BENCH_SLUICE#sluice#g"; }

# Each direction has one database name on both servers (MariaDB database = PostgreSQL database =
# its schema), a source side and a target side.
db_of() { if [[ $1 == reverse ]]; then echo rev; else echo fwd; fi; }
src_of() { if [[ $1 == reverse ]]; then echo pg; else echo my; fi; }
tgt_of() { if [[ $1 == reverse ]]; then echo my; else echo pg; fi; }

# side_sql SIDE DB [SQL]: batch client of one side, without headers; SQL or else stdin.
side_sql() {
	local side=$1 db=$2
	shift 2
	if [[ $side == my ]]; then
		mt_sql mysql -D "$db" ${1:+-e "$1"}
	else
		bench_psql "$db" -At ${1:+-c "$1"}
	fi
}


rv_init() {
	[[ $EUID -eq 0 ]] || bench_die "run as root (the throwaway servers, runuser postgres)"
	BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/reverse}"
	MT_SRV_ROOT="${MT_SRV_ROOT:-$BENCH_WORK/servers}" PG_SRV_ROOT="${PG_SRV_ROOT:-$BENCH_WORK/servers}"
	mkdir -p "$BENCH_WORK/logs" "$BENCH_WORK/samples"
	BENCH_RESULTS="$BENCH_WORK/results.tsv" # unused by this script; lib.sh expects it
	LIVE_TSV="$BENCH_WORK/live.tsv" CATCHUP_TSV="$BENCH_WORK/catchup.tsv" META="$BENCH_WORK/meta.env"
	BIGTXN_TSV="$BENCH_WORK/bigtxn.tsv"
	: >"$BENCH_RESULTS"
	: >"$LIVE_TSV"
	: >"$CATCHUP_TSV"
	rm -f "$BIGTXN_TSV"
	: >"$META"
	rm -f "$BENCH_WORK"/logs/* "$BENCH_WORK"/samples/*
	BENCH_SLUICE="${BENCH_SLUICE:-$BENCH_WORK/sluice}"
	bench_require_time
	command -v sysbench >/dev/null || bench_die "sysbench is not installed (Debian package sysbench)"
	# (The help is captured first: with pipefail, grep -q closing the pipe early would fail the check.)
	local help
	help="$(sysbench --help 2>&1)"
	grep -q '^ *pgsql - ' <<<"$help" || bench_die "this sysbench has no pgsql driver"
}

# ---------------------------------------------------------------- data

prepare_data() {
	local log="$BENCH_WORK/logs/sysbench-prepare.log" t0=$SECONDS i db
	bench_log "sysbench prepare: $TABLES tables x $TABLE_SIZE rows into MariaDB rev, copied to fwd"
	mt_sql mysql -e "CREATE DATABASE rev; CREATE DATABASE fwd" || bench_die "create databases"
	sysbench oltp_common --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port mysql)" \
		--mysql-user=root --mysql-password=root --mysql-db=rev \
		--tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare >"$log" 2>&1 ||
		bench_die "sysbench prepare failed (see $log)"
	for ((i = 1; i <= TABLES; i++)); do
		mt_sql mysql -e "CREATE TABLE fwd.sbtest$i LIKE rev.sbtest$i; INSERT INTO fwd.sbtest$i SELECT * FROM rev.sbtest$i" ||
			bench_die "copy rev.sbtest$i to fwd"
	done
	for db in rev fwd; do
		mt_sql mysql -e "CREATE TABLE $db.hb (id INT PRIMARY KEY, ts BIGINT NOT NULL); INSERT INTO $db.hb VALUES (1, 0)" ||
			bench_die "heartbeat table in $db"
	done
	bench_log "data prepared in $((SECONDS - t0)) s"
}

# snapshot DIR: `sluice snapshot` of MariaDB database DB into PostgreSQL database DB (schema DB),
# untimed: it only makes the copy both streams start from.
snapshot() {
	local db log stream t0
	db="$(db_of "$1")" log="$BENCH_WORK/logs/snapshot.$1.log"
	bench_pg_recreate_db "$db" sluice || return 1
	# The forward stream continues from the snapshot's position, kept under the snapshot's stream
	# name; the reverse stream's state is in MariaDB, its copy's stream name is only a label.
	stream=fwd
	[[ $1 == reverse ]] && stream=rev_snapshot
	SNAP_ARGS=("$BENCH_SLUICE" snapshot --source "$(mt_url mysql "$db")" --target "$(pg_url "$db")"
		--include "$db.*" --stream "$stream" --log-format text)
	meta "SNAP_CMD_$1" "$(redact <<<"${SNAP_ARGS[*]}")"
	t0=$SECONDS
	"${SNAP_ARGS[@]}" >"$log" 2>&1 || {
		bench_log "sluice snapshot of $db failed (see $log)"
		return 1
	}
	meta "SNAP_SECONDS_$1" "$((SECONDS - t0))"
}

# ---------------------------------------------------------------- the streams

# tool_args DIR: sets TOOL_ARGS, the sluice replicate command of that direction.
tool_args() {
	if [[ $1 == reverse ]]; then
		TOOL_ARGS=("$BENCH_SLUICE" replicate --source "$(pg_url rev)" --target "$(mt_url mysql rev)" --stream rev)
		# No cut-over armed a slot here (the copy is a snapshot): the first run starts at the current
		# LSN on request; a build from before the flag did so unasked (reverse_ab.sh runs old builds).
		"$BENCH_SLUICE" replicate --help 2>/dev/null | grep -q -- --start-at-current-lsn && TOOL_ARGS+=(--start-at-current-lsn)
	else
		TOOL_ARGS=("$BENCH_SLUICE" replicate --source "$(mt_url mysql fwd)" --target "$(pg_url fwd)"
			--include 'fwd.*' --stream fwd)
	fi
	TOOL_ARGS+=(--log-format text)
	# shellcheck disable=SC2206
	[[ -n ${BENCH_SLUICE_ARGS:-} ]] && TOOL_ARGS+=($BENCH_SLUICE_ARGS)
}

# start_tool DIR LOG TIMEFILE: the stream in the background under GNU time.
start_tool() {
	tool_args "$1"
	/usr/bin/time -f '%e %M %U %S' -o "$3" "${TOOL_ARGS[@]}" >>"$2" 2>&1 &
	TOOL_PID=$!
}

# stop_tool: SIGINT to sluice (the child of GNU time): it commits what it received and exits.
stop_tool() {
	bench_stop_timed "${TOOL_PID:-}" INT 60
	TOOL_PID=
}


# ---------------------------------------------------------------- heartbeat, lag, load

hb_update() {
	if [[ $1 == my ]]; then
		echo "UPDATE $2.hb SET ts = ${3:-CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED)} WHERE id = 1;"
	else
		echo "UPDATE $2.hb SET ts = ${3:-(extract(epoch FROM clock_timestamp()) * 1000000)::bigint} WHERE id = 1;"
	fi
}

# start_heartbeat DIR: one client session on the source fed with an endless script, a heartbeat
# every 0.1 s (each its own transaction).
start_heartbeat() {
	local src db sleep
	src="$(src_of "$1")" db="$(db_of "$1")"
	if [[ $src == my ]]; then sleep="DO SLEEP(0.1);"; else sleep="SELECT pg_sleep(0.1);"; fi
	(yes "$(hb_update "$src" "$db") $sleep" | side_sql "$src" "$db" >/dev/null 2>&1) 2>/dev/null &
	HB_PID=$!
}

stop_heartbeat() {
	[[ -n ${HB_PID:-} ]] || return 0
	pkill_tree "$HB_PID"
	HB_PID=
}

# mark_heartbeat DIR: one heartbeat of "now" on the source (the writer stopped); prints its value.
mark_heartbeat() {
	local t
	t="$(now_us)"
	side_sql "$(src_of "$1")" "$(db_of "$1")" "$(hb_update "$(src_of "$1")" "$(db_of "$1")" "$t")" >/dev/null || return 1
	echo "$t"
}

# target_hb DIR: newest heartbeat (epoch µs) in the target, empty if none.
target_hb() {
	local tgt db
	tgt="$(tgt_of "$1")" db="$(db_of "$1")"
	if [[ $tgt == my ]]; then
		mt_sql mysql -D "$db" -e "SELECT ts FROM hb WHERE id = 1" 2>/dev/null
	else
		bench_psql "$db" -At -c "SELECT ts FROM $db.hb WHERE id = 1" 2>/dev/null
	fi
}

# wait_caught_up DIR T_US LIMIT_S: wait until the target's heartbeat is at least T_US; prints the
# epoch µs when it was seen (status 1 on timeout, or when the sluice process ended).
wait_caught_up() {
	local dir=$1 t=$2 limit=$3 start=$SECONDS hb
	while ((SECONDS - start < limit)); do
		if [[ -n ${TOOL_PID:-} ]] && ! kill -0 "$TOOL_PID" 2>/dev/null; then
			bench_log "sluice ($dir) exited while waiting for it to catch up"
			return 1
		fi
		hb="$(target_hb "$dir")"
		if [[ -n $hb && $hb -ge $t ]]; then
			now_us
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# wait_synced DIR LIMIT_S: a running stream has applied a heartbeat written after it started. The
# heartbeat is written again every 3 s: the first may come before the reverse stream has created
# its slot, and would then never arrive.
wait_synced() {
	local dir=$1 limit=$2 start=$SECONDS t
	while ((SECONDS - start < limit)); do
		t="$(mark_heartbeat "$dir")" || return 1
		wait_caught_up "$dir" "$t" 3 >/dev/null && return 0
		[[ -n ${TOOL_PID:-} ]] && ! kill -0 "$TOOL_PID" 2>/dev/null && return 1
	done
	return 1
}

# start_poller DIR FILE: every 0.25 s one line "now_us<TAB>hb_us<TAB>rows_written" from the target:
# MariaDB: Handler_write + _update + _delete of the server (sluice's state rows included);
# PostgreSQL: n_tup_ins + _upd + _del of the schema's tables (flushed by PostgreSQL about once a
# second). The rows are for the plot; lag comes from the heartbeat.
start_poller() {
	local db q
	db="$(db_of "$1")"
	if [[ $(tgt_of "$1") == my ]]; then
		q="SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED), (SELECT ts FROM $db.hb WHERE id = 1),
			(SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN
			('HANDLER_WRITE','HANDLER_UPDATE','HANDLER_DELETE')); DO SLEEP(0.25);"
		(yes "$(tr '\n' ' ' <<<"$q")" | mt_sql mysql --unbuffered >"$2" 2>/dev/null) 2>/dev/null &
	else
		q="SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, (SELECT ts FROM $db.hb WHERE id = 1),
			(SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables
			 WHERE schemaname = '$db' AND relname <> 'hb') \\watch 0.25"
		(printf '%s\n' "$q" | bench_psql "$db" -At -F $'\t' 2>/dev/null | grep --line-buffered $'\t' >"$2") 2>/dev/null &
	fi
	POLL_PID=$!
}

stop_poller() {
	[[ -n ${POLL_PID:-} ]] || return 0
	pkill_tree "$POLL_PID"
	POLL_PID=
}

# sysbench_cmd DIR WORKLOAD: sets SB_CMD (env prefix included), the load on DIR's source.
sysbench_cmd() {
	local common=(--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$THREADS" --time="$SECONDS_LOAD"
		--report-interval=1 --rand-type=uniform)
	if [[ $(src_of "$1") == pg ]]; then
		SB_CMD=(env PGOPTIONS="-c search_path=$(db_of "$1")" sysbench "$2" --db-driver=pgsql --pgsql-host=127.0.0.1
			--pgsql-port="$PG_SRV_PORT" --pgsql-user=sluice --pgsql-password=sluice --pgsql-db="$(db_of "$1")" "${common[@]}" run)
	else
		SB_CMD=(sysbench "$2" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port mysql)"
			--mysql-user=sluice --mysql-password=sluice --mysql-db="$(db_of "$1")" "${common[@]}" run)
	fi
}

# sysbench_run DIR WORKLOAD LOG: the load; prints the number of transactions.
sysbench_run() {
	sysbench_cmd "$1" "$2"
	"${SB_CMD[@]}" >"$3" 2>&1 || bench_log "sysbench $2 on $(src_of "$1") failed (see $3)"
	awk '/^ *transactions:/ { print $2 }' "$3"
}

# lag_stats SAMPLES T0 T1: "p50 p99 max" lag in seconds over the samples taken in [T0, T1] (µs).
lag_stats() {
	awk -F'\t' -v a="$2" -v b="$3" '$1 >= a && $1 <= b && $2 ~ /^[0-9]+$/ { print ($1 - $2) / 1e6 }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "- - -"; exit }
			p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
			printf "%.2f %.2f %.2f\n", (p50 < 0 ? 0 : p50), (p99 < 0 ? 0 : p99), (v[NR] < 0 ? 0 : v[NR]) }'
}

cpu_my() { mt_cpu mysql; }
cpu_pg() { bench_cpu_postgres; }

# ---------------------------------------------------------------- live

# live_run DIR WORKLOAD PASS: one line into $LIVE_TSV.
live_run() {
	local dir=$1 wl=$2 rep=$3 tag log tf sb samples t0 t1 tc n m0 p0 m1 p1 p50 p99 pmax
	tag="live.$dir.$wl.$rep"
	log="$BENCH_WORK/logs/$tag.sluice.log" tf="$BENCH_WORK/logs/$tag.time" sb="$BENCH_WORK/logs/$tag.sysbench.log"
	samples="$BENCH_WORK/samples/$tag.tsv"
	: >"$log"
	start_tool "$dir" "$log" "$tf"
	if ! wait_synced "$dir" 300; then
		bench_log "live $dir $wl: sluice did not apply a heartbeat within 300 s before the load (see $log)"
		stop_tool
		printf '%s\t%s\t%s\tfailed\n' "$dir" "$wl" "$rep" >>"$LIVE_TSV"
		return 1
	fi
	# The heartbeat runs from here on, so that the target's is fresh when the load starts (the
	# last one of wait_synced can be 3 s old).
	start_heartbeat "$dir"
	bench_wait_quiet
	start_poller "$dir" "$samples"
	m0="$(cpu_my)" p0="$(cpu_pg)"
	t0="$(now_us)"
	bench_log "live $dir $wl #$rep: ${SECONDS_LOAD}s of load"
	n="$(sysbench_run "$dir" "$wl" "$sb")"
	t1="$(now_us)"
	tc="$(wait_caught_up "$dir" "$t1" 900)" || tc=""
	m1="$(cpu_my)" p1="$(cpu_pg)"
	stop_heartbeat
	stop_poller
	stop_tool
	if [[ -z $tc || -z $n ]]; then
		bench_log "live $dir $wl #$rep: sysbench failed or not caught up within 900 s after the load (see $log, $sb)"
		printf '%s\t%s\t%s\tfailed\n' "$dir" "$wl" "$rep" >>"$LIVE_TSV"
		return 1
	fi
	read -r p50 p99 pmax < <(lag_stats "$samples" "$t0" "$tc")
	# dir wl pass txns load_s apply_s lag_p50 lag_p99 lag_max sluice_cpu mariadbd_cpu postgres_cpu rss_mb t0 t1 tc idle
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dir" "$wl" "$rep" "$n" \
		"$(us_diff "$t0" "$t1")" "$(us_diff "$t0" "$tc")" "$p50" "$p99" "$pmax" "$(tool_cpu "$tf")" \
		"$(sub_s "$m0" "$m1")" "$(sub_s "$p0" "$p1")" "$(tool_rss_mb "$tf")" "$t0" "$t1" "$tc" "${BENCH_IDLE_BEFORE:--}" >>"$LIVE_TSV"
	bench_log "live $dir $wl #$rep: $n txns; caught up $(us_diff "$t1" "$tc") s after the load; lag p50/p99/max $p50/$p99/$pmax s"
}

# ---------------------------------------------------------------- catch-up

# catchup_run DIR WORKLOAD PASS: the stream brought up to date and stopped, SECONDS_LOAD of load,
# then the stream started and timed until it has the heartbeat written when the load ended.
catchup_run() {
	local dir=$1 wl=$2 rep=$3 tag log tf sb t0 t1 tend ts tc n m0 p0 m1 p1
	tag="catchup.$dir.$wl.$rep"
	log="$BENCH_WORK/logs/$tag.sluice.log" tf="$BENCH_WORK/logs/$tag.time" sb="$BENCH_WORK/logs/$tag.sysbench.log"
	: >"$log"
	start_tool "$dir" "$BENCH_WORK/logs/$tag.sync.log" "$BENCH_WORK/logs/$tag.sync.time"
	if ! wait_synced "$dir" 600; then
		stop_tool
		bench_log "catch-up $dir $wl #$rep: sluice did not get up to date before the load (see $BENCH_WORK/logs/$tag.sync.log)"
		printf '%s\t%s\t%s\tfailed\n' "$dir" "$wl" "$rep" >>"$CATCHUP_TSV"
		return 1
	fi
	stop_tool
	bench_log "catch-up $dir $wl #$rep: ${SECONDS_LOAD}s of load, sluice stopped"
	start_heartbeat "$dir"
	t0="$(now_us)"
	n="$(sysbench_run "$dir" "$wl" "$sb")"
	t1="$(now_us)"
	stop_heartbeat
	tend="$(mark_heartbeat "$dir")" || bench_die "heartbeat on $(src_of "$dir")"
	bench_wait_quiet
	m0="$(cpu_my)" p0="$(cpu_pg)"
	ts="$(now_us)"
	start_tool "$dir" "$log" "$tf"
	tc="$(wait_caught_up "$dir" "$tend" "${BENCH_CATCHUP_LIMIT:-1800}")" || tc=""
	m1="$(cpu_my)" p1="$(cpu_pg)"
	stop_tool
	if [[ -z $tc || -z $n ]]; then
		bench_log "catch-up $dir $wl #$rep: sysbench failed or not caught up within ${BENCH_CATCHUP_LIMIT:-1800} s (see $log, $sb)"
		printf '%s\t%s\t%s\tfailed\n' "$dir" "$wl" "$rep" >>"$CATCHUP_TSV"
		return 1
	fi
	# dir wl pass txns load_s catchup_s sluice_cpu mariadbd_cpu postgres_cpu rss_mb idle
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dir" "$wl" "$rep" "$n" "$(us_diff "$t0" "$t1")" \
		"$(us_diff "$ts" "$tc")" "$(tool_cpu "$tf")" "$(sub_s "$m0" "$m1")" "$(sub_s "$p0" "$p1")" "$(tool_rss_mb "$tf")" \
		"${BENCH_IDLE_BEFORE:--}" >>"$CATCHUP_TSV"
	bench_log "catch-up $dir $wl #$rep: $n txns written in $(us_diff "$t0" "$t1") s, applied in $(us_diff "$ts" "$tc") s"
}

# bigtxn_run: one PostgreSQL transaction of about BENCH_BIGTXN_MB (1024) MB of WAL inserting rows into
# rev.sbtest1 (issue 10: "a 1 GB PostgreSQL transaction under --max-txn-memory 128MB"), then the
# reverse stream run with --max-txn-memory ${BENCH_BIGTXN_MEMORY:-128MB} --until-caught-up under GNU time:
# the transaction's WAL bytes, seconds, sluice's peak RSS, and whether MariaDB holds every row.
bigtxn_run() {
	local log tf mb mem rows l0 l1 wal t0 t1 got
	log="$BENCH_WORK/logs/bigtxn.sluice.log" tf="$BENCH_WORK/logs/bigtxn.time"
	mb="${BENCH_BIGTXN_MB:-1024}" mem="${BENCH_BIGTXN_MEMORY:-128MB}"
	# About 256 bytes of WAL per sysbench row (tuple, header, record); the WAL size is measured.
	rows=$((mb * 1048576 / 256))
	start_tool reverse "$BENCH_WORK/logs/bigtxn.sync.log" "$BENCH_WORK/logs/bigtxn.sync.time"
	if ! wait_synced reverse 600; then
		stop_tool
		bench_log "big transaction: the reverse stream did not get up to date (see $BENCH_WORK/logs/bigtxn.sync.log)"
		printf 'failed\n' >"$BIGTXN_TSV"
		return 1
	fi
	stop_tool
	bench_log "big transaction: inserting $rows rows into rev.sbtest1 in one PostgreSQL transaction"
	l0="$(bench_psql rev -At -c 'SELECT pg_current_wal_lsn()')"
	bench_psql rev -q -c "INSERT INTO rev.sbtest1 (id, k, c, pad) SELECT 100000000 + i, i % 100000,
		lpad(i::text, 119, 'c'), lpad(i::text, 59, 'p') FROM generate_series(1, $rows) i" >>"$log" 2>&1 ||
		bench_die "big transaction: the INSERT on PostgreSQL failed (see $log)"
	l1="$(bench_psql rev -At -c 'SELECT pg_current_wal_lsn()')"
	wal="$(bench_psql rev -At -c "SELECT pg_wal_lsn_diff('$l1', '$l0')")"
	bench_wait_quiet
	tool_args reverse
	t0="$(now_us)"
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "${TOOL_ARGS[@]}" --max-txn-memory "$mem" --until-caught-up >>"$log" 2>&1 ||
		bench_log "big transaction: sluice exited non-zero (see $log)"
	t1="$(now_us)"
	got="$(mt_sql mysql -e "SELECT COUNT(*) FROM rev.sbtest1 WHERE id > 100000000")"
	# rows wal_bytes seconds rss_mb cpu_s rows_in_mariadb memory
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$rows" "$wal" "$(us_diff "$t0" "$t1")" "$(tool_rss_mb "$tf")" \
		"$(tool_cpu "$tf")" "$got" "$mem" >"$BIGTXN_TSV"
	bench_log "big transaction: $rows rows ($((wal / 1048576)) MB of WAL) applied in $(us_diff "$t0" "$t1") s, peak RSS $(tool_rss_mb "$tf") MB, $got rows in MariaDB"
}

# ---------------------------------------------------------------- correctness

# check_equal DIR: every table of MariaDB database DB (the sysbench tables and hb) has the same row
# count and content hash in PostgreSQL's DB.DB; differences go to stderr.
check_equal() {
	local db rc=0 t cols n m h g
	db="$(db_of "$1")"
	for t in $(mt_sql mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$db' AND table_type='BASE TABLE' ORDER BY 1"); do
		cols="$(mt_sql mysql -e "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema='$db' AND table_name='$t'")"
		n="$(mt_sql mysql -e "SELECT COUNT(*) FROM $db.\`$t\`")"
		m="$(bench_psql "$db" -At -c "SELECT count(*) FROM $db.\"$t\"" 2>/dev/null)" || m=missing
		h="$(bench_hash_my "$db" "$t" "$cols")"
		g="$(bench_hash_pg "$db" "$db" "$t" "$cols" 2>/dev/null)" || g=missing
		if [[ $n != "$m" || $h != "$g" ]]; then
			bench_log "$1: MariaDB $db.$t ($n rows, hash $h) differs from PostgreSQL's ($m rows, hash $g)"
			rc=1
		fi
	done
	return $rc
}

# final_check DIR: the stream brought up to date once more (a heartbeat of the live part may have
# been written after its stop), then the comparison; the result goes into meta.env.
final_check() {
	local dir=$1 log="$BENCH_WORK/logs/final.$1.sluice.log" ok=NO
	start_tool "$dir" "$log" "$BENCH_WORK/logs/final.$dir.time"
	wait_synced "$dir" 600 || bench_log "$dir: sluice did not get up to date for the final check (see $log)"
	stop_tool
	check_equal "$dir" && ok=yes
	meta "CORRECT_$dir" "$ok"
	bench_log "$dir: MariaDB and PostgreSQL equal afterwards (row counts, content hashes): $ok"
}

# ---------------------------------------------------------------- main

cleanup() {
	stop_poller
	stop_heartbeat
	[[ -n ${TOOL_PID:-} ]] && pkill_tree "$TOOL_PID"
	pg_server_stop
	mt_servers_stop_all
}

# ordered_dirs PASS: the directions, reversed in even passes so that neither always runs second.
ordered_dirs() {
	# shellcheck disable=SC2086 # a list of words
	if (($1 % 2 == 1)); then printf '%s\n' $DIRECTIONS; else printf '%s\n' $DIRECTIONS | tac; fi
}

main() {
	if [[ -n ${BENCH_REPORT_ONLY:-} ]]; then
		exec bash "$BENCH_DIR/reverse_report.sh" "${BENCH_WORK:-/tmp/sluice-bench/reverse}"
	fi
	rv_init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	local t_start=$SECONDS dir wl rep
	mt_server_start mysql 1 || bench_die "cannot start the MariaDB server"
	BENCH_MY_HOST=127.0.0.1 BENCH_MY_PORT="$(mt_port mysql)" BENCH_MY_PIDFILE="$MT_SRV_ROOT/mysql/server.pid"
	pg_server_start || bench_die "cannot start the PostgreSQL server"
	bench_build_sluice || bench_die "cannot build sluice (see $BENCH_WORK/logs/go-build.log)"
	prepare_data
	for dir in reverse forward; do
		bench_log "sluice snapshot of $(db_of "$dir") into PostgreSQL (untimed)"
		snapshot "$dir" || bench_die "snapshot of $(db_of "$dir") failed"
	done
	meta RUN_START "$(date -u '+%Y-%m-%d %H:%M UTC')"
	meta LOADAVG "$(cut -d' ' -f1-3 /proc/loadavg)"
	meta SLUICE_COMMIT "${BENCH_SLUICE_COMMIT:-}"
	meta SLUICE_VERSION "$("$BENCH_SLUICE" version 2>/dev/null | head -n1)"
	meta MARIADB_VERSION "$(mt_sql mysql -e 'SELECT VERSION()')"
	meta PG_VERSION "$(bench_psql postgres -At -c 'SHOW server_version')"
	meta PG_SYNCHRONOUS_COMMIT "$(bench_psql postgres -At -c 'SHOW synchronous_commit')"
	meta PG_CGROUP "${BENCH_PG_CGROUP:-}"
	meta SYSBENCH_VERSION "$(sysbench --version)"
	meta TABLES "$TABLES"
	meta TABLE_SIZE "$TABLE_SIZE"
	meta THREADS "$THREADS"
	meta SECONDS_LOAD "$SECONDS_LOAD"
	meta REPS "$BENCH_REPS"
	meta DATA_ROWS "$(bench_my_total rev rows)"
	meta DATA_BYTES "$(bench_my_total rev bytes)"
	for dir in reverse forward; do
		tool_args "$dir"
		meta "CMD_$dir" "$(redact <<<"${TOOL_ARGS[*]}")"
		sysbench_cmd "$dir" WORKLOAD
		meta "SB_$dir" "$(redact <<<"${SB_CMD[*]}" | sed "s/^env PGOPTIONS=\(-c [^ ]*\) /PGOPTIONS='\1' /")"
	done
	if part live; then
		for ((rep = 1; rep <= BENCH_REPS; rep++)); do
			for wl in $WORKLOADS; do
				for dir in $(ordered_dirs "$rep"); do live_run "$dir" "$wl" "$rep"; done
			done
		done
	fi
	if part catchup; then
		for ((rep = 1; rep <= BENCH_REPS; rep++)); do
			for wl in $WORKLOADS; do
				for dir in $(ordered_dirs "$rep"); do catchup_run "$dir" "$wl" "$rep"; done
			done
		done
	fi
	part bigtxn && bigtxn_run
	for dir in $DIRECTIONS; do final_check "$dir"; done
	meta RUN_END "$(date -u '+%H:%M UTC')"
	meta RUN_MINUTES "$(((SECONDS - t_start + 30) / 60))"
	cleanup
	trap - EXIT
	bash "$BENCH_DIR/reverse_report.sh" "$BENCH_WORK"
}

[[ ${BASH_SOURCE[0]} == "$0" ]] && main "$@"
