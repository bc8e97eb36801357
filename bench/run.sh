#!/usr/bin/env bash
# bench/run.sh: one command for sluice's benchmarks (`make bench` runs `bench/run.sh all`).
#
#   bench/run.sh snapshot     full migration vs pgloader, pg_chameleon and the COPY limit
#   bench/run.sh replicate    live replication and catch-up (bench/replicate.sh)
#   bench/run.sh verify       verification vs a plain full scan (bench/verify.sh)
#   bench/run.sh mysql-target MySQL/MariaDB as the target (bench/mysql_target.sh, ~17 min: not in all)
#   bench/run.sh reverse      the way back PostgreSQL -> MariaDB vs forward (bench/reverse.sh, ~20 min: not in all)
#   bench/run.sh alter        online schema change: sluice alter vs pt-online-schema-change vs MariaDB's
#                             own ALTER under sysbench (bench/alter.sh, ~1 h estimated: not in all)
#   bench/run.sh kafka        two MySQL shards into Kafka vs ProducerPerformance (bench/kafka.sh, ~40 min: not in all)
#   bench/run.sh all          snapshot, replicate, verify, in that order (also: no argument, as `make bench` calls it)
#
# Each part is the script bench/<part>.sh (a "-" in the name is a "_" in the file's); it writes its
# "## <part>" section of docs/benchmarks.md (mysql-target: "## mysql target").
# A part whose script does not exist yet is reported and makes the exit code 1; `all` still runs
# the other parts. Knobs: see the top of each script (BENCH_REPS, BENCH_WORK, ...).
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The sandbox keeps 2 h of binlogs (disk); sluice's pre-flight wants 24 h by default.
export SLUICE_MIN_BINLOG_RETENTION="${SLUICE_MIN_BINLOG_RETENTION:-1h}"
PARTS=(snapshot replicate verify)

usage() {
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

run_part() {
	local part=$1 script="$BENCH_DIR/${1//-/_}.sh"
	if [[ ! -f $script ]]; then
		echo "bench: $part: $script does not exist yet; nothing measured" >&2
		return 1
	fi
	echo "bench: ==== $part ====" >&2
	bash "$script"
}

main() {
	[[ $# -le 1 ]] || usage
	set -- "${1:-all}"
	local rc=0 part
	case $1 in
	all)
		for part in "${PARTS[@]}"; do
			run_part "$part" || {
				echo "bench: $part failed or is missing" >&2
				rc=1
			}
		done
		;;
	snapshot | replicate | verify | mysql-target | reverse | alter | kafka) run_part "$1" || rc=1 ;;
	*) usage ;;
	esac
	exit $rc
}

main "$@"
