#!/usr/bin/env bash
# bench/policy_ab.sh: replicate catch-up with a row filter and two column masks on every table
# next to the same build without them (issue 25's goal: >= 0.8 of the unfiltered rate). The
# measurement of bench/catchup_ab.sh (sluice stopped, sysbench load, then sluice started and timed
# until caught up), for "sluice" (no policy) and "sluice_policy" (--where 'k >= 0 AND id > 0' on
# every sbtest table, which every sysbench row matches so both apply the same rows, and --mask
# c=hash, pad=keep-last:4), interleaved rep by rep, each on its own copy of the data. Prints the
# per-tool median catch-up factor (source transactions per second while applying the backlog /
# while writing it) and the ratio of the medians.
#
# Knobs: BENCH_REPS (3), BENCH_CATCHUP_WORKLOADS ("oltp_write_only"), and bench/replicate.sh's
# BENCH_TABLES, BENCH_TABLE_SIZE, BENCH_THREADS, BENCH_SECONDS. BENCH_PPROF=PORT: every timed run
# serves Go's profiler (--metrics-addr 127.0.0.1:PORT --pprof), and a CPU profile of its catch-up
# (from 2 s in, BENCH_PPROF_SECONDS (5) long) and its allocations so far are saved next to its log
# (logs/catchup.TOOL.WORKLOAD.REP.{cpu,allocs}.pb.gz): where the policy's cost goes in the real apply.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
USER_REPS="${BENCH_REPS:-3}"
BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/policy-ab}"
: "${BENCH_CATCHUP_WORKLOADS:=oltp_write_only}"
# shellcheck source=bench/replicate.sh
source "$BENCH_DIR/replicate.sh"
BENCH_REPS="$USER_REPS"
TOOLS="sluice sluice_policy"
MASK_KEY_FILE="$BENCH_WORK/mask.key"

# policy_flags TOOL: the policy flags of a tool (none for "sluice").
policy_flags() {
	[[ $1 == sluice_policy ]] || return 0
	local db i
	db="$(mydb "$1")"
	for ((i = 1; i <= TABLES; i++)); do
		printf -- '--where\n%s.sbtest%d=k >= 0 AND id > 0\n' "$db" "$i"
	done
	printf -- '--mask\n%s.*.c=hash\n--mask\n%s.*.pad=keep-last:4\n--mask-key-file\n%s\n' "$db" "$db" "$MASK_KEY_FILE"
}

# tool_args TOOL COMMAND: sets ARGS to sluice's arguments for the tool: command, source, target,
# scope and policy (one place for both the snapshot and the timed replicate). The sandbox purges
# binlogs after 2 h, which the pre-flight refuses by default: a bench stream is never stopped long.
tool_args() {
	local tool=$1 db flags
	db="$(mydb "$tool")"
	mapfile -t flags < <(policy_flags "$tool")
	ARGS=("$2" --source "mysql://sluice:sluice@$BENCH_MY_HOST:$BENCH_MY_PORT/$db"
		--target "postgres://sluice:sluice@$BENCH_PG_HOST:$BENCH_PG_PORT/$(pgdb "$tool")"
		--include "$db.*" --stream "$STREAM" --log-format text --min-binlog-retention 0 "${flags[@]}")
}

