# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # SKIPPED is declared by bench/snapshot.sh
# bench/snapshot_tools.sh: the contenders of bench/snapshot.sh (sourced by it; uses its DB, TABLES,
# ROWS, TIMEOUT, COPY_SESSIONS, CHAMELEON_USER, CHAMELEON_VERSION and SKIPPED).
#
# For each TOOL: setup_TOOL (once; fails, with SKIPPED[TOOL] set to the reason, when the tool
# cannot run) and run_TOOL REP (one measured run into the fresh PostgreSQL database bench_TOOL,
# schema $DB). prepare_run and check_run are the untimed steps around every run.

SRC_URL() { echo "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$DB"; }
DST_URL() { echo "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/bench_$1"; }

# prepare_run TOOL: a fresh target database and a checkpoint, so that no run pays for the
# previous run's dirty pages, then a bounded wait for the shared machine to be quiet. Not timed.
prepare_run() {
	local tool=$1
	bench_pg_recreate_db "bench_$tool" >/dev/null || bench_die "cannot recreate PG database bench_$tool"
	bench_pg_checkpoint >/dev/null
	"prepare_$tool" 2>/dev/null || true
	bench_wait_quiet
}

# check_run TOOL REP: the run counts only when every source table has the same row count and
# the same content hash (all of sysbench's columns, see bench_compare_hashes) in the target;
# otherwise it is marked failed in the results.
check_run() {
	local tool=$1 rep=$2 log="$BENCH_WORK/logs/$1.$2.log"
	if bench_compare_counts "$DB" "bench_$tool" "$DB" 2>>"$log" &&
		bench_compare_hashes "$DB" "bench_$tool" "$DB" "$HASH_COLS" 2>>"$log"; then
		echo "$tool $rep ok" >>"$BENCH_WORK/checks.txt"
	else
		bench_log "$tool #$rep: row counts or content differ from the source, run not counted (see $log)"
		echo "$tool $rep mismatch" >>"$BENCH_WORK/checks.txt"
		bench_mark_failed "$tool" "$rep"
	fi
}

# ---------------------------------------------------------------- sluice

SLUICE_ARGS=()

setup_sluice() {
	if ! bench_build_sluice; then
		SKIPPED[sluice]="go build ./cmd/sluice failed (see $BENCH_WORK/logs/go-build.log)"
		return 1
	fi
	if ! bench_sluice_has snapshot; then
		SKIPPED[sluice]="\`sluice snapshot\` is not implemented yet in this build"
		return 1
	fi
	snapshot_args "$BENCH_SLUICE" sluice SLUICE_ARGS
}

# snapshot_args BIN TOOL ARRAY: ARRAY = BIN's snapshot command into bench_TOOL (the flags its --help lists).
snapshot_args() {
	local bin=$1 tool=$2
	local -n args=$3
	args=(snapshot --source "$(SRC_URL)" --target "$(DST_URL "$tool")")
	BENCH_SLUICE="$bin" bench_have_flag snapshot include && args+=(--include "$DB.*")
	BENCH_SLUICE="$bin" bench_have_flag snapshot drop-existing && args+=(--drop-existing)
	BENCH_SLUICE="$bin" bench_have_flag snapshot restart && args+=(--restart)
	# shellcheck disable=SC2206 # word splitting of the extra arguments is intended
	[[ -n ${BENCH_SLUICE_ARGS:-} ]] && args+=($BENCH_SLUICE_ARGS)
	bench_log "$tool: $bin ${args[*]//sluice:sluice@/sluice:xxxxx@}"
}

prepare_sluice() { :; }

run_sluice() {
	local rep=$1
	bench_measure sluice "$rep" "$BENCH_WORK/logs/sluice.$rep.log" -- \
		timeout --kill-after=30 "$TIMEOUT" "$BENCH_SLUICE" "${SLUICE_ARGS[@]}"
}

# sluice_base: an older build (BENCH_SLUICE_BASE, or BENCH_BASE_REV built by bench_build_base) as a
# contender of its own, into bench_sluice_base, so that a change is measured against the build
# before it in the same interleaved run (BENCH_TOOLS="sluice sluice_base copy").
SLUICE_BASE_ARGS=()

setup_sluice_base() {
	bench_build_base
	snapshot_args "$BENCH_SLUICE_BASE" sluice_base SLUICE_BASE_ARGS
}

prepare_sluice_base() { :; }

run_sluice_base() {
	local rep=$1
	bench_measure sluice_base "$rep" "$BENCH_WORK/logs/sluice_base.$rep.log" -- \
		timeout --kill-after=30 "$TIMEOUT" "$BENCH_SLUICE_BASE" "${SLUICE_BASE_ARGS[@]}"
}

# ---------------------------------------------------------------- pgloader

