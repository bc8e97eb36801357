#!/usr/bin/env bash
# bench/reverse_report.sh WORK: turns the results of bench/reverse.sh ($WORK/meta.env, live.tsv,
# catchup.tsv, samples/, logs/) into the "## reverse" section of docs/benchmarks.md and the plot
# docs/benchmarks-reverse.png (python3 venv with matplotlib from PyPI, shared with the other
# reports). BENCH_NO_DOC=1 prints the section and leaves docs/ alone (the plot goes to WORK);
# BENCH_REPORT_NOTE adds a remark. Can be re-run on the same WORK dir.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

WORK=$1
[[ -s $WORK/meta.env ]] || bench_die "$WORK/meta.env missing: run bench/reverse.sh first"
# shellcheck disable=SC1091
source "$WORK/meta.env"
LIVE="$WORK/live.tsv"
CATCHUP="$WORK/catchup.tsv"
PLOT="$BENCH_ROOT/docs/benchmarks-reverse.png"
[[ -n ${BENCH_NO_DOC:-} ]] && PLOT="$WORK/benchmarks-reverse.png"
OUT="$WORK/section.md"
OPENGAUSS=0.84 # openGauss reverse / forward: 27k against 32k tps on a 128-core server (issue 10)

# ---------------------------------------------------------------- live

live_section() {
	[[ -s $LIVE ]] || return 0
	echo "### Live: the stream running while sysbench writes its source"
	echo
	echo "${THREADS:-8} threads, ${SECONDS_LOAD:-60} s, uniform keys. Source tps = sysbench transactions / load seconds;"
	echo "applied tps = the same transactions / seconds from the load's start until the target had them all; lag = now -"
	echo "newest source heartbeat (written every 0.1 s) visible in the target, sampled every 0.25 s from the load's start"
	echo "until caught up. CPU seconds: sluice for its whole run (also the few seconds before the load), mariadbd and"
	echo "postgres (postmaster and all backends) during the load and the catch-up after it."
	echo
	echo "| direction | workload | pass | source tps | applied tps | applied/source | lag p50 s | lag p99 s | lag max s | sluice CPU s | mariadbd CPU s | postgres CPU s | sluice peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' -v OFS=' | ' '
		$4 == "failed" { print "| " ($1 == "reverse" ? "reverse PG → MariaDB" : "forward MariaDB → PG"), $2, $3, "failed (see logs)", "", "", "", "", "", "", "", "", " |"; next }
		{ printf "| %s | %s | %s | %.0f | %.0f | %.2f | %s | %s | %s | %s | %s | %s | %s |\n", ($1 == "reverse" ? "reverse PG → MariaDB" : "forward MariaDB → PG"),
			$2, $3, $4 / $5, $4 / $6, $5 / $6, $7, $8, $9, $10, $11, $12, $13 }' "$LIVE"
	echo
	# The goal is judged on the lag: a stream that keeps up with lag L shows applied/source =
	# load / (load + L), just under 1.
	awk -F'\t' '$1 == "reverse" && $4 != "failed" {
		printf "- goal (reverse live at PostgreSQL'"'"'s write rate, lag < 2 s), %s pass %s: %s (applied/source %.2f, max lag %s s)\n",
			$2, $3, ($9 < 2 ? "met" : "NOT met"), $5 / $6, $9 }' "$LIVE"
	echo "- applied/source is below 1.00 by the lag left when the load ended: a stream that keeps up with lag L shows"
	echo "  load / (load + L), e.g. 0.98 for 1 s after 60 s."
	echo
}

# ---------------------------------------------------------------- catch-up

