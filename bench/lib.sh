# shellcheck shell=bash
# bench/lib.sh: shared helpers for sluice's benchmark scripts (bench/*.sh). Source it, do not run it:
#
#   BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
#   source "$BENCH_DIR/lib.sh"
#   bench_init replicate            # root check, sandbox up + env, work dir, results file
#
# It follows /work/shared/BENCHMARKS.md (docs: bench/README.md): every figure is measured 3 times
# (BENCH_REPS), the median is reported with min and max, and the CPU seconds of the tool, mariadbd
# and postgres are recorded next to each run so the reader sees who was the bottleneck.
#
# Variables after bench_init NAME:
#   BENCH_ROOT       the repository root;  BENCH_DOC  docs/benchmarks.md
#   BENCH_WORK       scratch dir (default /tmp/sluice-bench/NAME; override with BENCH_WORK)
#   BENCH_RESULTS    TSV of measured runs ($BENCH_WORK/results.tsv, emptied by bench_init unless
#                    BENCH_REPORT_ONLY is set)
#   BENCH_REPS       repetitions (default 3)
#   BENCH_SLUICE     the sluice binary under test (default $BENCH_WORK/sluice once bench_init ran,
#                    built by bench_build_sluice; set BENCH_SLUICE to test another binary)
#   SLUICE_SOURCE, SLUICE_TARGET, SLUICE_TEST_MYSQL_ADMIN, SLUICE_TEST_PG_ADMIN  (scripts/sandbox env)
#   BENCH_MY_HOST/PORT, BENCH_PG_HOST/PORT   sandbox endpoints (127.0.0.1:13306, 127.0.0.1:15432;
#                                            BENCH_SOURCE=mysql: MySQL 9.7 on 127.0.0.1:13307)
#   BENCH_MY_PIDFILE, BENCH_PG_PIDFILE        the sandbox servers' pid files (CPU accounting)
#   BENCH_PSQL       the psql binary itself (not Debian's Perl wrapper /usr/bin/psql)
#
# Functions (all print errors to stderr; the ones returning data print it on stdout):
#   bench_log MSG... / bench_die MSG...        progress to stderr / abort
#   bench_init NAME                            see above
#   bench_sandbox_env                          start the sandbox if needed, export its env
#   bench_mysql [mariadb args...]              mariadb client, root over TCP (batch, no headers)
#   bench_psql DB [psql args...]               psql as postgres over TCP, ON_ERROR_STOP
#   bench_pg_recreate_db NAME [OWNER]          drop (WITH FORCE) and create a PG database (owner sluice)
#   bench_pg_drop_db NAME                      drop it if it exists
#   bench_pg_checkpoint                        CHECKPOINT, so one run does not pay for the last one's writes
#   bench_sysbench_prepare DB TABLES ROWS      sysbench oltp_common prepare; skipped when DB already has
#                                              exactly sbtest1..sbtestTABLES with ROWS rows each
#   bench_my_table_stats DB                    lines "table rows bytes" (bytes = data_length+index_length
#                                              after ANALYZE TABLE; rows = exact COUNT(*))
#   bench_my_total DB rows|bytes               sum of the above
#   bench_pg_counts DB SCHEMA                  lines "table rows" (exact count(*)) of the PG tables
#   bench_compare_counts MYDB PGDB PGSCHEMA    0 when every source table has the same row count in PG
#   bench_compare_hashes MYDB PGDB PGSCHEMA COLS  0 when every source table has the same content
#                                              hash (sha256 of concat_ws('#', COLS), XORed) in PG
#   bench_cpu_mariadbd / bench_cpu_postgres    cumulative CPU seconds of the sandbox servers (postgres:
#                                              postmaster + reaped children + live children)
#   bench_wait_quiet                           wait (bounded) until the shared machine is mostly idle
#   bench_measure LABEL REP LOG -- CMD...      run CMD (stdout+stderr to LOG), append one TSV line to
#                                              $BENCH_RESULTS: label rep rc wall_s peak_rss_kb tool_cpu_s
#                                              mariadbd_cpu_s postgres_cpu_s idle_pct_before (from
#                                              bench_wait_quiet, or -). Returns CMD's exit code.
#   bench_mark_failed LABEL REP                mark that run failed (e.g. its correctness check failed)
#   bench_stat LABEL COLUMN                    "median min max n" over the successful runs of LABEL
#   bench_fmt NUMBER [DECIMALS]                printf helper
#   bench_machine_md                           markdown bullets: date, machine, kernel, load, versions
#   bench_doc_section NAME FILE                replace (or append) section "## NAME" of docs/benchmarks.md
#   bench_publish NAME FILE                    print FILE (BENCH_NO_DOC=1) or make it section "## NAME"
#                                              with the heading "## NAME" + FILE's content (FILE has no
#                                              "## " lines; use "### " inside); refreshes the header;
#                                              keeps the other sections intact
#   bench_build_sluice                         build $BENCH_SLUICE from the committed HEAD (git archive;
#                                              BENCH_SLUICE_FROM=tree: the work tree as it is); sets
#                                              BENCH_SLUICE_COMMIT
#   bench_sluice_has CMD                       0 when `sluice CMD --help` is implemented
#   bench_have_flag CMD FLAG                   0 when `sluice CMD --help` lists --FLAG
#
# Peak RSS is the largest single process of the command's tree (GNU time's %M = ru_maxrss of the
# waited-for children), tool CPU is user+system of that whole tree.

