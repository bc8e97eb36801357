#!/usr/bin/env bash
# bench/alter.sh: online schema change under load (issue 11, "Benchmark"). The same ALTER of a
# 1M-row sysbench table, on a fresh copy each time, while sysbench oltp_write_only writes it
# (server-side prepared statements, --report-interval=1), by three tools one after the other:
#
#   sluice  `sluice alter --method copy` (binlog-driven shadow copy, checksum, locked RENAME)
#   ptosc   pt-online-schema-change (Debian percona-toolkit: triggers, copy, RENAME)
#   native  MariaDB's own `ALTER TABLE … , ALGORITHM=INPLACE, LOCK=NONE`
#
# Each run: fresh copy of the table; load for BENCH_BEFORE s; the ALTER (timed, CPU of the tool,
# of mariadbd and of sysbench); load for BENCH_AFTER s more; stop. Reported per run: seconds to
# finish, sysbench tps before / during / after and its errors in each window (sysbench is told to
# ignore no error silently: --mysql-ignore-errors=all keeps it running and counts every error in
# err/s), the worst 1-s tps during the ALTER, the longest write wait seen by a probe client (one
# UPDATE every 20 ms, timed inside the server) before and during the ALTER, the cut-over's
# write block as sluice reports it, and whether the result is right: the table is compared (row
# count, content hash of every column, CHECKSUM TABLE, SHOW CREATE TABLE) with a reference built
# without any online tool: the pristine copy, the same ALTER applied offline, then every row
# change the clients made to the table, read back from the binlog (mariadb-binlog -v: the last
# image of each key wins). Then a run of sluice alone at BENCH_MAX_THREADS (16) threads, the
# highest write rate the source sustains here.
#
# Everything runs on a throwaway MariaDB (bench/mysql_target_servers.sh: binlog ROW/FULL, the
# sandbox's settings) that the script starts and stops; the sandbox's servers are not used.
# Results: the "## alter" section of docs/benchmarks.md and docs/benchmarks-alter.png
# (bench/alter_report.sh; BENCH_REPORT_ONLY=1 re-runs it on the last work dir).
#
# Knobs: BENCH_TABLE_SIZE (1000000), BENCH_THREADS ("4 8"), BENCH_TOOLS ("sluice ptosc native"),
# BENCH_MAX_THREADS (16; empty: no such run), BENCH_MAX_TOOLS ("sluice"), BENCH_REPS (3, the tools
# interleaved), BENCH_MAX_REPS (1), BENCH_BEFORE and BENCH_AFTER (seconds of load around the
# ALTER; default BENCH_SECONDS or 20), BENCH_ALTER (the clauses; default "ADD COLUMN x INT NOT NULL
# DEFAULT 0, ADD INDEX k_x (k, x)"), BENCH_ALTER_LIMIT (1800 s per ALTER), BENCH_SB_IGNORE_ERRORS
# (all), BENCH_SLUICE_ARGS / BENCH_PTOSC_ARGS (extra flags), BENCH_WORK (/tmp/sluice-bench/alter),
# BENCH_NO_DOC=1 (print the section, leave docs/ alone), BENCH_KEEP_SERVERS=1, and lib.sh's
# BENCH_SLUICE, BENCH_SLUICE_FROM, BENCH_QUIET_MAX, BENCH_QUIET_IDLE.
# BENCH_RATE (empty: as fast as the clients can; N: sysbench --rate=N transactions/s in all, a load
# that leaves the server headroom as production traffic does; each run then also logs the clients'
# 95th-percentile latency before and during the ALTER, samples/<run>.lat).
# A short trial: BENCH_TABLE_SIZE=10000 BENCH_SECONDS=10 BENCH_REPS=1 BENCH_NO_DOC=1.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-}"
# mysql_target.sh only defines functions when sourced (pkill_tree, now_us, us_diff, sub_s, meta,
# redact) and sources lib.sh and mysql_target_servers.sh.
# shellcheck source=bench/mysql_target.sh
source "$BENCH_DIR/mysql_target.sh"