catchup_section() {
	[[ -s $CATCHUP ]] || return 0
	echo "### Catch-up: the stream stopped, ${SECONDS_LOAD:-60} s of load, then started"
	echo
	echo "Before each load the stream is brought up to date and stopped; after it, started and timed until the target has"
	echo "the heartbeat written when the load ended (sluice's start-up included). Catch-up / write = how many times faster"
	echo "the backlog was applied than the source wrote it (the same transactions). CPU seconds during the catch-up."
	echo
	echo "| direction | workload | pass | backlog txns | written in s | applied in s | write tps | catch-up tps | catch-up / write | sluice CPU s | sluice CPU ms / txn | mariadbd CPU s | postgres CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' -v OFS=' | ' '
		$4 == "failed" { print "| " ($1 == "reverse" ? "reverse PG → MariaDB" : "forward MariaDB → PG"), $2, $3, "failed (see logs)", "", "", "", "", "", "", "", "", " |"; next }
		{ printf "| %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.2f | %s | %.2f | %s | %s |\n", ($1 == "reverse" ? "reverse PG → MariaDB" : "forward MariaDB → PG"),
			$2, $3, $4, $5, $6, $4 / $5, $4 / $6, $5 / $6, $7, 1000 * $7 / $4, $8, $9 }' "$CATCHUP"
	echo
	awk -F'\t' '$1 == "reverse" && $4 != "failed" {
		printf "- goal (reverse catch-up >= 3x the write rate), %s pass %s: %s (%.2fx)\n", $2, $3, ($5 / $6 >= 3 ? "met" : "NOT met"), $5 / $6 }' "$CATCHUP"
	echo
}

bigtxn_section() {
	local f="$WORK/bigtxn.tsv"
	[[ -s $f ]] || return 0
	echo "### One large PostgreSQL transaction"
	echo
	echo "One \`INSERT … SELECT generate_series\` into rev.sbtest1 on PostgreSQL, committed, then the reverse stream started"
	echo "with \`--until-caught-up\` and a bounded \`--max-txn-memory\` (sluice's start-up and exit included): the transaction"
	echo "arrives from pgoutput in fragments and goes into one MariaDB transaction. Peak RSS of the sluice process (GNU time)."
	echo
	echo "| rows | WAL of the transaction (MB) | --max-txn-memory | applied in s | MB of WAL / s | sluice peak RSS (MB) | sluice CPU s | rows in MariaDB |"
	echo "|---|---|---|---|---|---|---|---|"
	awk -F'\t' '$1 == "failed" { print "| failed (see logs) | | | | | | | |"; next }
		{ printf "| %s | %.0f | %s | %s | %.1f | %s | %s | %s%s |\n", $1, $2 / 1048576, $7, $3, $2 / 1048576 / $3, $4, $5, $6, ($6 == $1 ? " (all)" : " (MISSING ROWS)") }' "$f"
	echo
}

# ---------------------------------------------------------------- reverse / forward

# median_rate FILE DIR WL TXNS_COL SECONDS_COL: median over the passes of txns / seconds.
median_rate() {
	awk -F'\t' -v d="$2" -v w="$3" -v n="$4" -v s="$5" '$1 == d && $2 == w && $4 != "failed" && $s > 0 { print $n / $s }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else printf "%.1f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f\n", a / b }'; }

