#!/usr/bin/env bash
# bench/kafka.sh: two MySQL shards into Kafka with `sluice stream` (issue 14), side by side with
# the broker's own limit and Debezium's MySQL connector. Two throwaway MySQL 9.7 servers
# (bench/mysql9_servers.sh; BENCH_SHARD_FLAVOR=mariadb: MariaDB 10.11, bench/mysql_target_servers.sh,
# which Debezium's MySQL connector cannot read) are the shards, each with the same sysbench database
# sbtest (so both write the same topics, told apart by source.server_id 1 and 2); the sandbox's
# Kafka (127.0.0.1:19092, scripts/sandbox) is the target.
#
#   catchup  per workload (oltp_insert, oltp_write_only) and pass: a new stream is started with
#            --no-snapshot on the idle shards (it commits its start position and exits), then
#            sysbench writes both shards for 60 s with sluice stopped, then
#            `sluice stream --until-caught-up` is timed from its start to its exit: events/s and
#            MB/s (key + value bytes of the records, counted by an independent read_committed
#            consumer, bench/kafkacount: franz-go, no sluice code). Right after, in the same pass,
#            Kafka's own ProducerPerformance (the sandbox's kafka-tools jar) sends the same number
#            of records of the same average size, acks=all, without and with transactions.
#            Ratio sluice / broker (goal >= 0.5).
#            And, on the same backlog, the Debezium MySQL connector (Maven Central, run by Kafka
#            Connect 3.9.1 standalone from the sandbox's jars, one connector per shard), positioned
#            before the load like sluice and timed from the worker's start until its table topics
#            hold the backlog's records: sluice / Debezium (goal >= 3). BENCH_NO_DEBEZIUM=1 skips it;
#            when it cannot be set up or run, the section says why. Debezium's rate is given twice:
#            from the worker's start (JVM and plugin start-up included, as sluice's start-up is) and
#            from its first backlog record on (streaming only).
#   live     sluice stream running while sysbench writes both shards at full rate: the delay =
#            time a read_committed consumer receives a heartbeat row's event - the heartbeat's
#            value (the source's clock when it was written; one row per shard updated every
#            0.1 s); p50/p99/max per shard from the load's start until caught up (goal < 1 s).
#
# Correct: after every run the consumer's count of events per shard, table and op (c/u/d, plus a
# tombstone per delete) equals the row changes of that shard's binlog from the stream's start
# position (mysqlbinlog / mariadb-binlog --verbose, counted by table and INSERT/UPDATE/DELETE).
#
# Results: the "## kafka" section of docs/benchmarks.md (BENCH_NO_DOC=1: printed only) and
# docs/benchmarks-kafka.png. BENCH_REPORT_ONLY=1 rebuilds the report from the last work dir.
# Knobs: BENCH_PARTS ("catchup live"), BENCH_WORKLOADS ("oltp_insert oltp_write_only"),
# BENCH_SHARD_FLAVOR (mysql: MySQL 9.7 shards; mariadb), BENCH_NO_DEBEZIUM=1, BENCH_DEBEZIUM_VERSION,
# BENCH_REPS (3 catch-up passes), BENCH_TABLES (8), BENCH_TABLE_SIZE (100000; per shard),
# BENCH_THREADS (8 per shard), BENCH_SECONDS (60), BENCH_PP_TXN_MS (100: ProducerPerformance's
# --transaction-duration-ms), BENCH_SLUICE_ARGS (extra `sluice stream` flags, e.g. --workers 2),
# BENCH_KAFKA (127.0.0.1:19092), BENCH_WORK (/tmp/sluice-bench/kafka), BENCH_KEEP_TOPICS=1, and
# lib.sh's BENCH_SLUICE, BENCH_SLUICE_FROM, BENCH_QUIET_MAX, BENCH_QUIET_IDLE.
# A short trial: BENCH_SECONDS=10 BENCH_TABLES=2 BENCH_TABLE_SIZE=10000 BENCH_REPS=1 BENCH_NO_DOC=1.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-}"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"
# shellcheck source=bench/mysql_target_servers.sh
source "$BENCH_DIR/mysql_target_servers.sh"
# The shards need no MyRocks (mt_write_cnf loads it on every server but id 1).
MT_ROCKSDB_PLUGIN=/nonexistent
SHARD_FLAVOR="${BENCH_SHARD_FLAVOR:-mysql}"
case $SHARD_FLAVOR in
mysql)
	# shellcheck source=bench/mysql9_servers.sh
	source "$BENCH_DIR/mysql9_servers.sh"
	;;
mariadb) ;;
*) bench_die "BENCH_SHARD_FLAVOR=$SHARD_FLAVOR: mysql (MySQL 9.7) or mariadb" ;;
esac

BENCH_REPS="${USER_REPS:-3}"
PARTS="${BENCH_PARTS:-catchup live}"
WORKLOADS="${BENCH_WORKLOADS:-oltp_insert oltp_write_only}"
TABLES="${BENCH_TABLES:-8}"
TABLE_SIZE="${BENCH_TABLE_SIZE:-100000}"
THREADS="${BENCH_THREADS:-8}"
SECONDS_LOAD="${BENCH_SECONDS:-60}"
PP_TXN_MS="${BENCH_PP_TXN_MS:-100}"
KAFKA="${BENCH_KAFKA:-127.0.0.1:19092}"
SHARDS=(shard1 shard2)
DB=sbtest
STREAM=kbench

now_us() { date +%s%6N; }
part() { [[ " $PARTS " == *" $1 "* ]]; }
us_diff() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b - a) / 1e6 }'; }
sub_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
meta() { printf '%s=%q\n' "$1" "$2" >>"$META"; }
redact() { sed "s#:sluice@#:xxxxx@#g; s#$BENCH_SLUICE#sluice#g"; }


# ---------------------------------------------------------------- Kafka side

KAFKA_DIR="${SLUICE_SANDBOX_DIR:-/tmp/sluice-sandbox}/kafka"

