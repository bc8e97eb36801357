#!/usr/bin/env bash
# bench/alter_parts.sh: what of `sluice alter` costs the clients their throughput (issue 11).
# bench/alter.sh's setup (a throwaway MariaDB, a 1M-row sysbench table, oltp_write_only with
# server-side prepared statements), but instead of whole ALTERs it runs one part of sluice's work
# at a time, for BENCH_PART_SECONDS (40) each, on a fresh copy of the table, and reports the
# clients' tps before and during it, and the CPU of sluice and of mariadbd meanwhile:
#
#   none        nothing (the noise of the measurement)
#   track       the binlog reader and the key set only (SLUICE_ALTER_PARTS=track)
#   apply       the reader and the appliers writing every changed row into the shadow table at
#               once, no copy (SLUICE_ALTER_PARTS=apply)
#   copy        the whole alter (copy, apply, …), paced by the default --keep-write-rate 0.9
#   copy0       the whole alter unpaced (--keep-write-rate 0)
#   nice-X      X under `nice -n 19`
#
# The parts need a sluice built with the SLUICE_ALTER_PARTS hook (BENCH_SLUICE). Knobs:
# BENCH_PARTS ("none track apply copy copy0"), BENCH_PART_SECONDS (40), BENCH_THREADS (4),
# BENCH_BEFORE (20), BENCH_TABLE_SIZE (1000000), BENCH_SLUICE_B (a second binary: each part but none
# runs with both, one after the other, labelled a/b), SLUICE_CPUPROFILE_DIR (a CPU profile of each sluice run).
# Results: $BENCH_WORK/parts.tsv and the log.
set -uo pipefail
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export BENCH_WORK="${BENCH_WORK:-/tmp/sluice-bench/alter-parts}"
# shellcheck source=bench/alter.sh
source "$BENCH_DIR/alter.sh"

PARTS="${BENCH_PARTS:-none track apply copy copy0}"
PART_S="${BENCH_PART_SECONDS:-40}"
PART_THREADS="${BENCH_THREADS:-4}"

# part_cmd PART BIN: sets PART_CMD (empty: nothing runs) and PART_ENV.
part_cmd() {
	local part=$1 bin=$2 nice=()
	PART_CMD=() PART_ENV=()
	if [[ $part == nice-* ]]; then
		nice=(nice -n 19)
		part=${part#nice-}
	fi
	local base=("$bin" alter --source "$(mt_url "$SRV" "$DB")" --table "$TBL" --alter "$AL_ALTER" --method copy --log-format text)
	case $part in
	none) return ;;
	track | apply) PART_ENV=(SLUICE_ALTER_PARTS="$part") PART_CMD=("${nice[@]}" "${base[@]}") ;;
	copy) PART_CMD=("${nice[@]}" "${base[@]}") ;;
	copy0) PART_CMD=("${nice[@]}" "${base[@]}" --keep-write-rate 0) ;;
	*) bench_die "unknown part $part" ;;
	esac
}

# part_one PART LABEL BIN: one line into parts.tsv:
# part label tps_before tps_during ratio sluice_cpu_s mariadbd_cpu_s sysbench_cpu_s seconds binlog_changes applied
part_one() {
	local part=$1 label=$2 bin=$3 tag="$1.$2"
	local sb="$BENCH_WORK/logs/$tag.sysbench.log" tlog="$BENCH_WORK/logs/$tag.tool.log" tf="$BENCH_WORK/logs/$tag.time"
	local tsb ta tb my0 my1 sc0 sc1 win cpu=0 prof=
	al_fresh_table && al_binlog_start || bench_die "$tag: setup"
	part_cmd "$part" "$bin"
	[[ -n ${SLUICE_CPUPROFILE_DIR:-} ]] && prof="SLUICE_CPUPROFILE=$SLUICE_CPUPROFILE_DIR/$tag.pprof"
	tsb="$(now_us)"
	start_load "$PART_THREADS" "$sb"
	sleep "$AL_BEFORE"
	my0="$(mt_cpu "$SRV")" sc0="$(sb_cpu)"
	ta="$(now_us)"
	if ((${#PART_CMD[@]})); then
		env "${PART_ENV[@]}" $prof /usr/bin/time -f '%e %M %U %S' -o "$tf" timeout -s TERM -k 20 "$PART_S" "${PART_CMD[@]}" >"$tlog" 2>&1
		cpu="$(tail -n1 "$tf" | awk '{ printf "%.2f", $3 + $4 }')"
	else
		sleep "$PART_S"
	fi
	tb="$(now_us)"
	my1="$(mt_cpu "$SRV")" sc1="$(sb_cpu)"
	sleep 2
	stop_load
	win="$(windows "$sb" "$tsb" "$ta" "$tb")"
	local b d changes applied
	read -r b d _ <<<"$win"
	changes="$(sed -n 's/.*binlog_changes=\([0-9]*\).*/\1/p' "$tlog" 2>/dev/null | tail -n1)"
	applied="$(sed -n 's/.* \([0-9]*\) applied.*/\1/p' "$tlog" 2>/dev/null | tail -n1)"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$part" "$label" "$b" "$d" \
		"$(awk -v b="$b" -v d="$d" 'BEGIN { printf "%.2f", (b > 0) ? d / b : 0 }')" "$cpu" \
		"$(sub_s "$my0" "$my1")" "$(sub_s "$sc0" "$sc1")" "$(us_diff "$ta" "$tb")" "${changes:--}" "${applied:--}" >>"$BENCH_WORK/parts.tsv"
	bench_log "$tag: tps $b -> $d, sluice CPU ${cpu}s, mariadbd $(sub_s "$my0" "$my1")s"
}

parts_main() {
	al_init
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	AL_BEFORE="${BENCH_BEFORE:-20}"
	[[ -x ${BENCH_SLUICE:-} ]] || bench_die "set BENCH_SLUICE to a sluice with the SLUICE_ALTER_PARTS hook"
	[[ -n ${SLUICE_CPUPROFILE_DIR:-} ]] && mkdir -p "$SLUICE_CPUPROFILE_DIR"
	printf 'part\tbuild\ttps_before\ttps_during\tratio\tsluice_cpu_s\tmariadbd_cpu_s\tsysbench_cpu_s\tseconds\tbinlog_changes\tapplied\n' >"$BENCH_WORK/parts.tsv"
	mt_server_start "$SRV" 1 || bench_die "cannot start the throwaway MariaDB"
	prepare_base
	bench_log "load average $(cut -d' ' -f1-3 /proc/loadavg)"
	local p
	for p in $PARTS; do
		part_one "$p" a "$BENCH_SLUICE"
		[[ -n ${BENCH_SLUICE_B:-} && $p != none ]] && part_one "$p" b "$BENCH_SLUICE_B"
	done
	bench_log "load average $(cut -d' ' -f1-3 /proc/loadavg)"
	column -t -s $'\t' "$BENCH_WORK/parts.tsv"
}

[[ ${BASH_SOURCE[0]} == "$0" ]] && parts_main "$@"