ratio_section() {
	[[ -s $LIVE || -s $CATCHUP ]] || return 0
	local wls wl r f
	wls="$(cut -f2 "$LIVE" "$CATCHUP" | awk 'NF && !seen[$0]++')"
	echo "### Reverse / forward"
	echo
	echo "The same sysbench workload, written on PostgreSQL and replicated back into MariaDB (reverse), and written on"
	echo "MariaDB and replicated into PostgreSQL (forward), in the same run, minutes apart (medians over the passes). The"
	echo "catch-up rate is what a direction can apply at most; the live rate is capped by what its source takes. openGauss"
	echo "publishes reverse / forward = $OPENGAUSS (27k against 32k tps, 128 cores)."
	echo
	echo "| workload | reverse catch-up tps | forward catch-up tps | reverse / forward (catch-up) | reverse live applied tps | forward live applied tps | reverse / forward (live) | PostgreSQL / MariaDB write tps | openGauss |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for wl in $wls; do
		local rc fc rl fl rs fs
		rc="$(median_rate "$CATCHUP" reverse "$wl" 4 6)" fc="$(median_rate "$CATCHUP" forward "$wl" 4 6)"
		rl="$(median_rate "$LIVE" reverse "$wl" 4 6)" fl="$(median_rate "$LIVE" forward "$wl" 4 6)"
		rs="$(median_rate "$LIVE" reverse "$wl" 4 5)" fs="$(median_rate "$LIVE" forward "$wl" 4 5)"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$wl" "$rc" "$fc" "$(div "$rc" "$fc")" "$rl" "$fl" \
			"$(div "$rl" "$fl")" "$(div "$rs" "$fs")" "$OPENGAUSS"
	done
	echo
	r="${CORRECT_reverse:-not checked}" f="${CORRECT_forward:-not checked}"
	echo "- correct afterwards (every table, the heartbeat table included: row counts and a content hash computed in each"
	echo "  server, XOR of the first 64 bits of sha256(concat_ws('#', columns)) per row): reverse $r, forward $f"
	echo
}

# ---------------------------------------------------------------- plot