kafka_cpu() {
	local pid
	pid="$(bench_pidfile_pid "$KAFKA_DIR/kafka.pid")"
	_bench_ticks_to_s "$(_bench_ticks_of "${pid:-0}")"
}

kc() { "$KAFKACOUNT" -brokers "$KAFKA" "$@"; }

drop_topics() {
	[[ -n ${BENCH_KEEP_TOPICS:-} ]] && return 0
	kc -prefix "$1" delete 2>>"$BENCH_WORK/logs/kafkacount.log" || bench_log "deleting the topics $1.* failed (kept)"
}

# ---------------------------------------------------------------- shards

shard_id() { if [[ $1 == shard1 ]]; then echo 1; else echo 2; fi; }
sources() {
	local s
	for s in "${SHARDS[@]}"; do printf -- '--source\n%s\n' "$(mt_url "$s" "$DB")"; done
}

prepare_shard() {
	local s=$1 log="$BENCH_WORK/logs/sysbench-prepare-$1.log"
	mt_sql "$s" -e "CREATE DATABASE $DB" || return 1
	sysbench oltp_common --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port "$s")" \
		--mysql-user=root --mysql-password=root --mysql-db="$DB" \
		--tables="$TABLES" --table-size="$TABLE_SIZE" --threads=2 prepare >"$log" 2>&1 || return 1
	mt_sql "$s" -e "CREATE TABLE $DB.hb (id INT PRIMARY KEY, ts BIGINT NOT NULL);
		INSERT INTO $DB.hb VALUES (1, CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED))"
}

prepare_shards() {
	local t0=$SECONDS pids=() s rc=0
	bench_log "sysbench prepare on both shards: $TABLES tables x $TABLE_SIZE rows each"
	for s in "${SHARDS[@]}"; do
		prepare_shard "$s" &
		pids+=($!)
	done
	for s in "${pids[@]}"; do wait "$s" || rc=1; done
	((rc == 0)) || bench_die "sysbench prepare failed (see $BENCH_WORK/logs/sysbench-prepare-*.log)"
	bench_log "sysbench prepare took $((SECONDS - t0)) s"
	mt_table_stats shard1 "$DB" >"$BENCH_WORK/shard1-tables.txt" || bench_die "table stats"
	meta DATA_ROWS "$(awk '$1 != "hb" { s += $2 } END { print s + 0 }' "$BENCH_WORK/shard1-tables.txt")"
	meta DATA_BYTES "$(awk '$1 != "hb" { s += $3 } END { print s + 0 }' "$BENCH_WORK/shard1-tables.txt")"
}

# binlog_pos SHARD: "file pos" of the shard's binlog now.
binlog_pos() {
	if [[ $SHARD_FLAVOR == mysql ]]; then
		m9_binlog_pos "$1"
	else
		mt_sql "$1" -e "SHOW MASTER STATUS" | awk '{ print $1, $2 }'
	fi
}

# binlog_verbose SHARD FILE POS: the shard's binlog from FILE:POS to its end, rows decoded.
binlog_verbose() {
	if [[ $SHARD_FLAVOR == mysql ]]; then
		m9_binlog_verbose "$@"
	else
		mariadb-binlog --no-defaults -R -h127.0.0.1 -P"$(mt_port "$1")" -uroot -proot --to-last-log \
			--start-position="$3" -v --base64-output=decode-rows "$2"
	fi
}