set -o pipefail

BENCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH_DOC="${BENCH_DOC:-$BENCH_ROOT/docs/benchmarks.md}"
BENCH_REPS="${BENCH_REPS:-3}"
BENCH_SANDBOX_DIR="${SLUICE_SANDBOX_DIR:-/tmp/sluice-sandbox}"
BENCH_MY_PIDFILE="$BENCH_SANDBOX_DIR/mysql/mariadbd.pid"
BENCH_PG_PIDFILE="$BENCH_SANDBOX_DIR/pg/data/postmaster.pid"
BENCH_CLK_TCK="$(getconf CLK_TCK)"
# The real psql binary: Debian's /usr/bin/psql is a Perl wrapper that costs ~50 ms per start.
BENCH_PSQL="${BENCH_PSQL:-$(find /usr/lib/postgresql/*/bin/psql 2>/dev/null | sort -V | tail -n1)}"
BENCH_PSQL="${BENCH_PSQL:-psql}"

bench_log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bench_die() {
	printf '[bench] ERROR: %s\n' "$*" >&2
	exit 1
}

bench_init() {
	local name=$1
	[[ $EUID -eq 0 ]] || bench_die "run as root (the sandbox and the peers' setup need it)"
	BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/$name}"
	mkdir -p "$BENCH_WORK/logs"
	BENCH_RESULTS="$BENCH_WORK/results.tsv"
	[[ -n ${BENCH_REPORT_ONLY:-} ]] || : >"$BENCH_RESULTS"
	BENCH_SLUICE="${BENCH_SLUICE:-$BENCH_WORK/sluice}"
	bench_require_time
	bench_sandbox_env
}

# bench_require_time installs GNU time (Debian package `time`) when /usr/bin/time is missing.
bench_require_time() {
	[[ -x /usr/bin/time ]] && return 0
	bench_log "installing the Debian package time"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq time >&2 ||
		bench_die "apt-get install time failed"
}