plot() {
	local venv="$WORK/../plotvenv" log="$WORK/logs/plot.log"
	{
		[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
		"$venv/bin/python" -c 'import matplotlib' 2>/dev/null || "$venv/bin/pip" install -q matplotlib
	} >"$log" 2>&1 || {
		bench_log "matplotlib setup failed (see $log); no plot"
		return 1
	}
	"$venv/bin/python" - "$WORK" "$PLOT" <<'PY' >>"$log" 2>&1 || {
import csv, os, re, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

work, out = sys.argv[1], sys.argv[2]
def rows(name):
    p = os.path.join(work, name)
    return [r for r in csv.reader(open(p), delimiter="\t")] if os.path.exists(p) else []

def lines(p):
    return open(p) if os.path.exists(p) else []

live = [r for r in rows("live.tsv") if len(r) >= 16]
catchup = [r for r in rows("catchup.tsv") if len(r) >= 10]
if not live and not catchup:
    sys.exit(0)
ncols = max(2, len(live))
nrows = (1 if live else 0) + (1 if catchup else 0)
fig = plt.figure(figsize=(max(10, 4.0 * ncols), 3.4 * nrows))
grid = fig.add_gridspec(nrows, ncols)
name = {"reverse": "reverse PG → MariaDB", "forward": "forward MariaDB → PG"}
row = 0
if live:
    for i, r in enumerate(live):
        d, wl, rep, t0 = r[0], r[1], r[2], int(r[13])
        tag = f"live.{d}.{wl}.{rep}"
        ax = fig.add_subplot(grid[row, i])
        sx, sy = [], []
        for line in lines(os.path.join(work, "logs", tag + ".sysbench.log")):
            m = re.match(r"\[ *(\d+)s \] thds: \d+ tps: ([\d.]+)", line)
            if m:
                sx.append(int(m.group(1)))
                sy.append(float(m.group(2)))
        ts, lag = [], []
        for line in lines(os.path.join(work, "samples", tag + ".tsv")):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 2 and f[0].isdigit() and f[1].isdigit() and int(f[0]) >= t0:
                ts.append((int(f[0]) - t0) / 1e6)
                lag.append(max(0, (int(f[0]) - int(f[1])) / 1e6))
        ax.plot(sx, sy, label="source tps (sysbench)", color="tab:blue")
        ax.set_title(f"live {name.get(d, d)}: {wl}", fontsize=8)
        ax.set_xlabel("s", fontsize=8)
        ax.tick_params(labelsize=7)
        ax2 = ax.twinx()
        ax2.plot(ts, lag, label="lag s", color="tab:red", linewidth=0.8)
        ax2.set_ylabel("lag s", fontsize=8, color="tab:red")
        ax2.tick_params(labelsize=7)
        if i == 0:
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    row += 1
if catchup:
    ax = fig.add_subplot(grid[row, :])
    wls = list(dict.fromkeys(r[1] for r in catchup))
    dirs = list(dict.fromkeys(r[0] for r in catchup))
    bars = [(d, kind) for d in dirs for kind in ("write", "catch-up")]
    width = 0.8 / len(bars)
    for b, (d, kind) in enumerate(bars):
        ys = []
        for wl in wls:
            v = [float(r[3]) / float(r[4] if kind == "write" else r[5]) for r in catchup
                 if r[0] == d and r[1] == wl and r[3] != "failed"]
            ys.append(statistics.median(v) if v else 0)
        ax.bar([x + b * width for x in range(len(wls))], ys, width, label=f"{name.get(d, d)}: {kind} tps",
               alpha=(0.5 if kind == "write" else 1.0), color=("tab:orange" if d == "reverse" else "tab:green"))
    ax.set_xticks([x + (len(bars) - 1) * width / 2 for x in range(len(wls))], wls, fontsize=8)
    ax.set_ylabel("transactions / s", fontsize=8)
    ax.set_title("catch-up after a stop: the source's write rate and the backlog's apply rate (higher is better)", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=90)
PY
		bench_log "plot failed (see $log)"
		return 1
	}
}

# ---------------------------------------------------------------- the section

{
	echo "Produced by \`bench/reverse.sh\` (\`bench/run.sh reverse\`), ${RUN_START:-?} to ${RUN_END:-?} (${RUN_MINUTES:-?} min)."
	echo
	echo "- machine: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"); load average at the start ${LOADAVG:-?} (shared with other work)"
	echo "- servers: a throwaway MariaDB ${MARIADB_VERSION:-?} and a throwaway PostgreSQL ${PG_VERSION:-?} started by the script on"
	echo "  this machine (not the sandbox's), with the sandbox's settings: MariaDB binlog ROW/FULL, sync_binlog=0,"
	echo "  innodb_flush_log_at_trx_commit=2, 1 GB buffer pool; PostgreSQL wal_level=logical, synchronous_commit=${PG_SYNCHRONOUS_COMMIT:-on},"
	echo "  shared_buffers=1GB${PG_CGROUP:+, PostgreSQL in one cpu cgroup (BENCH_PG_CGROUP=1)}. sluice, sysbench and both servers share the $(nproc) cores."
	echo "- tools: ${SYSBENCH_VERSION:-sysbench ?}; ${SLUICE_VERSION:-sluice ?}, built from commit ${SLUICE_COMMIT:-?}"
	echo "- data: sysbench oltp_common, ${TABLES:-8} tables x ${TABLE_SIZE:-100000} rows ($(awk -v b="${DATA_BYTES:-0}" 'BEGIN { printf "%.0f", b / 1048576 }') MB in MariaDB), prepared in MariaDB"
	echo "  database rev and copied to database fwd, plus a heartbeat table hb in each; both copied into PostgreSQL by"
	echo "  \`sluice snapshot\` (untimed: ${SNAP_SECONDS_reverse:-?} s and ${SNAP_SECONDS_forward:-?} s), PostgreSQL databases and schemas rev and fwd"
	echo "- copy: \`${SNAP_CMD_reverse:-}\` (and the same for fwd with \`--stream fwd\`, which the forward stream continues)"
	echo "- reverse: \`${CMD_reverse:-}\`; load: \`${SB_reverse:-}\`"
	echo "- forward: \`${CMD_forward:-}\`; load: \`${SB_forward:-}\`"
	echo "- passes: ${REPS:-1}; the two directions alternate (reverse first in odd passes)"
	[[ -n ${BENCH_REPORT_NOTE:-} ]] && echo "- note: $BENCH_REPORT_NOTE"
	echo
	live_section
	catchup_section
	ratio_section
	bigtxn_section
	if plot; then
		echo "![live runs (source tps, lag) and catch-up rates, reverse and forward](benchmarks-reverse.png)"
		echo
	fi
} >"$OUT"

bench_publish "reverse" "$OUT"
