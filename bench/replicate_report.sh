#!/usr/bin/env bash
# bench/replicate_report.sh WORK "sluice=yes chameleon=NO": turns the results of bench/replicate.sh
# ($WORK/live.tsv, catchup.tsv, samples/, logs/) into the "## replicate" section of
# docs/benchmarks.md and the plot docs/benchmarks-replicate.png (python3 venv with matplotlib from
# PyPI). BENCH_NO_DOC=1 prints the section instead; BENCH_REPORT_NOTE adds a remark;
# BENCH_EXTRA_WORK=DIR (titled BENCH_EXTRA_LABEL) adds the tables of another run's work dir. Can be
# re-run on the same WORK dir.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

WORK=$1
CORRECT=${2:-}
BENCH_SLUICE="${BENCH_SLUICE:-$WORK/sluice}" # the binary bench/replicate.sh built
bench_sandbox_env
LIVE="$WORK/live.tsv"
CATCHUP="$WORK/catchup.tsv"
PLOT="$BENCH_ROOT/docs/benchmarks-replicate.png"
[[ -n ${BENCH_NO_DOC:-} ]] && PLOT="$WORK/benchmarks-replicate.png"
OUT="$WORK/section.md"

# med FILE KEYCOLS... COL: median of column COL over the successful rows matching tool ($1) and
# workload ($2).
med() {
	awk -F'\t' -v t="$2" -v w="$3" -v c="$4" '$1 == t && $2 == w && $4 != "failed" { print $c }' "$1" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

runs() { awk -F'\t' -v t="$2" -v w="$3" '$1 == t && $2 == w && $4 != "failed"' "$1" | wc -l; }
failed() { awk -F'\t' -v t="$2" -v w="$3" '$1 == t && $2 == w && $4 == "failed"' "$1" | wc -l; }
div() { awk -v a="$1" -v b="$2" -v d="${3:-0}" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.*f\n", d, a / b }'; }

# stalled TOOL WORKLOAD: seconds of the tool's live runs (all passes) in which the source itself
# committed nothing (sysbench's per-second report: tps 0.00). No heartbeat is written then either,
# so the lag (now - newest heartbeat in the target) grows by the stall without any delay of the tool.
stalled() { cat "${LOGS:-$WORK/logs}/$1.$2".*.sysbench.log 2>/dev/null | grep -c '^\[ *[0-9]*s \].* tps: 0\.00 '; }

tools() { cut -f1 "$LIVE" "$CATCHUP" | awk '!seen[$0]++'; }
workloads() { cut -f2 "$1" | awk '!seen[$0]++'; }

live_table() {
	echo "| workload | tool | source tps | applied tps | applied/source | lag p50 s | lag p99 s | lag max s | source stalled s | tool CPU s | mariadbd CPU s | postgres CPU s | tool peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	local wl tool n load apply src app
	for wl in $(workloads "$LIVE"); do
		for tool in $(tools); do
			[[ $(runs "$LIVE" "$tool" "$wl") -gt 0 ]] || {
				[[ $(failed "$LIVE" "$tool" "$wl") -gt 0 ]] && echo "| $wl | $tool | failed (see logs) | | | | | | | | | | |"
				continue
			}
			n="$(med "$LIVE" "$tool" "$wl" 4)" load="$(med "$LIVE" "$tool" "$wl" 5)" apply="$(med "$LIVE" "$tool" "$wl" 6)"
			src="$(div "$n" "$load")" app="$(div "$n" "$apply")"
			printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$wl" "$tool" "$src" "$app" \
				"$(div "$load" "$apply" 2)" "$(med "$LIVE" "$tool" "$wl" 7)" "$(med "$LIVE" "$tool" "$wl" 8)" \
				"$(med "$LIVE" "$tool" "$wl" 9)" "$(stalled "$tool" "$wl")" "$(med "$LIVE" "$tool" "$wl" 10)" \
				"$(med "$LIVE" "$tool" "$wl" 11)" "$(med "$LIVE" "$tool" "$wl" 12)" "$(med "$LIVE" "$tool" "$wl" 13)"
		done
	done
}

catchup_table() {
	echo "| workload | tool | backlog txns | written in s | source tps | caught up in s | catch-up tps | catch-up / source | tool CPU s | mariadbd CPU s | postgres CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	local wl tool n load cu
	for wl in $(workloads "$CATCHUP"); do
		for tool in $(tools); do
			[[ $(runs "$CATCHUP" "$tool" "$wl") -gt 0 ]] || {
				[[ $(failed "$CATCHUP" "$tool" "$wl") -gt 0 ]] && echo "| $wl | $tool | failed (see logs) | | | | | | | | |"
				continue
			}
			n="$(med "$CATCHUP" "$tool" "$wl" 4)" load="$(med "$CATCHUP" "$tool" "$wl" 5)" cu="$(med "$CATCHUP" "$tool" "$wl" 6)"
			printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$wl" "$tool" "$n" "$load" \
				"$(div "$n" "$load")" "$cu" "$(div "$n" "$cu")" "$(div "$load" "$cu" 1)" \
				"$(med "$CATCHUP" "$tool" "$wl" 7)" "$(med "$CATCHUP" "$tool" "$wl" 8)" "$(med "$CATCHUP" "$tool" "$wl" 9)"
		done
	done
}

# notes: how to read the tables (kept next to the numbers they explain).
notes() {
	cat <<'EOF'
Reading the numbers:

- Source tps differs between the two tools' runs because the tool shares the two cores with the
  source: sluice applying in real time takes CPU from MariaDB, pg_chameleon mostly sleeps or
  reads while it falls behind. The goal is applied/source >= 1 with the lag bounded, per run.
- Source stalled s: seconds of the load in which the source itself committed nothing (sysbench's
  per-second report shows 0 tps). The heartbeat writer stalls with it, so the lag (now - newest
  heartbeat visible in the target) grows by the stall's length although nothing waits to be
  applied; the plot shows both.
- Where sluice's catch-up time goes (CPU profile through `--metrics-addr ... --pprof`, /debug/pprof/, on an
  insert backlog): the go-mysql reader goroutine (packet reads, event parsing, row decoding) ~37%,
  the stream's event handling and type conversion ~22%, the apply workers (batching, pgx encoding)
  ~23%, dispatch (conflict keys) ~8%; the rest is the runtime. The whole machine is the limit: on
  the same backlog sluice, PostgreSQL and MariaDB's dump thread together use ~1.7 of the 2 cores.
- pg_chameleon replays with `on_error_replay: continue` (its example configuration): a row it
  fails to replay is skipped, so check the correctness line above (in an earlier run its target
  did not match the source).
EOF
}

# catchup_vs WORKLOAD: sluice's catch-up tps / pg_chameleon's.
catchup_vs() {
	local s c
	s="$(div "$(med "$CATCHUP" sluice "$1" 4)" "$(med "$CATCHUP" sluice "$1" 6)" 2)"
	c="$(div "$(med "$CATCHUP" chameleon "$1" 4)" "$(med "$CATCHUP" chameleon "$1" 6)" 2)"
	div "$s" "$c" 1
}

plot() {
	local venv="$WORK/../plotvenv" log="$WORK/logs/plot.log"
	{
		[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
		"$venv/bin/python" -c 'import matplotlib' 2>/dev/null || "$venv/bin/pip" install -q matplotlib
	} >"$log" 2>&1 || {
		bench_log "matplotlib setup failed (see $log); no plot"
		return 1
	}
	"$venv/bin/python" - "$WORK" "$PLOT" <<'PY' >>"$log" 2>&1 || { bench_log "plot failed (see $log)"; return 1; }
import csv, glob, os, re, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

work, out = sys.argv[1], sys.argv[2]
live = [r for r in csv.reader(open(os.path.join(work, "live.tsv")), delimiter="\t") if len(r) > 15 and r[2] == "1"]
workloads = list(dict.fromkeys(r[1] for r in live))
tools = list(dict.fromkeys(r[0] for r in live))
fig, axes = plt.subplots(len(workloads), len(tools), figsize=(6 * len(tools), 2.6 * len(workloads)), squeeze=False)
for r in live:
    tool, wl, t0 = r[0], r[1], int(r[13])
    ax = axes[workloads.index(wl)][tools.index(tool)]
    # Source writes/s from sysbench's per-second report.
    sx, sy = [], []
    for line in open(os.path.join(work, "logs", f"{tool}.{wl}.1.sysbench.log")):
        m = re.match(r"\[ *(\d+)s \].*r/w/o: [\d.]+/([\d.]+)/", line)
        if m:
            sx.append(int(m.group(1)))
            sy.append(float(m.group(2)))
    # Applied row changes/s and lag from the target samples.
    ts, hb, rows = [], [], []
    for line in open(os.path.join(work, "samples", f"{tool}.{wl}.1.tsv")):
        f = line.strip().split("|")
        if len(f) == 3 and f[1] and f[2]:
            ts.append((int(f[0]) - t0) / 1e6)
            hb.append(int(f[1]))
            rows.append(int(f[2]))
    ax_x, ax_y = [], []
    for i in range(len(ts)):
        j = i
        while j > 0 and ts[i] - ts[j] < 1.0:  # rate over the last second
            j -= 1
        if ts[i] > ts[j]:
            ax_x.append(ts[i])
            ax_y.append((rows[i] - rows[j]) / (ts[i] - ts[j]))
    lag = [((t * 1e6 + t0) - h) / 1e6 for t, h in zip(ts, hb)]
    ax.plot(sx, sy, label="source writes/s", color="tab:blue")
    ax.plot(ax_x, ax_y, label="applied rows/s", color="tab:green")
    ax.set_title(f"{tool}: {wl}", fontsize=9)
    ax.set_xlabel("s", fontsize=8)
    ax.tick_params(labelsize=7)
    ax2 = ax.twinx()
    ax2.plot(ts, [max(0, l) for l in lag], label="lag s", color="tab:red", linewidth=0.8)
    ax2.set_ylabel("lag s", fontsize=8, color="tab:red")
    ax2.tick_params(labelsize=7)
    if ax is axes[0][0]:
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
fig.tight_layout()
fig.savefig(out, dpi=90)
PY
}

{
	echo "Produced by \`bench/replicate.sh\` ($(awk -F'\t' '{print $3}' "$LIVE" | sort -u | wc -l) pass(es); figures are medians over passes)."
	echo
	bench_machine_md
	echo "- pg_chameleon $(runuser -u sluicebench -- /home/sluicebench/venv/bin/pip show pg-chameleon 2>/dev/null | awk '/^Version/ {print $2}') (PyPI, venv, unprivileged user), its example configuration (batch 10,000 rows, sleep_loop 1 s)"
	echo "- data: sysbench oltp_common, ${BENCH_TABLES:-8} tables x ${BENCH_TABLE_SIZE:-100000} rows per tool (each tool replicates its own copy); load: sysbench ${BENCH_THREADS:-8} threads, ${BENCH_SECONDS:-60} s per workload, uniform keys"
	echo "- runs: $(date -u -d "@$(stat -c %Y "$WORK"/logs/*.tool.log | sort -n | head -n1)" '+%Y-%m-%d %H:%M') to $(date -u -d "@$(stat -c %Y "$WORK"/logs/*.tool.log | sort -n | tail -n1)" '+%H:%M UTC') (the date and load average above are the report's)"
	echo "- correctness after the last run (row counts and content hash of every table vs the source): $CORRECT"
	[[ -n ${BENCH_REPORT_NOTE:-} ]] && echo "- note: $BENCH_REPORT_NOTE"
	echo
	echo "### Live replication"
	echo
	echo "Source tps = sysbench transactions / load seconds. Applied tps = the same transactions / seconds from the"
	echo "load's start until the target had all of them (heartbeat). Lag = now - newest source heartbeat"
	echo "(written every 0.1 s) visible in the target, sampled every 0.25 s from the load's start until caught up."
	echo
	live_table
	echo
	echo "### Catch-up"
	echo
	echo "The tool stopped, ${BENCH_SECONDS:-60} s of load, then the tool started; caught up = the target has the"
	echo "heartbeat written when the load ended. Catch-up / source = how many times faster the backlog was applied"
	echo "than it was written (tool start-up included)."
	echo
	catchup_table
	echo
	notes
	if grep -q '^sluice' "$CATCHUP" && grep -q '^chameleon' "$CATCHUP"; then
		for wl in $(workloads "$CATCHUP"); do
			echo "- $wl: sluice catches up $(catchup_vs "$wl")x faster than pg_chameleon"
		done
		echo
	fi
	if [[ -n ${BENCH_EXTRA_WORK:-} ]]; then
		# A further pass kept next to the main one (e.g. sluice alone on a quieter machine).
		LIVE="$BENCH_EXTRA_WORK/live.tsv" CATCHUP="$BENCH_EXTRA_WORK/catchup.tsv" LOGS="$BENCH_EXTRA_WORK/logs"
		echo "### ${BENCH_EXTRA_LABEL:-Another pass}"
		echo
		live_table
		echo
		catchup_table
		echo
		LIVE="$WORK/live.tsv" CATCHUP="$WORK/catchup.tsv" LOGS="$WORK/logs"
	fi
	if plot; then
		echo "![source writes/s, applied rows/s and lag over time, first pass](benchmarks-replicate.png)"
		echo
	fi
} >"$OUT"

bench_publish replicate "$OUT"