bench_sandbox_env() {
	local envs
	envs="$(bash "$BENCH_ROOT/scripts/sandbox" start)" || bench_die "scripts/sandbox start failed"
	eval "$envs"
	export SLUICE_SOURCE SLUICE_TARGET SLUICE_TEST_MYSQL_ADMIN SLUICE_TEST_PG_ADMIN
	# mysql://root:root@127.0.0.1:13306/ -> host and port
	local hp=${SLUICE_TEST_MYSQL_ADMIN#*@}
	hp=${hp%%/*}
	BENCH_MY_HOST=${hp%:*} BENCH_MY_PORT=${hp##*:}
	hp=${SLUICE_TEST_PG_ADMIN#*@}
	hp=${hp%%/*}
	BENCH_PG_HOST=${hp%:*} BENCH_PG_PORT=${hp##*:}
	# BENCH_SOURCE=mysql: the sandbox's MySQL 9.7 is the source instead of MariaDB.
	if [[ ${BENCH_SOURCE:-mariadb} == mysql ]]; then
		[[ -n ${SLUICE_TEST_MYSQL9_ADMIN:-} ]] || bench_die "BENCH_SOURCE=mysql: the sandbox runs no MySQL 9 (SLUICE_SANDBOX_MYSQL9=0?)"
		hp=${SLUICE_TEST_MYSQL9_ADMIN#*@}
		hp=${hp%%/*}
		BENCH_MY_HOST=${hp%:*} BENCH_MY_PORT=${hp##*:}
		SLUICE_TEST_MYSQL_ADMIN=$SLUICE_TEST_MYSQL9_ADMIN
	fi
}

# ---------------------------------------------------------------- clients

bench_mysql() {
	mariadb --no-defaults -h"$BENCH_MY_HOST" -P"$BENCH_MY_PORT" -uroot -proot --batch -N "$@"
}

bench_psql() {
	local db=$1
	shift
	PGPASSWORD=postgres PGOPTIONS='-c client_min_messages=warning' "$BENCH_PSQL" -X -q -v ON_ERROR_STOP=1 -h "$BENCH_PG_HOST" -p "$BENCH_PG_PORT" \
		-U postgres -d "$db" "$@"
}

bench_pg_drop_db() {
	bench_psql postgres -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)"
}

bench_pg_recreate_db() {
	local name=$1 owner=${2:-sluice}
	bench_pg_drop_db "$name" && bench_psql postgres -c "CREATE DATABASE \"$name\" OWNER \"$owner\""
}

bench_pg_checkpoint() { bench_psql postgres -c CHECKPOINT; }

# ---------------------------------------------------------------- data sets

# bench_sysbench_has DB TABLES ROWS: DB holds exactly the tables sbtest1..sbtestTABLES, ROWS rows each.
bench_sysbench_has() {
	local db=$1 tables=$2 rows=$3 names i n
	names="$(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$db' ORDER BY table_name")" || return 1
	[[ "$(wc -w <<<"$names")" -eq $tables ]] || return 1
	for ((i = 1; i <= tables; i++)); do
		grep -qx "sbtest$i" <<<"$names" || return 1
		n="$(bench_mysql -e "SELECT COUNT(*) FROM \`$db\`.sbtest$i")" || return 1
		[[ $n -eq $rows ]] || return 1
	done
}

bench_sysbench_prepare() {
	local db=$1 tables=$2 rows=$3
	if bench_sysbench_has "$db" "$tables" "$rows"; then
		bench_log "sysbench data $db: $tables tables x $rows rows already there, reusing it"
		return 0
	fi
	bench_log "sysbench prepare $db: $tables tables x $rows rows (a few minutes)"
	rm -f "$BENCH_WORK/hash-$db.txt"
	bench_mysql -e "DROP DATABASE IF EXISTS \`$db\`; CREATE DATABASE \`$db\`" || return 1
	local t0=$SECONDS
	sysbench oltp_common --db-driver=mysql --mysql-host="$BENCH_MY_HOST" --mysql-port="$BENCH_MY_PORT" \
		--mysql-user=root --mysql-password=root --mysql-db="$db" \
		--tables="$tables" --table-size="$rows" --threads=2 prepare >"$BENCH_WORK/logs/sysbench-prepare-$db.log" 2>&1 ||
		{
			tail -n 20 "$BENCH_WORK/logs/sysbench-prepare-$db.log" >&2
			return 1
		}
	bench_log "sysbench prepare took $((SECONDS - t0)) s"
	bench_sysbench_has "$db" "$tables" "$rows" || {
		bench_log "sysbench prepare of $db did not produce $tables x $rows rows"
		return 1
	}
}

bench_my_table_stats() {
	local db=$1 t n b
	for t in $(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$db' AND table_type='BASE TABLE' ORDER BY table_name"); do
		bench_mysql -e "ANALYZE TABLE \`$db\`.\`$t\`" >/dev/null || return 1
		n="$(bench_mysql -e "SELECT COUNT(*) FROM \`$db\`.\`$t\`")" || return 1
		b="$(bench_mysql -e "SELECT data_length+index_length FROM information_schema.tables WHERE table_schema='$db' AND table_name='$t'")" || return 1
		printf '%s %s %s\n' "$t" "$n" "$b"
	done
}

bench_my_total() {
	local db=$1 what=$2 col
	case $what in rows) col=2 ;; bytes) col=3 ;; *) bench_die "bench_my_total: rows|bytes" ;; esac
	bench_my_table_stats "$db" | awk -v c=$col '{s+=$c} END{printf "%d\n", s}'
}

bench_pg_counts() {
	local db=$1 schema=$2 t
	for t in $(bench_psql "$db" -At -c "SELECT tablename FROM pg_tables WHERE schemaname='$schema' ORDER BY 1"); do
		printf '%s %s\n' "$t" "$(bench_psql "$db" -At -c "SELECT count(*) FROM \"$schema\".\"$t\"")"
	done
}

# bench_compare_counts MYDB PGDB PGSCHEMA: every table of MYDB has the same count(*) in PGDB.PGSCHEMA
# (extra PG tables are ignored: tools keep their own state tables). Differences go to stderr.
bench_compare_counts() {
	local mydb=$1 pgdb=$2 schema=$3 t n pgn rc=0
	while read -r t n; do
		pgn="$(bench_psql "$pgdb" -At -c "SELECT count(*) FROM \"$schema\".\"$t\"" </dev/null 2>/dev/null)" || pgn=missing
		if [[ $pgn != "$n" ]]; then
			bench_log "row count mismatch: $mydb.$t has $n rows, $pgdb $schema.$t has $pgn"
			rc=1
		fi
	done < <(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$mydb' AND table_type='BASE TABLE'" |
		while read -r t; do printf '%s %s\n' "$t" "$(bench_mysql -e "SELECT COUNT(*) FROM \`$mydb\`.\`$t\`" </dev/null)"; done)
	return $rc
}

# bench_hash_my DB TABLE COLS / bench_hash_pg DB SCHEMA TABLE COLS: an order-independent hash of
# the rows (XOR of the first 64 bits of sha256(concat_ws('#', COLS))), as 16 hex digits, computed
# inside each server (SHA-256: MySQL 9 has no built-in MD5()). Equal only if both sides render
# every column to the same text: fine for integers and trailing-space-free strings such as
# sysbench's (COLS like "id,k,c,pad").
bench_hash_my() {
	bench_mysql -e "SELECT LPAD(LOWER(HEX(BIT_XOR(CAST(CONV(LEFT(SHA2(CONCAT_WS('#',$3),256),16),16,10) AS UNSIGNED)))),16,'0') FROM \`$1\`.\`$2\`"
}

bench_hash_pg() {
	# Each column as ::text: concat_ws would keep the blank padding of a char(n) (bpchar) column,
	# which MySQL strips when it reads CHAR, and a tool may map CHAR(n) to char(n).
	local cols
	cols="$(sed 's/ *, */::text,/g; s/$/::text/' <<<"$4")"
	bench_psql "$1" -At -c "SELECT lpad(to_hex(coalesce(bit_xor(('x' || left(encode(sha256(convert_to(concat_ws('#',$cols),'UTF8')),'hex'),16))::bit(64)::bigint),0)),16,'0') FROM \"$2\".\"$3\""
}

# bench_compare_hashes MYDB PGDB SCHEMA COLS: every table of MYDB hashes the same in PGDB.SCHEMA.
# The source's hashes are cached in $BENCH_WORK/hash-MYDB.txt (delete it when the data changes;
# bench_sysbench_prepare does).
bench_compare_hashes() {
	local mydb=$1 pgdb=$2 schema=$3 cols=$4 cache="$BENCH_WORK/hash-$1.txt" t h pgh rc=0
	if [[ ! -s $cache ]]; then
		for t in $(bench_mysql -e "SELECT table_name FROM information_schema.tables WHERE table_schema='$mydb' AND table_type='BASE TABLE' ORDER BY 1"); do
			printf '%s %s\n' "$t" "$(bench_hash_my "$mydb" "$t" "$cols" </dev/null)"
		done >"$cache.tmp" && mv "$cache.tmp" "$cache"
	fi
	while read -r t h; do
		pgh="$(bench_hash_pg "$pgdb" "$schema" "$t" "$cols" </dev/null 2>/dev/null)" || pgh=missing
		if [[ $pgh != "$h" ]]; then
			bench_log "content hash mismatch: $mydb.$t is $h, $pgdb $schema.$t is $pgh"
			rc=1
		fi
	done <"$cache"
	return $rc
}

# ---------------------------------------------------------------- CPU accounting

bench_pidfile_pid() { head -n1 "$1" 2>/dev/null | tr -dc '0-9'; }

# _bench_ticks_of PID: utime+stime+cutime+cstime (clock ticks) of one process, 0 if gone.
# Fields are counted after the last ')' because the command name may hold spaces.
_bench_ticks_of() {
	awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0
}

_bench_ticks_to_s() { awk -v t="$1" -v hz="$BENCH_CLK_TCK" 'BEGIN{printf "%.2f\n", t / hz}'; }

bench_cpu_mariadbd() {
	local pid
	pid="$(bench_pidfile_pid "$BENCH_MY_PIDFILE")"
	[[ -n $pid ]] || bench_die "no mariadbd pid in $BENCH_MY_PIDFILE"
	_bench_ticks_to_s "$(_bench_ticks_of "$pid")"
}

# bench_cpu_postgres: the postmaster's own and its reaped children's CPU (cutime/cstime) plus the
# live children's (backends, autovacuum, checkpointer, ...). A backend that ends between the two
# reads can be missed or counted twice: a few ticks at most.
bench_cpu_postgres() {
	local pid own kids
	pid="$(bench_pidfile_pid "$BENCH_PG_PIDFILE")"
	[[ -n $pid ]] || bench_die "no postmaster pid in $BENCH_PG_PIDFILE"
	own="$(_bench_ticks_of "$pid")"
	kids="$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$pid" '{ sub(/^.*\) /, ""); if ($2 == p) s += $12 + $13 + $14 + $15 } END { print s + 0 }')"
	_bench_ticks_to_s "$((own + kids))"
}

# ---------------------------------------------------------------- measuring

# bench_idle_pct SECONDS: percentage of CPU time idle on the whole machine over the next SECONDS.
bench_idle_pct() {
	local a b
	a="$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)"
	sleep "$1"
	b="$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)"
	awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ")
		d = y[2] - x[2]; printf "%.0f\n", (d > 0) ? 100 * (y[1] - x[1]) / d : 100 }'
}