BENCH_REPS="${USER_REPS:-3}"
AL_SIZE="${BENCH_TABLE_SIZE:-1000000}"
AL_THREADS="${BENCH_THREADS:-4 8}"
AL_TOOLS="${BENCH_TOOLS:-sluice ptosc native}"
AL_MAX_THREADS="${BENCH_MAX_THREADS-16}"
AL_MAX_TOOLS="${BENCH_MAX_TOOLS:-sluice}"
AL_MAX_REPS="${BENCH_MAX_REPS:-1}"
AL_BEFORE="${BENCH_BEFORE:-${BENCH_SECONDS:-20}}"
AL_AFTER="${BENCH_AFTER:-${BENCH_SECONDS:-20}}"
AL_ALTER="${BENCH_ALTER:-ADD COLUMN x INT NOT NULL DEFAULT 0, ADD INDEX k_x (k, x)}"
AL_LIMIT="${BENCH_ALTER_LIMIT:-1800}"
AL_IGNORE="${BENCH_SB_IGNORE_ERRORS:-all}"
AL_RATE="${BENCH_RATE:-}"
AL_WARMUP=3    # first seconds of sysbench not counted in "before"
AL_PROBE_ID=1  # the row the probe client updates
AL_PROBE_SLEEP=0.02
SRV=alter      # the throwaway server's name
DB=sbtest      # the database the tools alter
TBL=sbtest1

