#!/usr/bin/env bash
# bench/mysql_target.sh: MySQL/MariaDB as sluice's target (issue 9, item 5). Three parts, each on
# throwaway MariaDB servers this script starts and stops itself (bench/mysql_target_servers.sh:
# a source, the sluice target with MyRocks loaded, and for the catch-up a native replica with the
# target's settings); the sandbox's servers are not used.
#
#   snapshot  snapshot MB/s into MariaDB: `sluice snapshot --target mysql://…` vs
#             `mariadb-dump --single-transaction | mariadb` of the same database, per target
#             engine (InnoDB, ROCKSDB: the pipe rewrites ENGINE= of the dump's CREATE TABLEs),
#             BENCH_REPS runs interleaved; each copy is compared with the source (count + hash).
#   live      sluice replicate running while sysbench (oltp_insert, oltp_write_only; 8 threads,
#             60 s) writes the source, into an InnoDB and then a ROCKSDB copy: source tps, applied
#             tps, applied/source, lag p50/p99/max (a heartbeat row written on the source every
#             0.1 s, polled in the target every 0.25 s), CPU of sluice and both servers.
#   catchup   sluice and MariaDB's own parallel replication (slave_parallel_threads=4,
#             slave_parallel_mode=optimistic; a replica positioned at a GTID by a consistent
#             `mariadb-dump --gtid --master-data`) both stopped, 60 s of load, then each applies
#             that same backlog, one after the other (the order alternates per pass): seconds to
#             apply, and the ratio native / sluice.
#
# Results: the "## mysql target" section of docs/benchmarks.md and docs/benchmarks-mysql-target.png
# (bench/mysql_target_report.sh, which BENCH_REPORT_ONLY=1 re-runs on the last work dir).
#
# Knobs: BENCH_PARTS ("snapshot live catchup"), BENCH_TOOLS ("sluice native": native = the
# mariadb-dump pipe and MariaDB replication), BENCH_TABLES (8), BENCH_TABLE_SIZE (100000),
# BENCH_THREADS (8), BENCH_SECONDS (60), BENCH_WORKLOADS ("oltp_insert oltp_write_only", live),
# BENCH_CATCHUP_WORKLOADS (the same, catch-up), BENCH_LIVE_ENGINES ("InnoDB ROCKSDB"),
# BENCH_SNAPSHOT_ENGINES ("InnoDB ROCKSDB"), BENCH_REPS (3 snapshot runs per tool and engine),
# BENCH_CATCHUP_REPS (1), BENCH_NATIVE_CNF (extra my.cnf lines for the replica, ";"-separated),
# BENCH_SLUICE_ARGS (extra flags for sluice replicate), BENCH_WORK (/tmp/sluice-bench/mysql-target),
# BENCH_NO_DOC=1 (print the section, leave docs/ alone), BENCH_KEEP_SERVERS=1, and lib.sh's
# BENCH_SLUICE, BENCH_SLUICE_FROM, BENCH_QUIET_MAX, BENCH_QUIET_IDLE.
# A short trial: BENCH_SECONDS=10 BENCH_TABLES=2 BENCH_TABLE_SIZE=10000 BENCH_REPS=1 BENCH_NO_DOC=1.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-}"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
# shellcheck source=bench/mysql_target_servers.sh
source "$BENCH_DIR/mysql_target_servers.sh"

BENCH_REPS="${USER_REPS:-3}"
PARTS="${BENCH_PARTS:-snapshot live catchup}"
TOOLS="${BENCH_TOOLS:-sluice native}"
TABLES="${BENCH_TABLES:-8}"
TABLE_SIZE="${BENCH_TABLE_SIZE:-100000}"
THREADS="${BENCH_THREADS:-8}"
SECONDS_LOAD="${BENCH_SECONDS:-60}"
WORKLOADS="${BENCH_WORKLOADS:-oltp_insert oltp_write_only}"
CATCHUP_WORKLOADS="${BENCH_CATCHUP_WORKLOADS:-oltp_insert oltp_write_only}"
LIVE_ENGINES="${BENCH_LIVE_ENGINES:-InnoDB ROCKSDB}"
SNAPSHOT_ENGINES="${BENCH_SNAPSHOT_ENGINES:-InnoDB ROCKSDB}"
CATCHUP_REPS="${BENCH_CATCHUP_REPS:-1}"
SRC_DB=sbtest
NATIVE_DB=sbtest # the native replica keeps the source's database name