# bench_wait_quiet: the machine is shared, so before a measured run wait (up to BENCH_QUIET_MAX,
# default 60 s) until the CPUs were at least BENCH_QUIET_IDLE (default 75) % idle for 2 s.
# The idle % seen last goes into the next bench_measure line (column 9).
bench_wait_quiet() {
	local want=${BENCH_QUIET_IDLE:-75} deadline=$((SECONDS + ${BENCH_QUIET_MAX:-60})) idle
	while :; do
		idle="$(bench_idle_pct 2)"
		((idle >= want)) && break
		if ((SECONDS >= deadline)); then
			bench_log "machine still busy (${idle}% idle < ${want}%) after ${BENCH_QUIET_MAX:-60}s; measuring anyway"
			break
		fi
	done
	BENCH_IDLE_BEFORE=$idle
}

bench_measure() {
	local label=$1 rep=$2 log=$3
	shift 3
	[[ ${1:-} == -- ]] && shift
	local tf my0 pg0 my1 pg1 rc=0 wall rss usr sys
	tf="$(mktemp)"
	my0="$(bench_cpu_mariadbd)" pg0="$(bench_cpu_postgres)"
	/usr/bin/time -f '%e %M %U %S' -o "$tf" "$@" >"$log" 2>&1 || rc=$?
	my1="$(bench_cpu_mariadbd)" pg1="$(bench_cpu_postgres)"
	# GNU time writes "Command exited with non-zero status N" before the figures on failure.
	read -r wall rss usr sys < <(tail -n1 "$tf")
	rm -f "$tf"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$rep" "$rc" "$wall" "$rss" \
		"$(awk -v u="$usr" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')" \
		"$(awk -v a="$my0" -v b="$my1" 'BEGIN{printf "%.2f", b - a}')" \
		"$(awk -v a="$pg0" -v b="$pg1" 'BEGIN{printf "%.2f", b - a}')" "${BENCH_IDLE_BEFORE:--}" >>"$BENCH_RESULTS"
	BENCH_IDLE_BEFORE=-
	bench_log "$label #$rep: exit $rc, ${wall}s, peak RSS $((rss / 1024)) MB (log $log)"
	return $rc
}

bench_mark_failed() {
	local label=$1 rep=$2
	awk -F'\t' -v OFS='\t' -v l="$label" -v r="$rep" '$1 == l && $2 == r && $3 == 0 { $3 = "check" } { print }' \
		"$BENCH_RESULTS" >"$BENCH_RESULTS.tmp" && mv "$BENCH_RESULTS.tmp" "$BENCH_RESULTS"
}

# bench_stat LABEL COLUMN: COLUMN is one of wall rss tool my pg. Prints "median min max n"
# (n = number of successful runs; "- - - 0" when none).
bench_stat() {
	local label=$1 col
	case $2 in wall) col=4 ;; rss) col=5 ;; tool) col=6 ;; my) col=7 ;; pg) col=8 ;; *) bench_die "bench_stat: unknown column $2" ;; esac
	awk -F'\t' -v l="$label" -v c=$col '$1 == l && $3 == "0" { print $c }' "$BENCH_RESULTS" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (NR == 0) { print "- - - 0"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR], NR }'
}