al_init() {
	[[ $EUID -eq 0 ]] || bench_die "run as root (mariadbd runs as root here, installs use apt-get)"
	BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/alter}"
	MT_SRV_ROOT="${MT_SRV_ROOT:-$BENCH_WORK/servers}"
	mkdir -p "$BENCH_WORK/logs" "$BENCH_WORK/samples"
	rm -f "$BENCH_WORK"/logs/* "$BENCH_WORK"/samples/*
	BENCH_RESULTS="$BENCH_WORK/results.tsv" # unused by this script; lib.sh's helpers expect it
	RUNS="$BENCH_WORK/runs.tsv" META="$BENCH_WORK/meta.env"
	: >"$RUNS"
	: >"$META"
	BENCH_SLUICE="${BENCH_SLUICE:-$BENCH_WORK/sluice}"
	bench_require_time
	command -v sysbench >/dev/null || bench_die "sysbench is not installed (Debian package sysbench)"
	command -v mariadb-binlog >/dev/null || bench_die "mariadb-binlog is not installed (Debian package mariadb-client)"
	if [[ " $AL_TOOLS $AL_MAX_TOOLS " == *" ptosc "* ]] && ! command -v pt-online-schema-change >/dev/null; then
		bench_log "installing the Debian package percona-toolkit"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq percona-toolkit >&2 ||
			bench_die "apt-get install percona-toolkit failed"
	fi
}

# ---------------------------------------------------------------- data

# prepare_base: sysbench's table once, in database base; every run copies it (al_fresh_table).
prepare_base() {
	local log="$BENCH_WORK/logs/sysbench-prepare.log" t0=$SECONDS
	bench_log "sysbench prepare: 1 table x $AL_SIZE rows (database base)"
	mt_sql "$SRV" -e "CREATE DATABASE base" || bench_die "create base"
	sysbench oltp_common --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port "$SRV")" \
		--mysql-user=root --mysql-password=root --mysql-db=base \
		--tables=1 --table-size="$AL_SIZE" --threads=1 prepare >"$log" 2>&1 ||
		bench_die "sysbench prepare failed (see $log)"
	bench_log "sysbench prepare took $((SECONDS - t0)) s"
	OLD_COLS="$(cols_of base "$TBL")"
	meta OLD_COLS "$OLD_COLS"
	meta BASE_STATS "$(mt_table_stats "$SRV" base)"
}

cols_of() { mt_sql "$SRV" -e "SELECT GROUP_CONCAT(column_name ORDER BY ordinal_position) FROM information_schema.columns WHERE table_schema='$1' AND table_name='$2'"; }

# al_fresh_table: sbtest.sbtest1 = a new copy of base.sbtest1 (whatever the last run left in
# sbtest and in sluice's state database is dropped); not binlogged: nothing reads it there.
al_fresh_table() {
	mt_sql "$SRV" --init-command='SET sql_log_bin=0' -e "DROP DATABASE IF EXISTS $DB; DROP DATABASE IF EXISTS sluice;
		CREATE DATABASE $DB; CREATE TABLE $DB.$TBL LIKE base.$TBL; INSERT INTO $DB.$TBL SELECT * FROM base.$TBL"
}

# al_binlog_start: a new binlog file for the run (its name in BINLOG_FIRST); older ones purged.
al_binlog_start() {
	mt_sql "$SRV" -e "FLUSH BINARY LOGS" || return 1
	BINLOG_FIRST="$(mt_sql "$SRV" -e "SHOW MASTER STATUS" | cut -f1)"
	[[ -n $BINLOG_FIRST ]] && mt_sql "$SRV" -e "PURGE BINARY LOGS TO '$BINLOG_FIRST'"
}

# al_binlog_files: paths of the run's binlog files, oldest first.
al_binlog_files() {
	local f
	mt_sql "$SRV" -e "SHOW BINARY LOGS" | cut -f1 | while read -r f; do
		[[ $f < "$BINLOG_FIRST" ]] && continue
		echo "$MT_SRV_ROOT/$SRV/binlog/$f"
	done
}

# ---------------------------------------------------------------- the reference and the check

# ref_changes: SQL making ref.sbtest1 (a copy of base) equal to what the clients made of the
# table: for every key the row changes of `sbtest`.`sbtest1` in the run's binlog touched, its last
# image (the first OLD_COLS columns: later images also carry the new column) or its deletion.
# Only events of that table name count: the tools' own tables (shadow copies, triggers' writes,
# _old tables) are other names. The key is the first column (sysbench's id, the primary key).
ref_changes() {
	# shellcheck disable=SC2046
	mariadb-binlog --no-defaults --base64-output=decode-rows -v --table="$TBL" $(al_binlog_files) 2>"$BENCH_WORK/logs/binlog-read.err" |
		awk -v want="\`$DB\`.\`$TBL\`" -v n="$(awk -F, '{ print NF }' <<<"$OLD_COLS")" -v cols="$OLD_COLS" '
		function finish() {
			if (!mine || kind == "") { kind = ""; return }
			if (kind == "INSERT") { st[a[1]] = row(a) }
			else if (kind == "DELETE") { st[b[1]] = "\001" }
			else { if (b[1] != a[1]) st[b[1]] = "\001"; st[a[1]] = row(a) }
			if (!(a[1] in seen) && kind != "DELETE") { seen[a[1]] = 1; keys[++nk] = a[1] }
			if (!(b[1] in seen) && kind != "INSERT") { seen[b[1]] = 1; keys[++nk] = b[1] }
			events++
			kind = ""
		}
		function row(x,   s, i) { s = x[1]; for (i = 2; i <= n; i++) s = s "," x[i]; return s }
		/^### (INSERT INTO|UPDATE|DELETE FROM) / {
			finish()
			kind = $2; mine = ($NF == want); part = (kind == "INSERT") ? "a" : "b"; na = 0; nb = 0
			delete a; delete b
			next
		}
		/^### WHERE$/ { part = "b"; next }
		/^### SET$/ { part = "a"; next }
		/^###   / {
			if (!mine || kind == "") next
			v = substr($0, index($0, "=") + 1)
			if (part == "a") a[++na] = v; else b[++nb] = v
			next
		}
		{ finish() }
		END {
			finish()
			for (i = 1; i <= nk; i += 500) {
				s = ""; ins = ""
				for (j = i; j < i + 500 && j <= nk; j++) {
					s = s (s == "" ? "" : ",") keys[j]
					if (st[keys[j]] != "\001") ins = ins (ins == "" ? "" : ",") "(" st[keys[j]] ")"
				}
				print "DELETE FROM ref.'"$TBL"' WHERE " substr(cols, 1, index(cols "," , ",") - 1) " IN (" s ");"
				if (ins != "") print "INSERT INTO ref.'"$TBL"' (" cols ") VALUES " ins ";"
			}
			printf "-- %d row changes of %s, %d keys\n", events, want, nk > "/dev/stderr"
		}'
}

# show_create DB: the table's definition without its name and AUTO_INCREMENT counter.
show_create() {
	# shellcheck disable=SC2016
	mt_sql "$SRV" -e "SHOW CREATE TABLE $1.$TBL" | cut -f2- | sed 's/ AUTO_INCREMENT=[0-9]*//; s/^CREATE TABLE `[^`]*`//'
}

# al_check TAG: 0 when the altered table equals the reference; the details go to the log.
al_check() {
	local tag=$1 log="$BENCH_WORK/logs/$1.check.log" cols n m h g c d rc=0
	{
		echo "reference: base + ALTER offline + the binlog's row changes of $DB.$TBL from $BINLOG_FIRST"
		mt_sql "$SRV" --init-command='SET sql_log_bin=0' -e "DROP DATABASE IF EXISTS ref; CREATE DATABASE ref;
			CREATE TABLE ref.$TBL LIKE base.$TBL; ALTER TABLE ref.$TBL $AL_ALTER;
			INSERT INTO ref.$TBL ($OLD_COLS) SELECT $OLD_COLS FROM base.$TBL" || return 1
		ref_changes >"$BENCH_WORK/samples/$tag.ref.sql" || return 1
		mt_sql "$SRV" --init-command='SET sql_log_bin=0' <"$BENCH_WORK/samples/$tag.ref.sql" || return 1
		cols="$(cols_of "$DB" "$TBL")"
		n="$(mt_sql "$SRV" -e "SELECT COUNT(*) FROM $DB.$TBL")" m="$(mt_sql "$SRV" -e "SELECT COUNT(*) FROM ref.$TBL")"
		h="$(mt_hash "$SRV" "$DB" "$TBL" "$cols")" g="$(mt_hash "$SRV" ref "$TBL" "$cols")"
		c="$(mt_sql "$SRV" -e "CHECKSUM TABLE $DB.$TBL" | cut -f2)" d="$(mt_sql "$SRV" -e "CHECKSUM TABLE ref.$TBL" | cut -f2)"
		echo "columns: $cols"
		echo "rows: table $n, reference $m"
		echo "hash: table $h, reference $g"
		echo "CHECKSUM TABLE: table $c, reference $d"
		[[ -n $n && $n == "$m" && -n $h && $h == "$g" && -n $c && $c == "$d" ]] || rc=1
		if [[ "$(show_create "$DB")" != "$(show_create ref)" ]]; then
			echo "definitions differ:"
			diff <(show_create "$DB") <(show_create ref)
			rc=1
		fi
		echo "equal: $([[ $rc == 0 ]] && echo yes || echo NO)"
	} >"$log" 2>&1
	((rc == 0)) || bench_log "$tag: the table differs from the reference (see $log)"
	return $rc
}

# ---------------------------------------------------------------- load, probe, tools

sb_cmd() {
	echo sysbench oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$(mt_port "$SRV")" \
		--mysql-user=root --mysql-password=root --mysql-db="$DB" --tables=1 --table-size="$AL_SIZE" \
		--threads="$1" --time="$2" --report-interval=1 --rand-type=uniform --mysql-ignore-errors="$AL_IGNORE" \
		${AL_RATE:+--rate=$AL_RATE} run
}

# latencies SBLOG T_SB T_A T_B: "lat95_before_ms lat95_during_ms worst_lat95_during_ms": the mean
# and the worst of sysbench's per-second 95th-percentile latency in each window (see windows).
latencies() {
	awk -v s="$2" -v ta="$3" -v tb="$4" -v warm="$AL_WARMUP" '
		/ tps: / && match($0, /^\[ *[0-9]+s \]/) {
			i = substr($0, 2, RLENGTH - 3) + 0
			l = $0; sub(/.*lat \(ms,95%\): /, "", l); l += 0
			e = s + i * 1e6; b = e - 1e6
			if (e <= ta) { if (i > warm) { w = "b" } else next }
			else if (b < tb) w = "d"
			else next
			t[w] += l; n[w]++
			if (w == "d" && l > mx) mx = l
		}
		function avg(w) { return n[w] ? sprintf("%.2f", t[w] / n[w]) : "-" }
		END { printf "%s %s %.2f\n", avg("b"), avg("d"), mx }' "$1"
}

# start_load THREADS LOG: sysbench in the background (line-buffered, so every 1-s report is in LOG
# when it is stopped); SB_PID.
start_load() {
	# shellcheck disable=SC2046
	stdbuf -oL $(sb_cmd "$1" $((AL_BEFORE + AL_LIMIT + AL_AFTER + 120))) >"$2" 2>&1 &
	SB_PID=$!
}

stop_load() {
	[[ -n ${SB_PID:-} ]] || return 0
	kill "$SB_PID" 2>/dev/null
	wait "$SB_PID" 2>/dev/null
	SB_PID=
}

sb_cpu() { _bench_ticks_to_s "$(_bench_ticks_of "$SB_PID")"; }

# start_probe FILE ERRFILE: one client session, every 20 ms: the server's clock, then one UPDATE
# of the table. A gap between two clocks longer than the sleep is the time that UPDATE waited.
start_probe() {
	local q="SELECT CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000 AS UNSIGNED); UPDATE $DB.$TBL SET k = k + 1 WHERE id = $AL_PROBE_ID; DO SLEEP($AL_PROBE_SLEEP);"
	(yes "$q" | mt_sql "$SRV" --force --unbuffered >"$1" 2>"$2") 2>/dev/null &
	PROBE_PID=$!
}

stop_probe() {
	[[ -n ${PROBE_PID:-} ]] || return 0
	pkill_tree "$PROBE_PID"
	PROBE_PID=
}

# tool_cmd TOOL: sets TOOL_CMD, the ALTER by TOOL.
tool_cmd() {
	local port
	port="$(mt_port "$SRV")"
	case $1 in
	sluice)
		# shellcheck disable=SC2206
		TOOL_CMD=("$BENCH_SLUICE" alter --source "$(mt_url "$SRV" "$DB")" --table "$TBL" --alter "$AL_ALTER"
			--method copy --log-format text ${BENCH_SLUICE_ARGS:-})
		;;
	ptosc)
		# shellcheck disable=SC2206,SC2054
		TOOL_CMD=(pt-online-schema-change --alter "$AL_ALTER" --execute --recursion-method=none --progress time,5
			${BENCH_PTOSC_ARGS:-} "h=127.0.0.1,P=$port,u=root,p=root,D=$DB,t=$TBL")
		;;
	native)
		TOOL_CMD=(mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -proot "$DB"
			-e "ALTER TABLE $TBL $AL_ALTER, ALGORITHM=INPLACE, LOCK=NONE")
		;;
	*) bench_die "unknown tool $1" ;;
	esac
}

tool_version() {
	case $1 in
	sluice) "$BENCH_SLUICE" version 2>/dev/null | head -n1 ;;
	ptosc) pt-online-schema-change --version 2>/dev/null | head -n1 ;;
	native) mt_sql "$SRV" -e 'SELECT VERSION()' ;;
	esac
}

# ---------------------------------------------------------------- one run

# windows SBLOG T_SB T_A T_B: "tps_before tps_during tps_after min_tps_during err_before err_during
# err_after n_before n_during n_after" from sysbench's 1-s reports; interval i covers
# (T_SB + i-1 s, T_SB + i s]; during = the intervals overlapping the ALTER.
windows() {
	awk -v s="$2" -v ta="$3" -v tb="$4" -v warm="$AL_WARMUP" '
		/ tps: / && match($0, /^\[ *[0-9]+s \]/) {
			i = substr($0, 2, RLENGTH - 3) + 0
			tps = $0; sub(/.* tps: /, "", tps); tps += 0
			err = $0; sub(/.* err\/s: /, "", err); err += 0
			e = s + i * 1e6; b = e - 1e6
			if (e <= ta) { if (i > warm) { w = "b" } else next }
			else if (b < tb) w = "d"
			else w = "a"
			t[w] += tps; n[w]++; er[w] += err
			if (w == "d" && (!("d" in mn) || tps < mn["d"])) mn["d"] = tps
		}
		function avg(w) { return n[w] ? sprintf("%.0f", t[w] / n[w]) : "-" }
		END {
			printf "%s %s %s %s %.0f %.0f %.0f %d %d %d\n", avg("b"), avg("d"), avg("a"),
				("d" in mn) ? sprintf("%.0f", mn["d"]) : "-", er["b"], er["d"], er["a"], n["b"], n["d"], n["a"]
		}' "$1"
}

# probe_stalls FILE T_A T_B: "before_ms during_ms": the longest wait of one probe UPDATE (gap
# between consecutive clocks minus the sleep) before the ALTER and while it ran.
probe_stalls() {
	awk -v ta="$2" -v tb="$3" -v sl="$AL_PROBE_SLEEP" '
		/^[0-9]+$/ {
			if (p != "") {
				g = ($1 - p) / 1000 - sl * 1000
				if ($1 <= ta) { if (g > mb) mb = g }
				else if (p < tb) { if (g > md) md = g }
			}
			p = $1
		}
		END { printf "%.0f %.0f\n", mb, md }' "$1"
}

# sluice_blocked LOG: the write block sluice reports for its swap, in ms ("-" if none).
sluice_blocked() {
	sed -n 's/.*writes blocked \([0-9.]*\)\(µs\|us\|ms\|s\) at the swap.*/\1 \2/p' "$1" | head -n1 |
		awk '{ f = ($2 == "s") ? 1000 : ($2 == "ms") ? 1 : 0.001; printf "%.0f\n", $1 * f } END { if (NR == 0) print "-" }'
}

# run_one TOOL THREADS REP: one line into $RUNS:
# tool threads rep rc alter_s tps_b tps_d tps_a min_tps_d err_b err_d err_a n_b n_d n_a
# probe_b_ms probe_d_ms probe_errors cutover_ms tool_cpu mariadbd_cpu sysbench_cpu equal t_sb t_a t_b
run_one() {
	local tool=$1 thr=$2 rep=$3 tag="$1.t$2.$3"
	local sb="$BENCH_WORK/logs/$tag.sysbench.log" tlog="$BENCH_WORK/logs/$tag.tool.log" tf="$BENCH_WORK/logs/$tag.time"
	local probe="$BENCH_WORK/samples/$tag.probe" perr="$BENCH_WORK/logs/$tag.probe.err"
	local rc=0 tsb ta tb my0 my1 sc0 sc1 win stalls equal=NO cut=- cpu
	bench_log "$tag: fresh copy of $TBL ($AL_SIZE rows)"
	if ! al_fresh_table || ! al_binlog_start; then
		bench_log "$tag: could not set up the table"
		printf '%s\t%s\t%s\tsetup\n' "$tool" "$thr" "$rep" >>"$RUNS"
		return 1
	fi
	tool_cmd "$tool"
	bench_wait_quiet
	tsb="$(now_us)"
	start_load "$thr" "$sb"
	start_probe "$probe" "$perr"
	sleep "$AL_BEFORE"
	if ! kill -0 "$SB_PID" 2>/dev/null; then
		bench_log "$tag: sysbench ended before the ALTER (see $sb)"
		stop_probe
		stop_load
		printf '%s\t%s\t%s\tload\n' "$tool" "$thr" "$rep" >>"$RUNS"
		return 1
	fi
	bench_log "$tag: ALTER by $tool under $thr sysbench threads"
	my0="$(mt_cpu "$SRV")" sc0="$(sb_cpu)"
	ta="$(now_us)"
	/usr/bin/time -f '%e %M %U %S' -o "$tf" timeout -k 30 "$AL_LIMIT" "${TOOL_CMD[@]}" >"$tlog" 2>&1 || rc=$?
	tb="$(now_us)"
	my1="$(mt_cpu "$SRV")" sc1="$(sb_cpu)"
	bench_log "$tag: $tool exit $rc after $(us_diff "$ta" "$tb") s (log $tlog)"
	sleep "$AL_AFTER"
	stop_probe
	stop_load
	mt_sql "$SRV" -e "FLUSH BINARY LOGS" # the run's last file closed before it is read
	win="$(windows "$sb" "$tsb" "$ta" "$tb")"
	stalls="$(probe_stalls "$probe" "$ta" "$tb")"
	[[ $tool == sluice ]] && cut="$(sluice_blocked "$tlog")"
	cpu="$(tail -n1 "$tf" 2>/dev/null | awk '{ printf "%.2f", $3 + $4 }')"
	if ((rc == 0)); then
		al_check "$tag" && equal=yes
	else
		equal=-
	fi
	# shellcheck disable=SC2086
	printf '%s\t' "$tool" "$thr" "$rep" "$rc" "$(us_diff "$ta" "$tb")" $win $stalls "$(grep -c '^ERROR' "$perr")" "$cut" \
		"${cpu:--}" "$(sub_s "$my0" "$my1")" "$(sub_s "$sc0" "$sc1")" "$equal" "$tsb" "$ta" >>"$RUNS"
	printf '%s\n' "$tb" >>"$RUNS"
	if [[ -n $AL_RATE ]]; then
		latencies "$sb" "$tsb" "$ta" "$tb" >"$BENCH_WORK/samples/$tag.lat"
		bench_log "$tag: --rate $AL_RATE: clients' p95 latency ms before / during / worst second during: $(cat "$BENCH_WORK/samples/$tag.lat")"
	fi
	bench_log "$tag: tps before/during/after $(cut -d' ' -f1-3 <<<"$win"), errors $(cut -d' ' -f5-7 <<<"$win"), probe stall ms before/during $stalls, equal: $equal"
}

# show_cmd ARGS...: the command as one readable line (arguments with blanks in double quotes).
show_cmd() {
	local a out=()
	for a in "$@"; do
		if [[ $a == *[[:space:]\(\)]* ]]; then out+=("\"$a\""); else out+=("$a"); fi
	done
	echo "${out[*]}"
}

# instant_reason: what the server says to ALGORITHM=INSTANT for this ALTER (on an empty copy).
instant_reason() {
	mt_sql "$SRV" --init-command='SET sql_log_bin=0' -e "DROP DATABASE IF EXISTS probe; CREATE DATABASE probe;
		CREATE TABLE probe.$TBL LIKE base.$TBL; ALTER TABLE probe.$TBL $AL_ALTER, ALGORITHM=INSTANT" 2>&1 |
		sed -n 's/^ERROR [0-9]* ([0-9A-Z]*) at line [0-9]*: //p' | head -n1
	mt_sql "$SRV" -e "DROP DATABASE IF EXISTS probe" >/dev/null 2>&1
}

# ---------------------------------------------------------------- main

cleanup() {
	stop_probe
	stop_load
	mt_servers_stop_all
}

main() {
	if [[ -n ${BENCH_REPORT_ONLY:-} ]]; then
		exec bash "$BENCH_DIR/alter_report.sh" "${BENCH_WORK:-/tmp/sluice-bench/alter}"
	fi
	al_init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	local t_start=$SECONDS tools=() t thr rep
	mt_server_start "$SRV" 1 || bench_die "cannot start the throwaway MariaDB"
	cp "$MT_SRV_ROOT/$SRV/my.cnf" "$BENCH_WORK/server.cnf"
	prepare_base
	for t in $AL_TOOLS $AL_MAX_TOOLS; do
		[[ $t == sluice ]] || continue
		bench_build_sluice || bench_die "cannot build sluice (see $BENCH_WORK/logs/go-build.log)"
		bench_sluice_has alter || bench_die "this sluice has no alter command"
		break
	done
	meta SLUICE_COMMIT "${BENCH_SLUICE_COMMIT:-}"
	meta MARIADB_VERSION "$(mt_sql "$SRV" -e 'SELECT VERSION()')"
	meta SYSBENCH_VERSION "$(sysbench --version)"
	meta ALTER "$AL_ALTER"
	meta RATE "$AL_RATE"
	meta INSTANT_REASON "$(instant_reason)"
	meta SIZE "$AL_SIZE"
	meta BEFORE "$AL_BEFORE"
	meta AFTER "$AL_AFTER"
	meta REPS "$BENCH_REPS"
	meta IGNORE "$AL_IGNORE"
	meta SB_CMD "$(sb_cmd THREADS SECONDS | sed 's/ --mysql-password=root / --mysql-password=xxxxx /')"
	for t in sluice ptosc native; do
		[[ " $AL_TOOLS $AL_MAX_TOOLS " == *" $t "* ]] || continue
		tool_cmd "$t"
		meta "CMD_$t" "$(show_cmd "${TOOL_CMD[@]}" | redact | sed 's/p=root/p=xxxxx/')"
		meta "VERSION_$t" "$(tool_version "$t")"
	done
	meta RUN_START "$(date -u '+%Y-%m-%d %H:%M UTC')"
	meta LOADAVG "$(cut -d' ' -f1-3 /proc/loadavg)"
	for ((rep = 1; rep <= BENCH_REPS; rep++)); do
		for thr in $AL_THREADS; do
			for t in $AL_TOOLS; do run_one "$t" "$thr" "$rep"; done
		done
	done
	if [[ -n $AL_MAX_THREADS ]]; then
		for ((rep = 1; rep <= AL_MAX_REPS; rep++)); do
			for t in $AL_MAX_TOOLS; do run_one "$t" "$AL_MAX_THREADS" "$rep"; done
		done
	fi
	meta MAX_THREADS "$AL_MAX_THREADS"
	meta RUN_END "$(date -u '+%H:%M UTC')"
	meta RUN_MINUTES "$(((SECONDS - t_start + 30) / 60))"
	cleanup
	trap - EXIT
	bash "$BENCH_DIR/alter_report.sh" "$BENCH_WORK"
}

[[ ${BASH_SOURCE[0]} == "$0" ]] && main "$@"