init_sluice() { init_tool sluice; }
init_sluice_policy() { init_tool sluice_policy; }
init_tool() {
	local tool=$1 log="$BENCH_WORK/logs/$1-snapshot.log"
	bench_pg_recreate_db "$(pgdb "$tool")" || bench_die "create $(pgdb "$tool")"
	bench_log "$tool snapshot of $(mydb "$tool") (untimed)"
	tool_args "$tool" snapshot
	"$BENCH_SLUICE" "${ARGS[@]}" >"$log" 2>&1 || bench_die "$tool snapshot failed (see $log)"
}
start_tool() {
	tool_args "$1" replicate
	[[ -n ${BENCH_PPROF:-} ]] && ARGS+=(--metrics-addr "127.0.0.1:$BENCH_PPROF" --pprof)
	/usr/bin/time -f '%e %M %U %S' -o "$3" "$BENCH_SLUICE" "${ARGS[@]}" >>"$2" 2>&1 &
	TOOL_PID=$!
	if [[ -n ${BENCH_PPROF:-} ]]; then
		local url="http://127.0.0.1:$BENCH_PPROF/debug/pprof" out="${3%.time}"
		(sleep 2 && curl -sf -o "$out.cpu.pb.gz" "$url/profile?seconds=${BENCH_PPROF_SECONDS:-5}" &&
			curl -sf -o "$out.allocs.pb.gz" "$url/allocs") &
	fi
}

# check_equal TOOL: row counts equal, and the unmasked columns (id, k) hash the same; the masked
# ones differ from the source by design (the independent masked comparison is the tests').
check_equal() {
	local tool=$1 db pg rc=0 i h pgh cols=id,k,c,pad
	db="$(mydb "$tool")" pg="$(pgdb "$tool")"
	[[ $tool == sluice_policy ]] && cols=id,k
	bench_compare_counts "$db" "$pg" "$db" || rc=1
	for ((i = 1; i <= TABLES; i++)); do
		h="$(bench_hash_my "$db" "sbtest$i" "$cols")"
		pgh="$(bench_hash_pg "$pg" "$db" "sbtest$i" "$cols" 2>/dev/null)" || pgh=missing
		if [[ $h != "$pgh" ]]; then
			bench_log "$tool: content hash mismatch ($cols): $db.sbtest$i is $h, $pg is $pgh"
			rc=1
		fi
	done
	return $rc
}

report() {
	local wl
	echo "| workload | run | runs | catch-up factor, median (min–max) | sluice CPU s (median) |"
	echo "|---|---|---|---|---|"
	for wl in $CATCHUP_WORKLOADS; do
		for tool in $TOOLS; do
			awk -F'\t' -v t="$tool" -v w="$wl" '$1 == t && $2 == w && $4 != "failed" {
				f = ($4 / $6) / ($4 / $5); print f, $7 }' "$CATCHUP_TSV" | sort -n |
				awk -v t="$tool" -v w="$wl" '{ f[NR] = $1; c[NR] = $2 } END {
					if (NR == 0) { printf "| %s | %s | 0 | failed | |\n", w, t; exit }
					m = (NR % 2) ? f[(NR + 1) / 2] : (f[NR / 2] + f[NR / 2 + 1]) / 2
					printf "| %s | %s | %d | %.2fx (%.2f–%.2f) | %s |\n", w, t, NR, m, f[1], f[NR], c[int((NR + 1) / 2)] }'
		done
	done
	for wl in $CATCHUP_WORKLOADS; do
		awk -F'\t' -v w="$wl" '$2 == w && $4 != "failed" { f[$1] = f[$1] " " $5 / $6 }
			function median(s,   a, n) { n = split(s, a, " "); asort(a); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
			END { if (f["sluice"] != "" && f["sluice_policy"] != "")
				printf "\n%s: sluice_policy / sluice, ratio of the median catch-up factors: **%.2f**\n", w, median(f["sluice_policy"]) / median(f["sluice"]) }' "$CATCHUP_TSV"
	done
	echo
	echo "sluice = $(git -C "$BENCH_ROOT" rev-parse --short HEAD); $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
}

policy_main() {
	bench_init policy-ab
	CATCHUP_TSV="$BENCH_WORK/catchup.tsv"
	: >"$CATCHUP_TSV"
	bench_build_sluice || bench_die "cannot build sluice"
	(umask 077 && head -c 24 /dev/urandom | base64 >"$MASK_KEY_FILE") || bench_die "mask key file"
	catchup_passes
	report | tee "$BENCH_WORK/report.md"
}

policy_main "$@"