bench_fmt() { awk -v v="$1" -v d="${2:-1}" 'BEGIN{ if (v == "-" || v == "") print "-"; else printf "%.*f\n", d, v }'; }

# ---------------------------------------------------------------- describing the machine

_bench_version() { "$@" 2>/dev/null | head -n1 || echo "not installed"; }

bench_machine_md() {
	local cpu
	cpu="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	cat <<EOF
- date: $(date -u '+%Y-%m-%d %H:%M UTC')
- machine: $(nproc) cores ($cpu), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME")
- load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the box is shared with other work; ratios come from interleaved runs)
- MariaDB: $(bench_mysql -e 'SELECT VERSION()' 2>/dev/null || echo unknown); PostgreSQL: $(bench_psql postgres -At -c 'SHOW server_version' 2>/dev/null || echo unknown)
- sysbench: $(_bench_version sysbench --version); Go: $(_bench_version go version); sluice: $(_bench_version "$BENCH_SLUICE" version), built from commit ${BENCH_SLUICE_COMMIT:-$(git -C "$BENCH_ROOT" rev-parse --short HEAD 2>/dev/null)}
EOF
}

# ---------------------------------------------------------------- docs/benchmarks.md

_bench_doc_header() {
	cat <<'EOF'
# sluice benchmarks

Produced by `bench/run.sh snapshot|replicate|verify|all` (`make bench`) and `bench/run.sh
mysql-target|reverse`; method in
[bench/README.md](../bench/README.md), rules in the team's BENCHMARKS.md:

- Everything runs on one shared 2-core machine: the sandbox MariaDB 10.11 and PostgreSQL 15
  (`scripts/sandbox`), the tool under test and the load generator. Absolute numbers are noisy;
  the ratios, measured in the same script minutes apart, are what counts.
- Each figure is run 3 times, the tools interleaved (sluice, peer, peer, limit, then again); the
  table shows the median with min–max of the seconds.
- Data comes from `sysbench oltp_common prepare`; MB = MariaDB `information_schema.tables`
  data_length + index_length (after `ANALYZE TABLE`), MB/s = that size / seconds.
- CPU seconds: the tool from GNU time (user+system of its process tree); mariadbd and postgres
  (postmaster and all its backends) from `/proc/<pid>/stat` before and after the run.
- A run counts only if the target equals the source afterwards; each section says how that was checked.

EOF
}