setup_pgloader() {
	if ! command -v pgloader >/dev/null; then
		bench_log "installing the Debian package pgloader"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
			--no-install-recommends pgloader >"$BENCH_WORK/logs/pgloader-install.log" 2>&1 || {
			SKIPPED[pgloader]="apt-get install pgloader failed (see $BENCH_WORK/logs/pgloader-install.log)"
			return 1
		}
	fi
}

prepare_pgloader() { :; }

# pgloader with its defaults (4 workers, concurrency 1, its own type casts), except the heap:
# the Debian build runs out of its default dynamic space on this data.
run_pgloader() {
	local rep=$1 log
	log="$BENCH_WORK/logs/pgloader.$rep.log"
	bench_measure pgloader "$rep" "$log" -- \
		timeout --kill-after=30 "$TIMEOUT" pgloader --dynamic-space-size 8192 \
		"$(SRC_URL)" "postgresql://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/bench_pgloader" || return 1
	# pgloader can exit 0 after failing tables: its summary's error column tells.
	if grep -Eq '^ *Total import time +[1-9]' "$log"; then
		bench_log "pgloader #$rep reported errors (see $log)"
		bench_mark_failed pgloader "$rep"
	fi
}

# ---------------------------------------------------------------- pg_chameleon

CHAMELEON_HOME="/home/$CHAMELEON_USER"

as_chameleon() { (cd "$CHAMELEON_HOME" && runuser -u "$CHAMELEON_USER" -- "$@"); }

# setup_chameleon: pg_chameleon refuses to run as root, so it runs as an unprivileged OS user
# with a venv on Debian's python3 and its configuration for the sandbox.
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
	} >"$log" 2>&1 || {
		SKIPPED[chameleon]="pg_chameleon setup failed (see $log)"
		return 1
	}
	chameleon_config >"$CHAMELEON_HOME/.pg_chameleon/configuration/default.yml"
	chown "$CHAMELEON_USER:" "$CHAMELEON_HOME/.pg_chameleon/configuration/default.yml"
}