# binlog_counts SHARD FILE POS: lines "server_id table op rows" of the shard's binlog from FILE:POS
# to its end, for the tables of $DB but the heartbeat (op c, u, d as the Debezium op of that row
# change). The heartbeat is left out: its writer goes on after a stream stopped.
binlog_counts() {
	local s=$1 id
	id="$(shard_id "$s")"
	binlog_verbose "$s" "$2" "$3" 2>>"$BENCH_WORK/logs/binlog-decode.log" |
		awk -v id="$id" -v db="$DB" '
			/^### (INSERT INTO|UPDATE|DELETE FROM) `/ {
				op = ($2 == "INSERT") ? "c" : ($2 == "UPDATE") ? "u" : "d"
				t = ($2 == "UPDATE") ? $3 : $4
				gsub(/`/, "", t); split(t, p, ".")
				if (p[1] == db && p[2] != "hb") n[p[2] " " op]++
			}
			END { for (k in n) { split(k, q, " "); print id, q[1], q[2], n[k] } }' | sort
}

# kafka_counts COUNTFILE: the same lines from the consumer's count of the table topics
# (PREFIX[.shard].DB.TABLE: Debezium has one prefix per connector).
kafka_counts() {
	awk -F'\t' -v db="$DB" '$3 ~ /^[cud]$/ { n = split($1, a, ".")
		if (a[n - 1] == db && a[n] != "hb") print $2, a[n], $3, $4 }' "$1" | sort
}

# sum_records COUNTFILE events|records|bytes: of the table topics but the heartbeat's.
sum_records() {
	awk -F'\t' -v db="$DB" -v what="$2" '{ n = split($1, a, "."); if (a[n - 1] != db || a[n] == "hb") next }
		what == "events" && $3 ~ /^[cud]$/ { s += $4 }
		what == "records" && ($3 ~ /^[cud]$/ || $3 == "tombstone") { s += $4 }
		what == "bytes" && ($3 ~ /^[cud]$/ || $3 == "tombstone") { s += $5 }
		END { print s + 0 }' "$1"
}

# check_run PREFIX COUNTFILE POSFILE [BINLOG_COUNTS]: 0 when the events per shard, table and op
# equal the binlogs' row changes from POSFILE's positions (or those already counted in the file
# BINLOG_COUNTS), and the tombstones per table equal the deletes. Differences to stderr.
check_run() {
	local prefix=$1 counts=$2 posfile=$3 s file pos rc=0
	local want="$counts.binlog" got="$counts.kafka"
	if [[ -n ${4:-} ]]; then
		cp "$4" "$want"
	else
		: >"$want"
		while read -r s file pos; do binlog_counts "$s" "$file" "$pos" >>"$want"; done <"$posfile"
		sort -o "$want" "$want"
	fi
	kafka_counts "$counts" >"$got"
	if ! diff -q "$want" "$got" >/dev/null; then
		bench_log "$prefix: events per shard/table/op differ from the binlogs' row changes (< binlog, > kafka):"
		diff "$want" "$got" | head -n 20 >&2
		rc=1
	fi
	local dels tombs
	dels="$(awk '$3 == "d" { s += $4 } END { print s + 0 }' "$want")"
	tombs="$(awk -F'\t' -v db="$DB" '$3 == "tombstone" { n = split($1, a, "."); if (a[n - 1] == db && a[n] != "hb") s += $4 } END { print s + 0 }' "$counts")"
	if [[ $dels != "$tombs" ]]; then
		bench_log "$prefix: $tombs tombstones for $dels deletes"
		rc=1
	fi
	[[ -s $want ]] || {
		bench_log "$prefix: the binlogs have no row changes of $DB (binlog decoding failed? see logs/binlog-decode.log)"
		rc=1
	}
	return $rc
}

# ---------------------------------------------------------------- load

# sysbench_both WORKLOAD TAG: the load on both shards at once; prints "txns_shard1 txns_shard2".
sysbench_both() {
	local wl=$1 tag=$2 s pids=()
	for s in "${SHARDS[@]}"; do
		sysbench "$wl" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port "$s")" \
			--mysql-user=root --mysql-password=root --mysql-db="$DB" --tables="$TABLES" --table-size="$TABLE_SIZE" \
			--threads="$THREADS" --time="$SECONDS_LOAD" --report-interval=1 --rand-type=uniform run \
			>"$BENCH_WORK/logs/$tag.sysbench.$s.log" 2>&1 &
		pids+=($!)
	done
	for s in "${pids[@]}"; do wait "$s" || bench_log "sysbench $wl failed (see $BENCH_WORK/logs/$tag.sysbench.*.log)"; done
	for s in "${SHARDS[@]}"; do
		awk '/^ *transactions:/ { printf "%s ", $2; f = 1 } END { if (!f) printf "- " }' "$BENCH_WORK/logs/$tag.sysbench.$s.log"
	done
	echo
}

start_heartbeat() {
	local s
	HB_PIDS=()
	for s in "${SHARDS[@]}"; do
		(yes "UPDATE $DB.hb SET ts = CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED) WHERE id = 1; DO SLEEP(0.1);" |
			mt_sql "$s" >/dev/null 2>&1) 2>/dev/null &
		HB_PIDS+=($!)
	done
}

stop_heartbeat() {
	local p
	for p in "${HB_PIDS[@]}"; do pkill_tree "$p"; done
	HB_PIDS=()
}

# ---------------------------------------------------------------- sluice

# stream_cmd PREFIX [FLAGS...]: sets CMD, the sluice stream command of both shards into PREFIX.
stream_cmd() {
	local prefix=$1
	shift
	local src
	mapfile -t src < <(sources)
	# shellcheck disable=SC2206
	CMD=("$BENCH_SLUICE" stream "${src[@]}" --kafka "$KAFKA" --topic-prefix "$prefix" --stream "$STREAM"
		--log-format text "$@" ${BENCH_SLUICE_ARGS:-})
}

# stream_start_position PREFIX: a new stream at the shards' current positions; it commits the start
# and exits at once (the shards are idle).
stream_start_position() {
	local log="$BENCH_WORK/logs/$1.start.log"
	stream_cmd "$1" --no-snapshot --until-caught-up
	timeout 120 "${CMD[@]}" >"$log" 2>&1 || {
		bench_log "sluice stream --no-snapshot into $1 failed (see $log)"
		return 1
	}
}

# ---------------------------------------------------------------- Debezium (Kafka Connect standalone)

# The Debezium MySQL connector from Maven Central (mvn, as scripts/sandbox fetches Kafka) on the
# Kafka Connect runtime of the sandbox's jars (connect-runtime 3.9.1, pulled in by kafka-tools).
# One standalone worker runs one connector per shard (Debezium's way: topic prefix P_dbz.s1 and
# P_dbz.s2, offsets in a file, schema history in a topic), JsonConverter without schemas as
# sluice writes by default.
DBZ_VERSION="${BENCH_DEBEZIUM_VERSION:-3.6.1.Final}"
DBZ_HOME="${BENCH_DEBEZIUM_HOME:-/tmp/sluice-bench/kafka-debezium}"

dbz_setup() {
	local jars="$DBZ_HOME/jars-$DBZ_VERSION" plug="$DBZ_HOME/plugins-$DBZ_VERSION/debezium-connector-mysql" j
	local log="$BENCH_WORK/logs/debezium-mvn.log"
	if [[ ! -f $jars/.complete ]]; then
		command -v mvn >/dev/null || {
			DBZ_SKIPPED="mvn is not installed (Debian package maven), so the connector's jars cannot be fetched"
			return 1
		}
		mkdir -p "$DBZ_HOME/pom-$DBZ_VERSION" || return 1
		cat >"$DBZ_HOME/pom-$DBZ_VERSION/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>sluice.bench</groupId>
  <artifactId>debezium-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>io.debezium</groupId><artifactId>debezium-connector-mysql</artifactId><version>$DBZ_VERSION</version></dependency>
  </dependencies>
</project>
EOF
		rm -rf "${jars:?}"
		mvn -q -B -f "$DBZ_HOME/pom-$DBZ_VERSION/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
			-DoutputDirectory="$jars" >"$log" 2>&1 || {
			DBZ_SKIPPED="mvn could not fetch io.debezium:debezium-connector-mysql:$DBZ_VERSION (see $log)"
			return 1
		}
		touch "$jars/.complete"
	fi
	# The plugin directory: the connector's jars without the Kafka and logging API jars, which the
	# Connect runtime provides (the same classes twice would clash across class loaders).
	rm -rf "${plug:?}" && mkdir -p "$plug" || return 1
	for j in "$jars"/*.jar; do
		case $(basename "$j") in kafka-clients-* | connect-api-* | slf4j-*) continue ;; esac
		cp "$j" "$plug/"
	done
	DBZ_PLUGINS="$DBZ_HOME/plugins-$DBZ_VERSION"
}

# dbz_config PREFIX DIR: the worker's and the two connectors' properties in DIR.
dbz_config() {
	local prefix=$1 dir=$2 s i=0
	mkdir -p "$dir"
	cat >"$dir/worker.properties" <<EOF
bootstrap.servers=$KAFKA
key.converter=org.apache.kafka.connect.json.JsonConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
key.converter.schemas.enable=false
value.converter.schemas.enable=false
offset.storage.file.filename=$dir/offsets
offset.flush.interval.ms=1000
plugin.path=$DBZ_PLUGINS
plugin.discovery=service_load
producer.acks=all
listeners=http://127.0.0.1:$(mt_free_port)
EOF
	for s in "${SHARDS[@]}"; do
		i=$((i + 1))
		cat >"$dir/$s.properties" <<EOF
name=dbz-$s
connector.class=io.debezium.connector.mysql.MySqlConnector
tasks.max=1
database.hostname=127.0.0.1
database.port=$(mt_port "$s")
database.user=sluice
database.password=sluice
database.server.id=$((54000 + i))
database.ssl.mode=disabled
topic.prefix=${prefix}_dbz.s$i
database.include.list=$DB
snapshot.mode=no_data
include.schema.changes=false
schema.history.internal.kafka.bootstrap.servers=$KAFKA
schema.history.internal.kafka.topic=${prefix}_dbz.s$i.history
EOF
	done
}

# dbz_start DIR LOG TIMEFILE: the standalone worker with both connectors, in the background.
dbz_start() {
	local dir=$1
	/usr/bin/time -f '%e %M %U %S' -o "$3" java -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
		-Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" -cp "$KAFKA_DIR/jars/*" \
		org.apache.kafka.connect.cli.ConnectStandalone "$dir/worker.properties" "$dir/shard1.properties" "$dir/shard2.properties" \
		>>"$2" 2>&1 &
	DBZ_PID=$!
}

# dbz_stop: SIGTERM to the worker (the child of GNU time): it stops the connectors and flushes
# their offsets.
dbz_stop() {
	bench_stop_timed "${DBZ_PID:-}" TERM 90
	DBZ_PID=
}

# dbz_position PREFIX: the connectors' first run on the idle shards (no_data: schema only, then the
# binlog from the current position); heartbeat updates give each connector a record and so a
# committed offset; then the worker is stopped.
dbz_position() {
	local prefix=$1 dir="$BENCH_WORK/dbz/$1" log="$BENCH_WORK/logs/$1.dbz-position.log" deadline s i ok=
	dbz_config "$prefix" "$dir"
	: >"$log"
	dbz_start "$dir" "$log" "$dir/position.time"
	deadline=$((SECONDS + ${BENCH_DBZ_START_LIMIT:-180}))
	while ((SECONDS < deadline)); do
		kill -0 "$DBZ_PID" 2>/dev/null || break
		for s in "${SHARDS[@]}"; do mt_sql "$s" -e "UPDATE $DB.hb SET ts = CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS UNSIGNED) WHERE id = 1"; done
		ok=1
		for i in 1 2; do
			[[ $(kc -prefix "${prefix}_dbz" -match "\\.s$i\\.$DB\\.hb\$" ends 2>/dev/null) -gt 0 ]] || ok=
		done
		[[ -n $ok ]] && break
		sleep 2
	done
	sleep 3 # offset.flush.interval.ms=1000
	dbz_stop
	if [[ -z $ok ]]; then
		local why
		why="$(grep -m1 'DebeziumException' "$log" || grep -m1 -E 'ERROR|Exception' "$log")"
		if grep -q 'should support SHOW BINARY LOG STATUS' "$log"; then
			why="the MySQL connector does not support MariaDB: it takes the version 10.11 for MySQL's and sends MySQL 8.4's \`SHOW BINARY LOG STATUS\`, which MariaDB rejects (\`$(grep -m1 -o 'MySQL version .*connectivity\.' "$log")\`); Debezium's MariaDB connector (io.debezium:debezium-connector-mariadb) is not available from the Maven registry this machine reaches, and the shards are MariaDB"
		fi
		DBZ_SKIPPED="Debezium $DBZ_VERSION did not stream both shards: ${why:0:600} (log: logs/$1.dbz-position.log of the work dir)"
		bench_log "$DBZ_SKIPPED"
		return 1
	fi
	[[ -s $dir/offsets ]] || {
		DBZ_SKIPPED="Debezium's offsets file stayed empty after its first run"
		return 1
	}
}

# dbz_catchup PREFIX WL REP RECORDS POSFILE BINLOG_COUNTS: the worker started on the backlog, timed
# until the table topics hold RECORDS records (Debezium writes without transactions: end offsets =
# records).
dbz_catchup() {
	local prefix=$1 wl=$2 rep=$3 want=$4 posfile=$5 binlog=$6 dir="$BENCH_WORK/dbz/$1" log="$BENCH_WORK/logs/$1.dbz.log"
	local tf="$BENCH_WORK/logs/$1.dbz.time" counts="$BENCH_WORK/logs/$1.dbz.counts" s s0=() s1=() k0 k1 ts tc='' t1='' n ok=yes
	: >"$log"
	bench_wait_quiet
	for s in "${SHARDS[@]}"; do s0+=("$(mt_cpu "$s")"); done
	k0="$(kafka_cpu)"
	ts="$(now_us)"
	dbz_start "$dir" "$log" "$tf"
	local deadline=$((SECONDS + ${BENCH_DBZ_LIMIT:-1800}))
	while ((SECONDS < deadline)) && kill -0 "$DBZ_PID" 2>/dev/null; do
		n="$(kc -prefix "${prefix}_dbz" -match "\\.$DB\\.sbtest[0-9]+\$" ends 2>/dev/null)"
		# The first backlog record: the connectors are streaming (0.5 s resolution).
		[[ -z $t1 && -n $n && $n -gt 0 ]] && t1="$(now_us)"
		if [[ -n $n && $n -ge $want ]]; then
			tc="$(now_us)"
			break
		fi
		sleep 0.5
	done
	for s in "${SHARDS[@]}"; do s1+=("$(mt_cpu "$s")"); done
	k1="$(kafka_cpu)"
	dbz_stop
	if [[ -z $tc ]]; then
		bench_log "Debezium $wl #$rep: ${n:-0} of $want records within ${BENCH_DBZ_LIMIT:-1800} s (see $log)"
		printf '%s\t%s\tfailed\n' "$wl" "$rep" >>"$DBZ_TSV"
		return 1
	fi
	kc -prefix "${prefix}_dbz" count >"$counts" 2>>"$BENCH_WORK/logs/kafkacount.log" || bench_log "kafkacount count failed"
	check_run "${prefix}_dbz" "$counts" "$posfile" "$binlog" || ok=NO
	# GNU time writes "Command exited with non-zero status 143" first: the worker is stopped by SIGTERM.
	# wl rep records wall_s connect_cpu_s rss_mb shard1_cpu shard2_cpu kafka_cpu bytes correct stream_s
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$rep" "$(sum_records "$counts" records)" "$(us_diff "$ts" "$tc")" \
		"$(tail -n1 "$tf" | awk '{ printf "%.2f", $3 + $4 }')" "$(tail -n1 "$tf" | awk '{ printf "%d", $2 / 1024 }')" \
		"$(sub_s "${s0[0]}" "${s1[0]}")" "$(sub_s "${s0[1]}" "${s1[1]}")" "$(sub_s "$k0" "$k1")" \
		"$(sum_records "$counts" bytes)" "$ok" "$(us_diff "${t1:-$ts}" "$tc")" >>"$DBZ_TSV"
	bench_log "Debezium $wl #$rep: $want records in $(us_diff "$ts" "$tc") s (worker start-up included; $(us_diff "${t1:-$ts}" "$tc") s from the first record); correct: $ok"
}

# ---------------------------------------------------------------- catch-up

# pp_run PREFIX MODE RECORDS SIZE WL REP: ProducerPerformance into PREFIX.perf-MODE; one line into $PP_TSV.
pp_run() {
	local prefix=$1 mode=$2 n=$3 size=$4 wl=$5 rep=$6 log="$BENCH_WORK/logs/$1.pp-$2.log" tf k0 k1 extra=() line
	[[ $mode == txn ]] && extra=(--transactional-id "bench-pp-$prefix" --transaction-duration-ms "$PP_TXN_MS")
	tf="$(mktemp)"
	bench_wait_quiet
	k0="$(kafka_cpu)"
	/usr/bin/time -f '%e %M %U %S' -o "$tf" java -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
		-Dlog4j.configuration="file:$KAFKA_DIR/log4j.properties" -cp "$KAFKA_DIR/jars/*" \
		org.apache.kafka.tools.ProducerPerformance --topic "$prefix.perf-$mode" --num-records "$n" --record-size "$size" \
		--throughput -1 --producer-props bootstrap.servers="$KAFKA" acks=all "${extra[@]}" >"$log" 2>&1
	local rc=$?
	k1="$(kafka_cpu)"
	# "N records sent, X records/sec (Y MB/sec), ..." is the summary; the progress lines say "records sent,"
	# too, so the last one is taken.
	line="$(grep 'records sent' "$log" | tail -n1)"
	if ((rc != 0)) || [[ -z $line ]]; then
		bench_log "ProducerPerformance $mode failed (see $log)"
		printf '%s\t%s\t%s\tfailed\n' "$wl" "$rep" "$mode" >>"$PP_TSV"
		rm -f "$tf"
		return 1
	fi
	# wl rep mode records size rec_per_s mb_per_s pp_wall_s pp_cpu_s kafka_cpu_s
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$rep" "$mode" "$n" "$size" \
		"$(awk '{ for (i = 1; i <= NF; i++) if ($i == "records/sec") print $(i - 1) }' <<<"$line")" \
		"$(sed -n 's/.*(\([0-9.]*\) MB\/sec).*/\1/p' <<<"$line")" \
		"$(awk '{ print $1 }' "$tf")" "$(awk '{ printf "%.2f", $3 + $4 }' "$tf")" "$(sub_s "$k0" "$k1")" >>"$PP_TSV"
	rm -f "$tf"
	bench_log "ProducerPerformance $mode: $line"
}

catchup_run() {
	local wl=$1 rep=$2 prefix="${RUN_ID}_${1}_$2" tag="catchup.$1.$2"
	local posfile="$BENCH_WORK/logs/$tag.pos" counts="$BENCH_WORK/logs/$tag.counts" log="$BENCH_WORK/logs/$tag.sluice.log"
	local tf="$BENCH_WORK/logs/$tag.time" n1 n2 t0 t1 s s0=() s1=() k0 k1 rc=0 ok=yes
	bench_log "catch-up $wl #$rep: stream $prefix starts at the shards' positions"
	stream_start_position "$prefix" || {
		printf '%s\t%s\tfailed\n' "$wl" "$rep" >>"$CATCHUP_TSV"
		return 1
	}
	local dbz=''
	if [[ -n ${DBZ_PLUGINS:-} ]]; then
		bench_log "catch-up $wl #$rep: Debezium's connectors start at the shards' positions"
		if dbz_position "$prefix"; then dbz=1; else DBZ_PLUGINS=''; fi
	fi
	: >"$posfile"
	for s in "${SHARDS[@]}"; do printf '%s %s\n' "$s" "$(binlog_pos "$s")" >>"$posfile"; done
	bench_log "catch-up $wl #$rep: ${SECONDS_LOAD}s of load on both shards, sluice${dbz:+ and Debezium} stopped"
	t0="$(now_us)"
	read -r n1 n2 < <(sysbench_both "$wl" "$tag")
	t1="$(now_us)"
	bench_wait_quiet
	for s in "${SHARDS[@]}"; do s0+=("$(mt_cpu "$s")"); done
	k0="$(kafka_cpu)"
	stream_cmd "$prefix" --until-caught-up
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "${CMD[@]}" >"$log" 2>&1 || rc=$?
	for s in "${SHARDS[@]}"; do s1+=("$(mt_cpu "$s")"); done
	k1="$(kafka_cpu)"
	if ((rc != 0)); then
		bench_log "catch-up $wl #$rep: sluice stream exited $rc (see $log)"
		printf '%s\t%s\tfailed\n' "$wl" "$rep" >>"$CATCHUP_TSV"
		drop_topics "$prefix"
		drop_topics "${prefix}_dbz"
		return 1
	fi
	kc -prefix "$prefix" count >"$counts" 2>>"$BENCH_WORK/logs/kafkacount.log" || bench_log "kafkacount count failed"
	check_run "$prefix" "$counts" "$posfile" || ok=NO
	local events records bytes states size
	events="$(sum_records "$counts" events)" records="$(sum_records "$counts" records)" bytes="$(sum_records "$counts" bytes)"
	states="$(awk -F'\t' '$3 == "state" && $1 ~ /\.sluice\.offsets$/ { s += $4 } END { print s + 0 }' "$counts")"
	# wl rep txns1 txns2 load_s wall_s rss_mb sluice_cpu shard1_cpu shard2_cpu kafka_cpu events records bytes states correct
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$rep" "$n1" "$n2" "$(us_diff "$t0" "$t1")" \
		"$(awk '{ print $1 }' "$tf")" "$(awk '{ printf "%d", $2 / 1024 }' "$tf")" "$(awk '{ printf "%.2f", $3 + $4 }' "$tf")" \
		"$(sub_s "${s0[0]}" "${s1[0]}")" "$(sub_s "${s0[1]}" "${s1[1]}")" "$(sub_s "$k0" "$k1")" \
		"$events" "$records" "$bytes" "$states" "$ok" >>"$CATCHUP_TSV"
	bench_log "catch-up $wl #$rep: $records records ($events events, $bytes bytes) in $(awk '{ print $1 }' "$tf") s; correct: $ok"
	if ((records > 0)); then
		size=$(((bytes + records / 2) / records))
		pp_run "$prefix" plain "$records" "$size" "$wl" "$rep"
		pp_run "$prefix" txn "$records" "$size" "$wl" "$rep"
	fi
	# Debezium's target: the binlogs' row changes of the tables plus a tombstone per delete.
	[[ -n $dbz ]] && dbz_catchup "$prefix" "$wl" "$rep" \
		"$(awk '{ s += $4; if ($3 == "d") s += $4 } END { print s + 0 }' "$counts.binlog")" "$posfile" "$counts.binlog"
	drop_topics "$prefix"
	drop_topics "${prefix}_dbz"
}

catchup_part() {
	local rep wl
	stream_cmd PREFIX --until-caught-up
	meta CATCHUP_CMD "$(redact <<<"${CMD[*]}")"
	meta PP_CMD "java -cp '$KAFKA_DIR/jars/*' org.apache.kafka.tools.ProducerPerformance --topic PREFIX.perf-plain --num-records N --record-size S --throughput -1 --producer-props bootstrap.servers=$KAFKA acks=all [--transactional-id ID --transaction-duration-ms $PP_TXN_MS]"
	DBZ_SKIPPED=''
	if [[ -n ${BENCH_NO_DEBEZIUM:-} ]]; then
		DBZ_SKIPPED="not run (BENCH_NO_DEBEZIUM=1)"
	elif dbz_setup; then
		dbz_config PREFIX "$BENCH_WORK/dbz/example"
		meta DBZ_CMD "java -cp '$KAFKA_DIR/jars/*' org.apache.kafka.connect.cli.ConnectStandalone worker.properties shard1.properties shard2.properties"
		meta DBZ_CONNECTOR "$(grep -v -e password -e '^database.port' -e '^name=' "$BENCH_WORK/dbz/example/shard1.properties" | tr '\n' ' ')"
	fi
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for wl in $WORKLOADS; do catchup_run "$wl" "$rep"; done
	done
	meta DBZ_SKIPPED "$DBZ_SKIPPED"
	meta DBZ_VERSION "$DBZ_VERSION"
}

# ---------------------------------------------------------------- live

# wait_hb SAMPLES T_US LIMIT_S: wait until the tail has seen, from every shard, a heartbeat >= T_US;
# prints the epoch µs when it had (status 1 on timeout or when sluice ended).
wait_hb() {
	local samples=$1 t=$2 limit=$3 start=$SECONDS
	while ((SECONDS - start < limit)); do
		if [[ -n ${TOOL_PID:-} ]] && ! kill -0 "$TOOL_PID" 2>/dev/null; then
			bench_log "sluice stream exited while waiting for the heartbeats"
			return 1
		fi
		if awk -v t="$t" '$3 >= t { seen[$2] = 1 } END { exit !(length(seen) >= 2) }' "$samples" 2>/dev/null; then
			now_us
			return 0
		fi
		sleep 0.2
	done
	return 1
}

stop_sluice() {
	bench_stop_timed "${TOOL_PID:-}" INT 60
	TOOL_PID=
}

stop_tail() {
	[[ -n ${TAIL_PID:-} ]] || return 0
	pkill_tree "$TAIL_PID"
	TAIL_PID=
}

# delay_stats SAMPLES SERVER_ID T0 T1 [COL]: "p50 p99 max n" of receive - heartbeat (s) in [T0, T1];
# COL 4: receive - the source's commit time (source.ts_ms) instead of the heartbeat's value.
delay_stats() {
	awk -F'\t' -v id="$2" -v a="$3" -v b="$4" -v c="${5:-3}" '$2 == id && $1 >= a && $1 <= b { print ($1 - $c) / 1e6 }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "- - - 0"; exit }
			printf "%.3f %.3f %.3f %d\n", v[int((NR - 1) * 0.50) + 1], v[int((NR - 1) * 0.99) + 1], v[NR], NR }'
}

live_run() {
	local wl=$1 prefix="${RUN_ID}_live_$1" tag="live.$1"
	local posfile="$BENCH_WORK/logs/$tag.pos" counts="$BENCH_WORK/logs/$tag.counts" log="$BENCH_WORK/logs/$tag.sluice.log"
	local tf="$BENCH_WORK/logs/$tag.time" samples="$BENCH_WORK/samples/$tag.tsv" n1 n2 t0 t1 tc s s0=() s1=() k0 k1 ok=yes
	: >"$posfile"
	for s in "${SHARDS[@]}"; do printf '%s %s\n' "$s" "$(binlog_pos "$s")" >>"$posfile"; done
	: >"$log"
	stream_cmd "$prefix" --no-snapshot
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "${CMD[@]}" >>"$log" 2>&1 &
	TOOL_PID=$!
	# The heartbeat topic exists once sluice wrote the first heartbeat; the tail starts after that.
	local deadline=$((SECONDS + 120))
	until [[ $(kc -prefix "$prefix" -match "\\.$DB\\.hb\$" ends 2>/dev/null) -gt 0 ]]; do
		if ((SECONDS >= deadline)) || ! kill -0 "$TOOL_PID" 2>/dev/null; then
			bench_log "live $wl: no heartbeat event in $prefix.$DB.hb within 120 s (see $log)"
			stop_sluice
			printf '%s\tfailed\n' "$wl" >>"$LIVE_TSV"
			return 1
		fi
		sleep 1
	done
	"$KAFKACOUNT" -brokers "$KAFKA" -topic "$prefix.$DB.hb" tail >"$samples" 2>>"$BENCH_WORK/logs/kafkacount.log" &
	TAIL_PID=$!
	if ! wait_hb "$samples" "$(now_us)" 60 >/dev/null; then
		bench_log "live $wl: the tail saw no current heartbeat of both shards within 60 s"
		stop_tail
		stop_sluice
		printf '%s\tfailed\n' "$wl" >>"$LIVE_TSV"
		return 1
	fi
	for s in "${SHARDS[@]}"; do s0+=("$(mt_cpu "$s")"); done
	k0="$(kafka_cpu)"
	bench_log "live $wl: ${SECONDS_LOAD}s of load on both shards, sluice streaming"
	t0="$(now_us)"
	read -r n1 n2 < <(sysbench_both "$wl" "$tag")
	t1="$(now_us)"
	tc="$(wait_hb "$samples" "$t1" 900)" || tc=""
	for s in "${SHARDS[@]}"; do s1+=("$(mt_cpu "$s")"); done
	k1="$(kafka_cpu)"
	stop_tail
	stop_sluice
	if [[ -z $tc ]]; then
		bench_log "live $wl: not caught up within 900 s after the load (see $log)"
		printf '%s\tfailed\n' "$wl" >>"$LIVE_TSV"
		drop_topics "$prefix"
		return 1
	fi
	kc -prefix "$prefix" count >"$counts" 2>>"$BENCH_WORK/logs/kafkacount.log" || bench_log "kafkacount count failed"
	check_run "$prefix" "$counts" "$posfile" || ok=NO
	local events d1 d2
	events="$(sum_records "$counts" events)"
	d1="$(delay_stats "$samples" 1 "$t0" "$tc")" d2="$(delay_stats "$samples" 2 "$t0" "$tc")"
	# sluice's CPU during the load: GNU time covers the whole run (start-up and idle included).
	# wl txns1 txns2 load_s catchup_after_s events d1(p50 p99 max n) d2(...) sluice_cpu_total shard1_cpu shard2_cpu kafka_cpu correct t0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$n1" "$n2" "$(us_diff "$t0" "$t1")" "$(us_diff "$t1" "$tc")" \
		"$events" "$(tr ' ' '\t' <<<"$d1")" "$(tr ' ' '\t' <<<"$d2")" "$(awk '{ printf "%.2f", $3 + $4 }' "$tf")" \
		"$(sub_s "${s0[0]}" "${s1[0]}")" "$(sub_s "${s0[1]}" "${s1[1]}")" "$(sub_s "$k0" "$k1")" "$ok" "$t0" >>"$LIVE_TSV"
	bench_log "live $wl: delay p50/p99/max shard1 ${d1% *} s, shard2 ${d2% *} s; caught up $(us_diff "$t1" "$tc") s after the load; correct: $ok"
	# The same samples against the source's commit time: the heartbeat's value is taken when its
	# UPDATE starts, so receive - value also holds the shard's own statement and commit latency.
	local c1 c2
	c1="$(delay_stats "$samples" 1 "$t0" "$tc" 4)" c2="$(delay_stats "$samples" 2 "$t0" "$tc" 4)"
	printf '%s\t%s\t%s\n' "$wl" "$(tr ' ' '\t' <<<"$c1")" "$(tr ' ' '\t' <<<"$c2")" >>"$LIVE_COMMIT_TSV"
	bench_log "live $wl: from the source's commit p50/p99/max shard1 ${c1% *} s, shard2 ${c2% *} s"
	drop_topics "$prefix"
}

live_part() {
	local wl
	stream_cmd PREFIX --no-snapshot
	meta LIVE_CMD "$(redact <<<"${CMD[*]}")"
	start_heartbeat
	for wl in $WORKLOADS; do live_run "$wl"; done
	stop_heartbeat
}

# ---------------------------------------------------------------- main

cleanup() {
	dbz_stop
	stop_tail
	stop_heartbeat
	[[ -n ${TOOL_PID:-} ]] && pkill_tree "$TOOL_PID"
	mt_servers_stop_all
}

init() {
	[[ $EUID -eq 0 ]] || bench_die "run as root (mariadbd runs as root here)"
	BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/kafka}"
	MT_SRV_ROOT="${MT_SRV_ROOT:-$BENCH_WORK/servers}"
	mkdir -p "$BENCH_WORK/logs" "$BENCH_WORK/samples"
	rm -f "$BENCH_WORK"/logs/* "$BENCH_WORK"/samples/*
	META="$BENCH_WORK/meta.env" CATCHUP_TSV="$BENCH_WORK/catchup.tsv" PP_TSV="$BENCH_WORK/pp.tsv" LIVE_TSV="$BENCH_WORK/live.tsv"
	LIVE_COMMIT_TSV="$BENCH_WORK/live_commit.tsv"
	DBZ_TSV="$BENCH_WORK/debezium.tsv"
	: >"$DBZ_TSV"
	rm -rf "$BENCH_WORK/dbz"
	: >"$META"
	: >"$CATCHUP_TSV"
	: >"$PP_TSV"
	: >"$LIVE_TSV"
	: >"$LIVE_COMMIT_TSV"
	BENCH_RESULTS="$BENCH_WORK/results.tsv"
	: >"$BENCH_RESULTS"
	BENCH_SLUICE="${BENCH_SLUICE:-$BENCH_WORK/sluice}"
	KAFKACOUNT="$BENCH_WORK/kafkacount"
	RUN_ID="bk$(date +%H%M%S)"
	HB_PIDS=()
	bench_require_time
	command -v sysbench >/dev/null || bench_die "sysbench is not installed (Debian package sysbench)"
	command -v mariadb >/dev/null || bench_die "the mariadb client is not installed (Debian package mariadb-client)"
	[[ $SHARD_FLAVOR == mysql ]] || command -v mariadb-binlog >/dev/null ||
		bench_die "mariadb-binlog is not installed (Debian package mariadb-client)"
	command -v java >/dev/null || bench_die "java is not installed (the sandbox's Kafka needs it too)"
	bench_sandbox_env
	[[ $SHARD_FLAVOR != mysql ]] || m9_available ||
		bench_die "no MySQL 9.7 tree in $M9_TREE (scripts/sandbox start unpacks it unless SLUICE_SANDBOX_MYSQL9=0)"
	[[ -f $KAFKA_DIR/jars/kafka-tools-3.9.1.jar || -n $(compgen -G "$KAFKA_DIR/jars/kafka-tools-*.jar") ]] ||
		bench_die "no kafka-tools jar in $KAFKA_DIR/jars (scripts/sandbox start fetches it)"
	bench_build_sluice || bench_die "cannot build sluice"
	bench_sluice_has stream || bench_die "this sluice has no stream command"
	(cd "$BENCH_ROOT" && go build -o "$KAFKACOUNT" ./bench/kafkacount) >"$BENCH_WORK/logs/kafkacount-build.log" 2>&1 ||
		bench_die "go build ./bench/kafkacount failed (see $BENCH_WORK/logs/kafkacount-build.log)"
	kc -prefix "${RUN_ID}_probe" delete 2>"$BENCH_WORK/logs/kafka-probe.log" ||
		bench_die "Kafka at $KAFKA does not answer (see $BENCH_WORK/logs/kafka-probe.log; scripts/sandbox start)"
}

main() {
	if [[ -n ${BENCH_REPORT_ONLY:-} ]]; then
		BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/kafka}"
		report "$BENCH_WORK"
		return
	fi
	init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	local t_start=$SECONDS
	mt_server_start shard1 1 || bench_die "cannot start shard1"
	mt_server_start shard2 2 || bench_die "cannot start shard2"
	meta RUN_START "$(date -u '+%Y-%m-%d %H:%M UTC')"
	meta LOADAVG "$(cut -d' ' -f1-3 /proc/loadavg)"
	meta SLUICE_COMMIT "${BENCH_SLUICE_COMMIT:-}"
	meta SLUICE_VERSION "$("$BENCH_SLUICE" version 2>/dev/null | head -n1)"
	meta SHARD_FLAVOR "$SHARD_FLAVOR"
	meta SHARD_VERSION "$(mt_sql shard1 -e 'SELECT VERSION()')"
	meta KAFKA_VERSION "$(basename "$(compgen -G "$KAFKA_DIR/jars/kafka_2.13-*.jar" | head -n1)" .jar)"
	meta JAVA_VERSION "$(java -version 2>&1 | head -n1)"
	# The broker's heap as it runs (scripts/sandbox sets it).
	meta KAFKA_HEAP "$(pgrep -af 'kafka\.Kafka' | grep -o -- '-Xmx[0-9]*[kmgKMG]' | head -n1 | sed 's/^-Xmx//')"
	meta SYSBENCH_VERSION "$(sysbench --version)"
	meta TABLES "$TABLES"
	meta TABLE_SIZE "$TABLE_SIZE"
	meta THREADS "$THREADS"
	meta SECONDS_LOAD "$SECONDS_LOAD"
	meta REPS "$BENCH_REPS"
	meta PP_TXN_MS "$PP_TXN_MS"
	meta KAFKA "$KAFKA"
	prepare_shards
	part catchup && catchup_part
	part live && live_part
	meta RUN_END "$(date -u '+%H:%M UTC')"
	meta RUN_MINUTES "$(((SECONDS - t_start + 30) / 60))"
	cleanup
	trap - EXIT
	report "$BENCH_WORK"
}

# shellcheck source=bench/kafka_report.sh
source "$BENCH_DIR/kafka_report.sh"

[[ ${BASH_SOURCE[0]} == "$0" ]] && main "$@"