# bench_publish NAME FILE: a report's last step: with BENCH_NO_DOC set, FILE is printed and docs/ left
# alone; else FILE becomes the "## NAME" section of docs/benchmarks.md.
bench_publish() {
	if [[ -n ${BENCH_NO_DOC:-} ]]; then
		cat "$2"
	else
		bench_doc_section "$1" "$2"
		bench_log "wrote the $1 section of $BENCH_DOC"
	fi
}

bench_doc_section() {
	local name=$1 file=$2 tmp
	mkdir -p "$(dirname "$BENCH_DOC")"
	[[ -f $BENCH_DOC ]] || _bench_doc_header >"$BENCH_DOC"
	tmp="$(mktemp)"
	# Header = everything before the first "## " line: replaced by the current header text.
	{
		_bench_doc_header
		awk -v name="## $name" -v file="$file" '
			function emit(   line) {
				print name
				while ((getline line < file) > 0) print line
				close(file); print ""; done = 1
			}
			/^## / { started = 1 }
			!started { next }
			/^## / && skipping { skipping = 0 }
			$0 == name { emit(); skipping = 1; next }
			!skipping { print }
			END { if (!done) emit() }
		' "$BENCH_DOC"
	} >"$tmp"
	mv "$tmp" "$BENCH_DOC"
}