# chameleon_config: pg_chameleon's example configuration with the sandbox's endpoints, source
# database $DB into schema $DB of bench_chameleon, no type overrides (its example turns
# tinyint(1) into boolean; sysbench has none). Copy settings are its defaults (copy_mode file,
# copy_max_memory 300M).
chameleon_config() {
	cat <<EOF
---
pid_dir: '~/.pg_chameleon/pid/'
log_dir: '~/.pg_chameleon/logs/'
log_dest: file
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
  database: "bench_chameleon"
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
      $DB: $DB
    limit_tables:
    skip_tables:
    grant_select_to:
    lock_timeout: "120s"
    my_server_id: 100
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

# prepare_chameleon: its replica catalogue and source registration (not timed: only init_replica
# copies data).
prepare_chameleon() {
	rm -f "$CHAMELEON_HOME"/.pg_chameleon/pid/*
	local log="$BENCH_WORK/logs/chameleon-prepare.log"
	{
		as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" create_replica_schema --config default &&
			as_chameleon "$CHAMELEON_HOME/venv/bin/chameleon" add_source --config default --source mysql
	} >"$log" 2>&1 || bench_log "pg_chameleon create_replica_schema/add_source failed (see $log)"
}

run_chameleon() {
	local rep=$1 log
	log="$BENCH_WORK/logs/chameleon.$rep.log"
	bench_measure chameleon "$rep" "$log" -- \
		timeout --kill-after=30 "$TIMEOUT" runuser -u "$CHAMELEON_USER" -- \
		bash -c "cd '$CHAMELEON_HOME' && exec venv/bin/chameleon init_replica --config default --source mysql --debug"
}

# ---------------------------------------------------------------- the COPY limit

COPY_DIR=""

# setup_copy: export the source rows once to local TSV files (mariadb --batch --raw: sysbench's
# columns hold only digits and '-', so the raw form is valid COPY text; the row counts are
# checked after every load anyway). Reused across runs when the counts still match.
setup_copy() {
	COPY_DIR="$BENCH_WORK/copy"
	mkdir -p "$COPY_DIR"
	local t n have
	while read -r t n _; do
		have="$(cat "$COPY_DIR/$t.count" 2>/dev/null || true)"
		[[ $have == "$n" && -s $COPY_DIR/$t.tsv ]] && continue
		bench_log "exporting $DB.$t to $COPY_DIR/$t.tsv"
		bench_mysql --raw --quick -e "SELECT * FROM \`$DB\`.\`$t\`" >"$COPY_DIR/$t.tsv" || {
			SKIPPED[copy]="exporting $DB.$t failed"
			return 1
		}
		[[ "$(wc -l <"$COPY_DIR/$t.tsv")" -eq $n ]] || {
			SKIPPED[copy]="export of $DB.$t has the wrong number of lines"
			return 1
		}
		echo "$n" >"$COPY_DIR/$t.count"
	done <"$BENCH_WORK/source-tables.txt"
	chmod -R a+rX "$COPY_DIR"
}

prepare_copy() { :; }

# copy_one_table TABLE DBNAME: what the limit includes for one table, in one psql session and one
# transaction: CREATE TABLE with the column types sluice's type mapping gives sysbench's columns
# (int → integer, char(120) → varchar(120), char(60) → varchar(60)), \copy … WITH (FREEZE) (text
# format, streamed through the client like a tool's COPY; FREEZE as sluice loads: no hint-bit
# rewrite of every page by the index builds) from the local file, or with COPY_FROM=pipe from
# `mariadb --batch --raw` reading the source table, then the primary key and index k, ANALYZE.
copy_one_table() {
	local t=$1 pgdb=$2 from
	if [[ ${COPY_FROM:-file} == pipe ]]; then
		from=pstdin
	else
		from="'$COPY_DIR/$t.tsv'"
	fi
	{
		[[ ${COPY_FROM:-file} == pipe ]] &&
			mariadb --no-defaults -h"$BENCH_MY_HOST" -P"$BENCH_MY_PORT" -usluice -psluice --batch -N --raw --quick \
				-e "SELECT * FROM \`$DB\`.\`$t\`"
	} | PGPASSWORD=sluice "$BENCH_PSQL" -X -q -1 -v ON_ERROR_STOP=1 -h "$BENCH_PG_HOST" -p "$BENCH_PG_PORT" -U sluice -d "$pgdb" \
		-c "CREATE TABLE \"$DB\".$t (id integer NOT NULL, k integer NOT NULL DEFAULT 0, c varchar(120) NOT NULL DEFAULT '', pad varchar(60) NOT NULL DEFAULT '')" \
		-c "\\copy \"$DB\".$t FROM $from WITH (FREEZE)" \
		-c "ALTER TABLE \"$DB\".$t ADD PRIMARY KEY (id)" \
		-c "CREATE INDEX ${t}_k_1 ON \"$DB\".$t (k)" \
		-c "ANALYZE \"$DB\".$t"
}

# copy_limit DBNAME: the schema, then the tables over COPY_SESSIONS parallel sessions.
copy_limit() {
	local pgdb=$1
	PGPASSWORD=sluice "$BENCH_PSQL" -X -q -v ON_ERROR_STOP=1 -h "$BENCH_PG_HOST" -p "$BENCH_PG_PORT" -U sluice -d "$pgdb" \
		-c "CREATE SCHEMA \"$DB\"" || return 1
	export -f copy_one_table
	awk '{ print $1 }' "$BENCH_WORK/source-tables.txt" |
		xargs -P "$COPY_SESSIONS" -I{} bash -c 'copy_one_table "$1" "$2"' _ {} "$pgdb"
}

run_copy() {
	local rep=$1
	export DB COPY_DIR COPY_SESSIONS BENCH_WORK BENCH_PSQL BENCH_PG_HOST BENCH_PG_PORT BENCH_MY_HOST BENCH_MY_PORT
	bench_measure copy "$rep" "$BENCH_WORK/logs/copy.$rep.log" -- \
		timeout --kill-after=30 "$TIMEOUT" bash -c "$(declare -f copy_one_table copy_limit); COPY_FROM=file copy_limit bench_copy"
}

# ---------------------------------------------------------------- the pipe (no tool)

# The same as the COPY limit, but each table's rows come straight from the source through
# `mariadb --batch --raw | psql \copy FROM STDIN`: reading MariaDB and writing PostgreSQL on the
# same cores, no type conversion, no consistent snapshot. What a tool could reach on this box
# if its own work cost nothing.
setup_pipe() { :; }
prepare_pipe() { :; }

run_pipe() {
	local rep=$1
	export DB COPY_DIR COPY_SESSIONS BENCH_WORK BENCH_PSQL BENCH_PG_HOST BENCH_PG_PORT BENCH_MY_HOST BENCH_MY_PORT
	bench_measure pipe "$rep" "$BENCH_WORK/logs/pipe.$rep.log" -- \
		timeout --kill-after=30 "$TIMEOUT" bash -c "$(declare -f copy_one_table copy_limit); COPY_FROM=pipe copy_limit bench_pipe"
}

# ---------------------------------------------------------------- profile (untimed)

# profile_run TOOL: one extra, uncounted run of TOOL under `perf record -a -g` (whole machine, so
# mariadbd and postgres are in it too); writes $BENCH_WORK/profile/{by-command,TOOL,postgres,
# mariadbd}.txt. Needs perf (Debian linux-perf) and perf_event access (root).
profile_run() {
	local tool=$1 dir="$BENCH_WORK/profile" comm
	command -v perf >/dev/null || {
		bench_log "perf not installed: no profile (apt-get install linux-perf)"
		return 1
	}
	mkdir -p "$dir"
	prepare_run "$tool"
	perf record -q -a -g -F 499 -o "$dir/perf.data" >"$dir/perf-record.log" 2>&1 &
	local perf_pid=$! saved=$BENCH_RESULTS
	sleep 1
	BENCH_RESULTS="$dir/results.tsv"
	"run_$tool" profile || bench_log "$tool failed under perf (see $BENCH_WORK/logs/$tool.profile.log)"
	BENCH_RESULTS=$saved
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
	[[ -s $dir/perf.data ]] || {
		bench_log "perf record wrote nothing (see $dir/perf-record.log)"
		return 1
	}
	perf report -i "$dir/perf.data" --no-children --sort comm --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/' | head -n 12 >"$dir/by-command.txt" || true
	for comm in "$(tool_comm "$tool")" postgres mariadbd; do
		perf report -i "$dir/perf.data" --no-children --comms "$comm" --sort dso,symbol --stdio -g none 2>/dev/null |
			awk '$1 ~ /%$/' >"$dir/$comm.all.txt" || true
		head -n 25 "$dir/$comm.all.txt" >"$dir/$comm.txt"
	done
	profile_go_groups "$dir/$(tool_comm "$tool").all.txt" >"$dir/groups.txt" || true
	perf report -i "$dir/perf.data" --children --comms postgres --sort symbol --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/ { print $1, $4 }' | awk '
			$2 == "DoCopy" { print $1, "COPY (DoCopy), all of it" }
			$2 == "ExecInsertIndexTuples" { print $1, "  of which index upkeep during COPY (ExecInsertIndexTuples)" }
			$2 == "heap_multi_insert" { print $1, "  of which heap inserts (heap_multi_insert)" }
			$2 == "NextCopyFrom" { print $1, "  of which parsing the COPY stream (NextCopyFrom)" }
			$2 == "index_build" { print $1, "CREATE INDEX / ADD PRIMARY KEY after the data (index_build)" }
			$2 == "analyze_rel" { print $1, "ANALYZE (analyze_rel)" }
			$2 == "XLogInsert" { print $1, "WAL records (XLogInsert, inside the above)" }
			$2 == "exec_simple_query" || $2 == "exec_execute_message" { print $1, "plain statements (" $2 ")" }
		' >"$dir/postgres-inclusive.txt" || true
}

# profile_go_groups FILE: a Go program's flat profile (perf report --sort dso,symbol lines)
# summed by what the time went to: GC, allocation, other runtime, maps, hashing, each package.
profile_go_groups() {
	awk '{
		p = $1; sub(/%/, "", p); sym = $4
		if ($2 ~ /kernel/) g = "kernel (syscalls, page faults)"
		else if (sym ~ /^runtime\.(malloc|newobject|makeslice|growslice|nextFree|memclr|(.*)alloc)/ || sym ~ /^runtime\.mallocgc/) g = "runtime: allocation"
		else if (sym ~ /^(runtime|internal\/runtime\/gc)/ && sym ~ /(gc|GC|mark|Mark|scan|Scan|sweep|Sweep|wbBuf|Span|heapBits|HeapBits|findObject|greyobject|tryDefer)/) g = "runtime: garbage collector"
		else if (sym ~ /^(internal\/runtime\/maps|runtime\.map)/) g = "maps"
		else if (sym ~ /^runtime\./ || sym ~ /^internal\/runtime/) g = "runtime: other (scheduler, memmove, ...)"
		else if (match(sym, /sha256|sha1|md5|crc32|xxhash|fnv/)) g = "hashing (" substr(sym, RSTART, RLENGTH) ")"
		else if (sym ~ /^github\.com\//) {
			split(sym, a, "/"); split(a[3], b, "."); g = a[2] "/" b[1]
			if (a[2] == "sluice-db") { split(a[5], b, "."); g = "sluice internal/" b[1] }
			else if (a[2] == "jackc") { i = (a[4] ~ /^v[0-9]/) ? 5 : 4; split(a[i], b, "."); g = "pgx " b[1] }
		}
		else { split(sym, a, "."); g = a[1] }
		s[g] += p; tot += p
	} END {
		for (k in s) printf "%6.2f%%  %5.1f%%  %s\n", s[k], 100 * s[k] / tot, k
	}' "$1" | sort -rn | head -n 15
}

# tool_comm TOOL: the process name perf shows for TOOL.
tool_comm() {
	case $1 in
	sluice) echo sluice ;;
	pgloader) echo pgloader ;;
	chameleon) echo chameleon ;;
	*) echo psql ;;
	esac
}