now_us() { date +%s%6N; }
lc() { tr '[:upper:]' '[:lower:]' <<<"$1"; }
uses() { [[ " $TOOLS " == *" $1 "* ]]; }
part() { [[ " $PARTS " == *" $1 "* ]]; }
# us_diff A B: (B - A) microseconds in seconds.
us_diff() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e6 }'; }
sub_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }


mt_init() {
	[[ $EUID -eq 0 ]] || bench_die "run as root (mariadbd runs as root here, installs use apt-get)"
	BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/mysql-target}"
	MT_SRV_ROOT="${MT_SRV_ROOT:-$BENCH_WORK/servers}"
	mkdir -p "$BENCH_WORK/logs" "$BENCH_WORK/samples"
	BENCH_RESULTS="$BENCH_WORK/results.tsv"
	LIVE_TSV="$BENCH_WORK/live.tsv" CATCHUP_TSV="$BENCH_WORK/catchup.tsv" META="$BENCH_WORK/meta.env"
	: >"$BENCH_RESULTS"
	: >"$LIVE_TSV"
	: >"$CATCHUP_TSV"
	: >"$META"
	rm -f "$BENCH_WORK"/logs/* "$BENCH_WORK"/samples/*
	BENCH_SLUICE="${BENCH_SLUICE:-$BENCH_WORK/sluice}"
	bench_require_time
	command -v sysbench >/dev/null || bench_die "sysbench is not installed (Debian package sysbench)"
	command -v mariadb-dump >/dev/null || bench_die "mariadb-dump is not installed (Debian package mariadb-client)"
	[[ -e $MT_ROCKSDB_PLUGIN ]] || [[ " $LIVE_ENGINES $SNAPSHOT_ENGINES " != *" ROCKSDB "* ]] ||
		bench_die "ROCKSDB needs MyRocks: apt-get install mariadb-plugin-rocksdb (or BENCH_LIVE_ENGINES=InnoDB BENCH_SNAPSHOT_ENGINES=InnoDB)"
}

# meta KEY VALUE: one line of $META, read by the report (values printf %q-quoted).
meta() { printf '%s=%q\n' "$1" "$2" >>"$META"; }

# ---------------------------------------------------------------- sluice

# sluice_usable: the binary builds and writes a MySQL target (a build from before the MySQL sink
# refuses one with "not supported by this command yet"; its side is then left out and said so).
sluice_usable() {
	uses sluice || return 1
	bench_build_sluice || {
		bench_log "cannot build sluice: its side is not measured"
		SLUICE_SKIPPED="the build of sluice failed (see $BENCH_WORK/logs/go-build.log)"
		return 1
	}
	local out
	mt_sql target -e "CREATE DATABASE IF NOT EXISTS mt_probe"
	out="$("$BENCH_SLUICE" snapshot --dry-run --source "$(mt_url source "$SRC_DB")" --target "$(mt_url target mt_probe)" \
		--stream mt_probe --log-format text 2>&1)"
	mt_sql target -e "DROP DATABASE IF EXISTS mt_probe"
	if grep -q 'not supported by this command yet' <<<"$out"; then
		bench_log "this sluice ($BENCH_SLUICE_COMMIT) cannot write a MySQL target yet: its side is not measured"
		SLUICE_SKIPPED="sluice $BENCH_SLUICE_COMMIT refuses a MySQL target (no MySQL sink in this build)"
		return 1
	fi
	return 0
}

# snapshot_args DB ENGINE STREAM: sets SNAP_ARGS, the sluice snapshot command copying the source
# database into the target's DB with tables of ENGINE.
snapshot_args() {
	SNAP_ARGS=("$BENCH_SLUICE" snapshot --source "$(mt_url source "$SRC_DB")" --target "$(mt_url target "$1")"
		--target-engine "$2" --stream "$3" --log-format text)
}

# sluice_snapshot DB ENGINE STREAM LOG: (re)create DB on the target and copy the source into it.
sluice_snapshot() {
	local db=$1 engine=$2 stream=$3 log=$4
	mt_sql target -e "DROP DATABASE IF EXISTS \`$db\`; CREATE DATABASE \`$db\`" || return 1
	snapshot_args "$db" "$engine" "$stream"
	"${SNAP_ARGS[@]}" >"$log" 2>&1
}

# redact: passwords out of command lines shown in the report.
redact() { sed "s#:sluice@#:xxxxx@#g; s#-proot#-pxxxxx#g; s#$BENCH_SLUICE#sluice#g"; }

# start_sluice DB ENGINE STREAM LOG TIMEFILE: sluice replicate in the background under GNU time.
start_sluice() {
	local db=$1 engine=$2 stream=$3 log=$4 tf=$5 extra=()
	bench_have_flag replicate target-engine && extra+=(--target-engine "$engine")
	# shellcheck disable=SC2086
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "$BENCH_SLUICE" replicate \
		--source "$(mt_url source "$SRC_DB")" --target "$(mt_url target "$db")" \
		--stream "$stream" "${extra[@]}" --log-format text ${BENCH_SLUICE_ARGS:-} >>"$log" 2>&1 &
	TOOL_PID=$!
}

# stop_sluice: SIGINT to sluice (the child of GNU time): it commits what it received and exits.
stop_sluice() {
	bench_stop_timed "${TOOL_PID:-}" INT 60
	TOOL_PID=
}


# ---------------------------------------------------------------- source data and heartbeat

prepare_source() {
	local log="$BENCH_WORK/logs/sysbench-prepare.log" t0=$SECONDS
	bench_log "sysbench prepare: $TABLES tables x $TABLE_SIZE rows"
	mt_sql source -e "CREATE DATABASE $SRC_DB" || bench_die "create $SRC_DB"
	sysbench oltp_common --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port source)" \
		--mysql-user=root --mysql-password=root --mysql-db="$SRC_DB" \
		--tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare >"$log" 2>&1 ||
		bench_die "sysbench prepare failed (see $log)"
	bench_log "sysbench prepare took $((SECONDS - t0)) s"
	mt_sql source -e "CREATE TABLE $SRC_DB.hb (id INT PRIMARY KEY, ts BIGINT NOT NULL);
		INSERT INTO $SRC_DB.hb VALUES (1, CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED))" ||
		bench_die "heartbeat table"
}

# The heartbeat writer: one client session fed with an endless script (no process per write).
start_heartbeat() {
	(yes "UPDATE $SRC_DB.hb SET ts = CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED) WHERE id = 1; DO SLEEP(0.1);" |
		mt_sql source >/dev/null 2>&1) 2>/dev/null &
	HB_PID=$!
}

stop_heartbeat() {
	[[ -n ${HB_PID:-} ]] || return 0
	pkill_tree "$HB_PID"
	HB_PID=
}

# mark_heartbeat: one heartbeat of "now" (the writer stopped); prints its value.
mark_heartbeat() {
	local t
	t="$(now_us)"
	mt_sql source -e "UPDATE $SRC_DB.hb SET ts = $t WHERE id = 1" || return 1
	echo "$t"
}

# target_hb SERVER DB: newest heartbeat (epoch µs) in that copy, empty if none.
target_hb() { mt_sql "$1" -e "SELECT ts FROM \`$2\`.hb WHERE id = 1" 2>/dev/null; }

# wait_caught_up SERVER DB T_US LIMIT_S: wait until the copy's heartbeat is at least T_US; prints
# the epoch µs when it was seen (status 1 on timeout, or when the sluice process ended).
wait_caught_up() {
	local srv=$1 db=$2 t=$3 limit=$4 start=$SECONDS hb next_check=$((SECONDS + 2))
	while ((SECONDS - start < limit)); do
		if [[ -n ${TOOL_PID:-} ]] && ! kill -0 "$TOOL_PID" 2>/dev/null; then
			bench_log "sluice exited while waiting for it to catch up"
			return 1
		fi
		# A replica whose SQL or IO thread stopped on an error would never catch up.
		if [[ $srv == replica ]] && ((SECONDS >= next_check)); then
			next_check=$((SECONDS + 5))
			if mt_sql replica --column-names -e "SHOW SLAVE STATUS\G" 2>/dev/null | grep -q 'Slave_\(SQL\|IO\)_Running: No'; then
				bench_log "the native replica stopped: $(mt_sql replica --column-names -e "SHOW SLAVE STATUS\G" 2>/dev/null | grep -m2 'Last_.*Error: .')"
				return 1
			fi
		fi
		hb="$(target_hb "$srv" "$db")"
		if [[ -n $hb && $hb -ge $t ]]; then
			now_us
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# start_poller SERVER DB FILE: every 0.25 s one line "now_us hb_us rows_written" (tab-separated)
# into FILE; rows_written = Handler_write + Handler_update + Handler_delete of the server: rows
# written to tables of any engine (MariaDB 10.11 has no Innodb_rows_* any more, and counts internal
# temporary tables apart, in Handler_tmp_*), sluice's own state rows included.
start_poller() {
	local q="SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED), (SELECT ts FROM \`$2\`.hb WHERE id = 1),
		(SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN
		('HANDLER_WRITE','HANDLER_UPDATE','HANDLER_DELETE')); DO SLEEP(0.25);"
	# --unbuffered: every result reaches the file at once, so it is complete whenever killed.
	(yes "$(tr '\n' ' ' <<<"$q")" | mt_sql "$1" --unbuffered >"$3" 2>/dev/null) 2>/dev/null &
	POLL_PID=$!
}

stop_poller() {
	[[ -n ${POLL_PID:-} ]] || return 0
	pkill_tree "$POLL_PID"
	POLL_PID=
}

# sysbench_run WORKLOAD LOG: the load on the source; prints the number of transactions.
sysbench_run() {
	sysbench "$1" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port source)" \
		--mysql-user=root --mysql-password=root --mysql-db="$SRC_DB" --tables="$TABLES" --table-size="$TABLE_SIZE" \
		--threads="$THREADS" --time="$SECONDS_LOAD" --report-interval=1 --rand-type=uniform run >"$2" 2>&1 ||
		bench_log "sysbench $1 failed (see $2)"
	awk '/^ *transactions:/ { print $2 }' "$2"
}

# lag_stats SAMPLES T0 T1: "p50 p99 max" lag in seconds over the samples taken in [T0, T1] (µs).
lag_stats() {
	awk -F'\t' -v a="$2" -v b="$3" '$1 >= a && $1 <= b && $2 ~ /^[0-9]+$/ { print ($1 - $2) / 1e6 }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "- - -"; exit }
			p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
			printf "%.2f %.2f %.2f\n", (p50 < 0 ? 0 : p50), (p99 < 0 ? 0 : p99), (v[NR] < 0 ? 0 : v[NR]) }'
}

# check_equal SERVER DB: every table of the source database has the same row count and content
# hash in SERVER's DB. Differences go to stderr. The heartbeat table is the probe, not the data:
# it moves on while a stopped copy does not.
check_equal() {
	local srv=$1 db=$2 rc=0 t cols n m h g
	for t in $(mt_sql source -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$SRC_DB' AND table_type='BASE TABLE' AND table_name <> 'hb' ORDER BY 1"); do
		cols="$(mt_sql source -e "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema='$SRC_DB' AND table_name='$t'")"
		n="$(mt_sql source -e "SELECT COUNT(*) FROM $SRC_DB.\`$t\`")"
		m="$(mt_sql "$srv" -e "SELECT COUNT(*) FROM \`$db\`.\`$t\`" 2>/dev/null)" || m=missing
		h="$(mt_hash source "$SRC_DB" "$t" "$cols")"
		g="$(mt_hash "$srv" "$db" "$t" "$cols" 2>/dev/null)" || g=missing
		if [[ $n != "$m" || $h != "$g" ]]; then
			bench_log "$srv $db.$t differs from the source: $m rows (source $n), hash $g (source $h)"
			rc=1
		fi
	done
	return $rc
}

# ---------------------------------------------------------------- (c) snapshot

# mt_measure LABEL REP LOG TARGET_SERVER -- CMD...: bench_measure for these servers: one line of
# $BENCH_RESULTS "label rep rc wall_s peak_rss_kb tool_cpu_s source_cpu_s target_cpu_s idle_pct".
mt_measure() {
	local label=$1 rep=$2 log=$3 tgt=$4
	shift 4
	[[ ${1:-} == -- ]] && shift
	local tf s0 t0 s1 t1 rc=0 wall rss usr sys
	tf="$(mktemp)"
	s0="$(mt_cpu source)" t0="$(mt_cpu "$tgt")"
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" >"$log" 2>&1 || rc=$?
	s1="$(mt_cpu source)" t1="$(mt_cpu "$tgt")"
	read -r wall rss usr sys < <(tail -n1 "$tf")
	rm -f "$tf"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$rc" "$wall" "$rss" \
		"$(awk -v u="$usr" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')" "$(sub_s "$s0" "$s1")" "$(sub_s "$t0" "$t1")" \
		"${BENCH_IDLE_BEFORE:--}" >>"$BENCH_RESULTS"
	BENCH_IDLE_BEFORE=-
	bench_log "$label #$rep: exit $rc, ${wall}s (log $log)"
	return $rc
}

# The pipe: the dump client's defaults (extended INSERTs, keys disabled around the rows) into the
# mariadb client; for another engine sed rewrites ENGINE= on the CREATE TABLE lines only.
pipe_cmd() {
	local db=$1 engine=$2 rewrite=""
	[[ $(lc "$engine") != innodb ]] && rewrite=" | sed '/^) ENGINE=/s/ENGINE=InnoDB/ENGINE=$engine/'"
	echo "set -o pipefail; mariadb-dump --no-defaults -h127.0.0.1 -P$(mt_port source) -uroot -proot --single-transaction $SRC_DB$rewrite | mariadb --no-defaults -h127.0.0.1 -P$(mt_port target) -uroot -proot $db"
}

snapshot_part() {
	local rep engine e tool db log label
	bench_log "source size for the snapshot part"
	mt_table_stats source "$SRC_DB" >"$BENCH_WORK/snapshot-source.txt" || bench_die "source table stats"
	meta SNAP_ROWS "$(awk '{ s += $2 } END { print s + 0 }' "$BENCH_WORK/snapshot-source.txt")"
	meta SNAP_BYTES "$(awk '{ s += $3 } END { print s + 0 }' "$BENCH_WORK/snapshot-source.txt")"
	snapshot_args DB ENGINE STREAM
	meta SNAP_SLUICE_CMD "$(redact <<<"${SNAP_ARGS[*]}")"
	meta SNAP_PIPE_CMD "$(pipe_cmd DB ROCKSDB | sed 's/^set -o pipefail; //' | redact)"
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for engine in $SNAPSHOT_ENGINES; do
			e="$(lc "$engine")"
			for tool in sluice pipe; do
				[[ $tool == sluice && -z ${SLUICE_OK:-} ]] && continue
				[[ $tool == pipe ]] && ! uses native && continue
				db="snap_${tool}_$e" label="snapshot.$tool.$e" log="$BENCH_WORK/logs/snapshot.$tool.$e.$rep.log"
				mt_sql target -e "DROP DATABASE IF EXISTS \`$db\`; CREATE DATABASE \`$db\`" || bench_die "create $db"
				bench_wait_quiet
				if [[ $tool == sluice ]]; then
					snapshot_args "$db" "$engine" "snap_${e}_$rep"
					mt_measure "$label" "$rep" "$log" target -- "${SNAP_ARGS[@]}"
				else
					mt_measure "$label" "$rep" "$log" target -- bash -c "$(pipe_cmd "$db" "$engine")"
				fi || continue
				if [[ $(lc "$(mt_sql target -e "SELECT GROUP_CONCAT(DISTINCT engine) FROM information_schema.tables WHERE table_schema='$db'")") != "$e" ]] ||
					! check_equal target "$db"; then
					bench_log "$label #$rep: the copy is not the source's (engine or content); not counted"
					bench_mark_failed "$label" "$rep"
				fi
				mt_sql target -e "DROP DATABASE \`$db\`"
			done
		done
	done
}

# ---------------------------------------------------------------- (a) live

# live_run ENGINE WORKLOAD: one live run into the ENGINE copy; one line into $LIVE_TSV.
live_run() {
	local engine=$1 wl=$2 e db tag log tf sb samples t0 t1 tc n s0 g0 s1 g1 p50 p99 pmax
	e="$(lc "$engine")" db="live_$(lc "$engine")" tag="live.$(lc "$engine").$wl"
	log="$BENCH_WORK/logs/$tag.sluice.log" tf="$BENCH_WORK/logs/$tag.time" sb="$BENCH_WORK/logs/$tag.sysbench.log"
	samples="$BENCH_WORK/samples/$tag.tsv"
	: >"$log"
	start_sluice "$db" "$engine" "live_$e" "$log" "$tf"
	if ! wait_caught_up target "$db" "$(now_us)" 300 >/dev/null; then
		bench_log "sluice did not reach the source within 300 s before $wl (see $log)"
		stop_sluice
		printf '%s\t%s\tfailed\n' "$engine" "$wl" >>"$LIVE_TSV"
		return 1
	fi
	start_poller target "$db" "$samples"
	s0="$(mt_cpu source)" g0="$(mt_cpu target)"
	t0="$(now_us)"
	bench_log "live $engine $wl: ${SECONDS_LOAD}s of load"
	n="$(sysbench_run "$wl" "$sb")"
	t1="$(now_us)"
	tc="$(wait_caught_up target "$db" "$t1" 900)" || tc=""
	s1="$(mt_cpu source)" g1="$(mt_cpu target)"
	stop_poller
	stop_sluice
	if [[ -z $tc || -z $n ]]; then
		bench_log "live $engine $wl: not caught up within 900 s after the load (see $log)"
		printf '%s\t%s\tfailed\n' "$engine" "$wl" >>"$LIVE_TSV"
		return 1
	fi
	read -r p50 p99 pmax < <(lag_stats "$samples" "$t0" "$tc")
	# engine wl txns load_s apply_s lag_p50 lag_p99 lag_max sluice_cpu source_cpu target_cpu rss_mb t0 t1 tc
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$engine" "$wl" "$n" \
		"$(us_diff "$t0" "$t1")" "$(us_diff "$t0" "$tc")" "$p50" "$p99" "$pmax" "$(tool_cpu "$tf")" \
		"$(sub_s "$s0" "$s1")" "$(sub_s "$g0" "$g1")" "$(tool_rss_mb "$tf")" "$t0" "$t1" "$tc" >>"$LIVE_TSV"
	bench_log "live $engine $wl: $n txns; caught up $(us_diff "$t1" "$tc") s after the load; lag p50/p99/max $p50/$p99/$pmax s"
}

live_part() {
	[[ -n ${SLUICE_OK:-} ]] || {
		bench_log "live: needs sluice; skipped"
		return 0
	}
	local engine e wl
	meta LIVE_CMD "$(redact <<<"sluice replicate --source $(mt_url source "$SRC_DB") --target $(mt_url target live_ENGINE) --stream live_ENGINE --target-engine ENGINE${BENCH_SLUICE_ARGS:+ $BENCH_SLUICE_ARGS}")"
	start_heartbeat
	for engine in $LIVE_ENGINES; do
		e="$(lc "$engine")"
		bench_log "live $engine: sluice snapshot into live_$e (untimed)"
		if ! sluice_snapshot "live_$e" "$engine" "live_$e" "$BENCH_WORK/logs/live.$e.snapshot.log"; then
			bench_log "sluice snapshot into live_$e failed (see $BENCH_WORK/logs/live.$e.snapshot.log)"
			for wl in $WORKLOADS; do printf '%s\t%s\tfailed\n' "$engine" "$wl" >>"$LIVE_TSV"; done
			continue
		fi
		for wl in $WORKLOADS; do live_run "$engine" "$wl"; done
		if check_equal target "live_$e"; then meta "LIVE_CORRECT_$e" yes; else meta "LIVE_CORRECT_$e" NO; fi
		mt_sql target -e "DROP DATABASE \`live_$e\`" # the next engine's runs get the buffer pool
	done
	stop_heartbeat
}

# ---------------------------------------------------------------- (b) catch-up

# native_position: the replica loads a consistent dump of the source that sets gtid_slave_pos
# (--gtid --master-data), without writing its own binlog (sql_log_bin=0: its GTIDs would be out
# of order with the primary's under gtid_strict_mode), then replicates from that GTID.
native_position() {
	local log="$BENCH_WORK/logs/catchup.native.position.log"
	bench_log "native replica: consistent dump of the source at a GTID, loaded (untimed)"
	{
		mariadb-dump --no-defaults -h127.0.0.1 -P"$(mt_port source)" -uroot -proot --single-transaction \
			--gtid --master-data=1 --databases "$SRC_DB" | mt_sql replica --init-command='SET sql_log_bin=0'
	} >"$log" 2>&1 || return 1
	mt_sql replica -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$(mt_port source),
		MASTER_USER='root', MASTER_PASSWORD='root', MASTER_USE_GTID=slave_pos" >>"$log" 2>&1 || return 1
	meta NATIVE_GTID_START "$(mt_sql replica -e 'SELECT @@gtid_slave_pos')"
}

# The two appliers of the catch-up: sluice into the target's database catchup, and the native
# replica into its copy of the source database.
applier_server() { if [[ $1 == sluice ]]; then echo target; else echo replica; fi; }
applier_db() { if [[ $1 == sluice ]]; then echo catchup; else echo "$NATIVE_DB"; fi; }

# applier_start TOOL LOG TIMEFILE / applier_stop TOOL
applier_start() {
	if [[ $1 == sluice ]]; then
		start_sluice catchup InnoDB catchup "$2" "$3"
	else
		mt_sql replica -e "START SLAVE" >>"$2" 2>&1
	fi
}

applier_stop() {
	if [[ $1 == sluice ]]; then
		stop_sluice
	else
		mt_sql replica -e "STOP SLAVE" >>"$2" 2>&1
		mt_sql replica --column-names -e "SHOW SLAVE STATUS\G" >>"$2" 2>&1
	fi
}

# catchup_apply TOOL WL REP T_END TXNS LOAD_S: start TOOL on the backlog, time it until it has the
# heartbeat T_END, stop it; one line into $CATCHUP_TSV.
catchup_apply() {
	local tool=$1 wl=$2 rep=$3 tend=$4 n=$5 load=$6 tag="catchup.$1.$2.$3"
	local log="$BENCH_WORK/logs/$tag.log" tf="$BENCH_WORK/logs/$tag.time" ts tc s0 s1 g0 g1 srv cpu=-
	: >"$log"
	srv="$(applier_server "$tool")"
	bench_wait_quiet
	s0="$(mt_cpu source)" g0="$(mt_cpu "$srv")"
	ts="$(now_us)"
	applier_start "$tool" "$log" "$tf"
	tc="$(wait_caught_up "$srv" "$(applier_db "$tool")" "$tend" "${BENCH_CATCHUP_LIMIT:-1800}")" || tc=""
	s1="$(mt_cpu source)" g1="$(mt_cpu "$srv")"
	applier_stop "$tool" "$log"
	[[ $tool == sluice ]] && cpu="$(tool_cpu "$tf")"
	if [[ -z $tc ]]; then
		bench_log "catch-up $tool $wl #$rep: not caught up within ${BENCH_CATCHUP_LIMIT:-1800} s (see $log)"
		printf '%s\t%s\t%s\tfailed\n' "$tool" "$wl" "$rep" >>"$CATCHUP_TSV"
		return 1
	fi
	# tool wl rep txns load_s catchup_s tool_cpu source_cpu target_cpu
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "$wl" "$rep" "$n" "$load" "$(us_diff "$ts" "$tc")" "$cpu" \
		"$(sub_s "$s0" "$s1")" "$(sub_s "$g0" "$g1")" >>"$CATCHUP_TSV"
	bench_log "catch-up $tool $wl #$rep: $n txns written in ${load}s, applied in $(us_diff "$ts" "$tc") s"
}

# catchup_setup TOOL: TOOL's copy made and caught up with the source's present, TOOL stopped.
catchup_setup() {
	local tool=$1 log="$BENCH_WORK/logs/catchup.$1.setup.log" tend
	if [[ $tool == sluice ]]; then
		bench_log "catch-up: sluice snapshot into catchup (untimed)"
		sluice_snapshot catchup InnoDB catchup "$log" || return 1
		meta CATCHUP_SLUICE_CMD "$(redact <<<"sluice replicate --source $(mt_url source "$SRC_DB") --target $(mt_url target catchup) --stream catchup --target-engine InnoDB${BENCH_SLUICE_ARGS:+ $BENCH_SLUICE_ARGS}")"
	else
		# The replica: the target's settings plus MariaDB's parallel replication as issue 9 states it.
		local cnf=("slave_parallel_threads = 4" "slave_parallel_mode = optimistic") extra
		IFS=';' read -ra extra <<<"${BENCH_NATIVE_CNF:-}"
		cnf+=("${extra[@]}")
		mt_server_start replica 3 "${cnf[@]}" || return 1
		cp "$MT_SRV_ROOT/replica/my.cnf" "$BENCH_WORK/replica.cnf"
		native_position || return 1
		meta NATIVE_SETTINGS "$(mt_sql replica -e "SELECT CONCAT('slave_parallel_threads=', @@slave_parallel_threads, ', slave_parallel_mode=', @@slave_parallel_mode, ', slave_parallel_max_queued=', @@slave_parallel_max_queued, ', slave_domain_parallel_threads=', @@slave_domain_parallel_threads)")"
	fi
	tend="$(mark_heartbeat)" || return 1
	applier_start "$tool" "$log" "$BENCH_WORK/logs/catchup.$tool.setup.time"
	wait_caught_up "$(applier_server "$tool")" "$(applier_db "$tool")" "$tend" 600 >/dev/null || {
		applier_stop "$tool" "$log"
		return 1
	}
	applier_stop "$tool" "$log"
}

catchup_part() {
	local candidates=() tools=() rep wl t0 t1 n tend tool order
	[[ -n ${SLUICE_OK:-} ]] && candidates+=(sluice)
	uses native && candidates+=(native)
	for tool in "${candidates[@]}"; do
		if catchup_setup "$tool"; then
			tools+=("$tool")
			continue
		fi
		bench_log "catch-up: setting up $tool failed (see $BENCH_WORK/logs/catchup.$tool.*); it is left out"
		for wl in $CATCHUP_WORKLOADS; do printf '%s\t%s\t1\tfailed\n' "$tool" "$wl" >>"$CATCHUP_TSV"; done
	done
	[[ ${#tools[@]} -gt 0 ]] || return 0
	for ((rep = 1; rep <= CATCHUP_REPS; rep++)); do
		for wl in $CATCHUP_WORKLOADS; do
			bench_log "catch-up $wl #$rep: ${SECONDS_LOAD}s of load, appliers stopped: ${tools[*]}"
			start_heartbeat
			t0="$(now_us)"
			n="$(sysbench_run "$wl" "$BENCH_WORK/logs/catchup.$wl.$rep.sysbench.log")"
			t1="$(now_us)"
			stop_heartbeat
			tend="$(mark_heartbeat)" || bench_die "heartbeat"
			[[ -n $n ]] || bench_die "sysbench $wl failed (see $BENCH_WORK/logs/catchup.$wl.$rep.sysbench.log)"
			# The order alternates so that neither always runs second (warmer caches, fuller binlog).
			order=("${tools[@]}")
			((rep % 2 == 0)) && mapfile -t order < <(printf '%s\n' "${tools[@]}" | tac)
			for tool in "${order[@]}"; do
				catchup_apply "$tool" "$wl" "$rep" "$tend" "$n" "$(us_diff "$t0" "$t1")"
			done
		done
	done
	for tool in "${tools[@]}"; do
		if check_equal "$(applier_server "$tool")" "$(applier_db "$tool")"; then
			meta "CATCHUP_CORRECT_$tool" yes
		else
			meta "CATCHUP_CORRECT_$tool" NO
		fi
	done
	uses native && mt_server_stop replica
}

# ---------------------------------------------------------------- main

cleanup() {
	stop_poller
	stop_heartbeat
	[[ -n ${TOOL_PID:-} ]] && pkill_tree "$TOOL_PID"
	mt_servers_stop_all
}

main() {
	if [[ -n ${BENCH_REPORT_ONLY:-} ]]; then
		exec bash "$BENCH_DIR/mysql_target_report.sh" "${BENCH_WORK:-/tmp/sluice-bench/mysql-target}"
	fi
	mt_init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	local t_start=$SECONDS
	mt_server_start source 1 || bench_die "cannot start the source"
	mt_server_start target 2 || bench_die "cannot start the target"
	cp "$MT_SRV_ROOT/target/my.cnf" "$BENCH_WORK/target.cnf"
	prepare_source
	SLUICE_OK='' SLUICE_SKIPPED=''
	sluice_usable && SLUICE_OK=1
	meta SLUICE_SKIPPED "${SLUICE_SKIPPED:-}"
	meta SLUICE_COMMIT "${BENCH_SLUICE_COMMIT:-}"
	meta SLUICE_VERSION "$([[ -n $SLUICE_OK ]] && "$BENCH_SLUICE" version 2>/dev/null | head -n1)"
	meta MARIADB_VERSION "$(mt_sql source -e 'SELECT VERSION()')"
	meta ROCKSDB_VERSION "$(mt_sql target -e "SELECT PLUGIN_AUTH_VERSION FROM information_schema.PLUGINS WHERE PLUGIN_NAME='ROCKSDB'")"
	meta DUMP_VERSION "$(mariadb-dump --version)"
	meta SYSBENCH_VERSION "$(sysbench --version)"
	meta TABLES "$TABLES"
	meta TABLE_SIZE "$TABLE_SIZE"
	meta THREADS "$THREADS"
	meta SECONDS_LOAD "$SECONDS_LOAD"
	meta REPS "$BENCH_REPS"
	meta RUN_START "$(date -u '+%Y-%m-%d %H:%M UTC')"
	meta LOADAVG "$(cut -d' ' -f1-3 /proc/loadavg)"
	part snapshot && snapshot_part
	part live && live_part
	part catchup && catchup_part
	meta RUN_END "$(date -u '+%H:%M UTC')"
	meta RUN_MINUTES "$(((SECONDS - t_start + 30) / 60))"
	cleanup
	trap - EXIT
	bash "$BENCH_DIR/mysql_target_report.sh" "$BENCH_WORK"
}

[[ ${BASH_SOURCE[0]} == "$0" ]] && main "$@"