# ---------------------------------------------------------------- sluice binary

# bench_build_sluice: by default (BENCH_SLUICE_FROM=head) builds the committed HEAD, exported with
# git archive into $BENCH_WORK/src, so that other engineers' uncommitted edits in the shared work
# tree neither break nor change the binary under test; BENCH_SLUICE_FROM=tree builds the work tree
# as it is. Sets BENCH_SLUICE_COMMIT.
bench_build_sluice() {
	local log="${BENCH_WORK:-/tmp}/logs/go-build.log" src
	if [[ ${BENCH_SLUICE_FROM:-head} == none ]]; then
		BENCH_SLUICE_COMMIT="unknown (BENCH_SLUICE=$BENCH_SLUICE given)"
		[[ -x $BENCH_SLUICE ]]
		return
	elif [[ ${BENCH_SLUICE_FROM:-head} == tree ]]; then
		src=$BENCH_ROOT
		BENCH_SLUICE_COMMIT="$(git -C "$BENCH_ROOT" rev-parse --short HEAD) + uncommitted work tree"
	else
		src="${BENCH_WORK:-/tmp/sluice-bench}/src"
		rm -rf "$src" && mkdir -p "$src"
		git -C "$BENCH_ROOT" archive HEAD | tar -x -C "$src" || {
			bench_log "git archive HEAD failed"
			return 1
		}
		BENCH_SLUICE_COMMIT="$(git -C "$BENCH_ROOT" rev-parse --short HEAD)"
	fi
	mkdir -p "$(dirname "$BENCH_SLUICE")"
	(cd "$src" && go build -o "$BENCH_SLUICE" ./cmd/sluice) >"$log" 2>&1 || {
		bench_log "go build ./cmd/sluice ($BENCH_SLUICE_COMMIT) failed: $(head -n 5 "$log")"
		return 1
	}
	bench_log "built $BENCH_SLUICE from $BENCH_SLUICE_COMMIT"
}

bench_sluice_has() {
	local help
	help="$("$BENCH_SLUICE" "$1" --help 2>&1)" || return 1
	! grep -qi 'not implemented' <<<"$help"
}

# (The help is captured first: with pipefail, grep -q closing the pipe early would fail the check.)
bench_have_flag() {
	local help
	help="$("$BENCH_SLUICE" "$1" --help 2>&1)" || return 1
	grep -q -- "^ *\(-[a-zA-Z], \)\?--$2\b" <<<"$help"
}

# ---------------------------------------------------------------- processes the scripts start

# pkill_tree PID: SIGTERM to PID and its descendants (all started by this script), by PID.
pkill_tree() {
	local pid=$1 kid
	for kid in $(ps -o pid= --ppid "$pid" 2>/dev/null); do pkill_tree "$kid"; done
	{
		kill "$pid"
		wait "$pid"
	} 2>/dev/null
	return 0
}

# bench_stop_timed PID SIGNAL SECONDS: PID runs the tool under GNU time; SIGNAL goes to the tool
# (time's child) so that it ends cleanly (sluice commits what it received); after SECONDS the whole
# tree is killed. Nothing when PID is empty.
bench_stop_timed() {
	local pid=$1 sig=$2 limit=$3 kid start=$SECONDS
	[[ -n $pid ]] || return 0
	kid="$(ps -o pid= --ppid "$pid" | head -n1 | tr -d ' ')"
	[[ -n $kid ]] && kill "-$sig" "$kid" 2>/dev/null
	while kill -0 "$pid" 2>/dev/null && ((SECONDS - start < limit)); do sleep 0.2; done
	kill -0 "$pid" 2>/dev/null && pkill_tree "$pid"
	wait "$pid" 2>/dev/null
	return 0
}

# tool_cpu / tool_rss_mb FILE: CPU seconds (user + system) and peak RSS in MB from the last line of a
# GNU time log written with -f "%e %M %U %S".
tool_cpu() { tail -n1 "$1" 2>/dev/null | awk '{ printf "%.2f", $3 + $4 }'; }
tool_rss_mb() { tail -n1 "$1" 2>/dev/null | awk '{ printf "%d", $2 / 1024 }'; }

# bench_build_base: the A/B scripts' older build, BENCH_BASE_REV (default HEAD~1) of the repository
# built into $BENCH_WORK/sluice-base, unless BENCH_SLUICE_BASE names a binary already. Sets
# BENCH_SLUICE_BASE and BENCH_BASE_COMMIT.
bench_build_base() {
	[[ -n ${BENCH_SLUICE_BASE:-} ]] && return 0
	local rev="${BENCH_BASE_REV:-HEAD~1}" src="$BENCH_WORK/base-src"
	rm -rf "$src" && mkdir -p "$src"
	git -C "$BENCH_ROOT" archive "$rev" | tar -x -C "$src" || bench_die "git archive $rev"
	(cd "$src" && go build -o "$BENCH_WORK/sluice-base" ./cmd/sluice) || bench_die "build $rev"
	BENCH_SLUICE_BASE="$BENCH_WORK/sluice-base"
	BENCH_BASE_COMMIT="$(git -C "$BENCH_ROOT" rev-parse --short "$rev")"
}
