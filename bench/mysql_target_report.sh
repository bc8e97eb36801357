#!/usr/bin/env bash
# bench/mysql_target_report.sh WORK: turns the results of bench/mysql_target.sh ($WORK/meta.env,
# results.tsv, live.tsv, catchup.tsv, samples/, logs/) into the "## mysql target" section of
# docs/benchmarks.md and the plot docs/benchmarks-mysql-target.png (python3 venv with matplotlib
# from PyPI, shared with bench/replicate_report.sh). BENCH_NO_DOC=1 prints the section and leaves
# docs/ alone; BENCH_REPORT_NOTE adds a remark. Can be re-run on the same WORK dir.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

WORK=$1
[[ -s $WORK/meta.env ]] || bench_die "$WORK/meta.env missing: run bench/mysql_target.sh first"
# shellcheck disable=SC1091
source "$WORK/meta.env"
BENCH_RESULTS="$WORK/results.tsv"
LIVE="$WORK/live.tsv"
CATCHUP="$WORK/catchup.tsv"
PLOT="$BENCH_ROOT/docs/benchmarks-mysql-target.png"
[[ -n ${BENCH_NO_DOC:-} ]] && PLOT="$WORK/benchmarks-mysql-target.png"
OUT="$WORK/section.md"

div() { awk -v a="$1" -v b="$2" -v d="${3:-0}" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "-"; else printf "%.*f\n", d, a / b }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }

# ---------------------------------------------------------------- (c) snapshot

# snap_row LABEL NAME: one table row of a snapshot contender.
snap_row() {
	local label=$1 name=$2 w r t m g n
	read -r w wmin wmax n < <(bench_stat "$label" wall)
	if [[ $n == 0 ]]; then
		grep -q "^$label	" "$BENCH_RESULTS" && echo "| $name | failed (see logs) | | | | | | |"
		return
	fi
	read -r r _ < <(bench_stat "$label" rss)
	read -r t _ < <(bench_stat "$label" tool)
	read -r m _ < <(bench_stat "$label" my)
	read -r g _ < <(bench_stat "$label" pg)
	printf '| %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s |\n' "$name" "$n" "$(bench_fmt "$w")" "$(bench_fmt "$wmin")" \
		"$(bench_fmt "$wmax")" "$(div "$(mb "$SNAP_BYTES")" "$w" 1)" "$(bench_fmt "$t")" "$(bench_fmt "$m")" "$(bench_fmt "$g")" "$((${r%.*} / 1024))"
}

snapshot_section() {
	local engines e
	engines="$(awk -F'\t' '$1 ~ /^snapshot\./ { split($1, p, "."); print p[3] }' "$BENCH_RESULTS" | awk '!seen[$0]++')"
	[[ -n $engines ]] || return 0
	echo "### Snapshot into MariaDB"
	echo
	echo "The source database: ${SNAP_ROWS:-?} rows, $(mb "${SNAP_BYTES:-0}") MB (data + indexes after ANALYZE TABLE), copied into a new"
	echo "database on the target; runs per contender and engine: ${REPS:-3}, interleaved. A run counts when the copy has"
	echo "every table with the source's row count and content hash and the requested engine."
	echo
	echo "- **sluice**: \`${SNAP_SLUICE_CMD:-}\`"
	echo "- **pipe**: \`${SNAP_PIPE_CMD:-}\` (shown for ROCKSDB: the \`sed\` rewrites ENGINE= on the"
	echo "  dump's CREATE TABLE lines; for InnoDB the pipe has no \`sed\`)"
	echo
	echo "| target engine / tool | runs | seconds, median (min–max) | MB/s | tool CPU s | source mariadbd CPU s | target mariadbd CPU s | tool peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|"
	for e in $engines; do
		snap_row "snapshot.sluice.$e" "$e: sluice"
		snap_row "snapshot.pipe.$e" "$e: mariadb-dump \\| mariadb"
	done
	echo
	for e in $engines; do
		local s p
		s="$(bench_stat "snapshot.sluice.$e" wall | cut -d' ' -f1)" p="$(bench_stat "snapshot.pipe.$e" wall | cut -d' ' -f1)"
		[[ $s != - && $p != - ]] && echo "- $e: sluice copies $(div "$p" "$s" 2)x as fast as the dump pipe (median seconds)"
	done
	echo
}

# ---------------------------------------------------------------- (a) live

live_section() {
	[[ -s $LIVE ]] || return 0
	echo "### Live replication into MariaDB"
	echo
	echo "\`${LIVE_CMD:-}\` runs while sysbench writes the source (${THREADS:-8} threads, ${SECONDS_LOAD:-60} s,"
	echo "uniform keys); the copy was made by \`sluice snapshot\` just before (untimed). Source tps = sysbench"
	echo "transactions / load seconds; applied tps = the same transactions / seconds from the load's start until"
	echo "the target had all of them; lag = now - newest source heartbeat (written every 0.1 s) visible in the"
	echo "target, sampled every 0.25 s from the load's start until caught up."
	echo
	echo "| target engine | workload | source tps | applied tps | applied/source | lag p50 s | lag p99 s | lag max s | sluice CPU s | source mariadbd CPU s | target mariadbd CPU s | sluice peak RSS MB |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' -v OFS=' | ' '
		$3 == "failed" { print "| " $1, $2, "failed (see logs)", "", "", "", "", "", "", "", "", " |"; next }
		{ printf "| %s | %s | %.0f | %.0f | %.2f | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3 / $4, $3 / $5, $4 / $5, $6, $7, $8, $9, $10, $11, $12 }' "$LIVE"
	echo
	local v
	for v in ${!LIVE_CORRECT_@}; do echo "- ${v#LIVE_CORRECT_}: after its runs the copy equals the source (row counts, content hashes): ${!v}"; done
	# With the lag bounded by L the applied rate is the source's: applied/source falls short of 1 only
	# by the final lag (load / (load + L)), so the goal is judged on the lag.
	awk -F'\t' 'tolower($1) == "innodb" && $3 != "failed" {
		printf "- goal (InnoDB: the source'"'"'s rate with lag < 2 s), %s: %s (applied/source %.2f, max lag %s s)\n",
			$2, ($8 < 2 ? "met" : "NOT met"), $4 / $5, $8 }' "$LIVE"
	echo "- applied/source is below 1.00 by the lag left when the load ended: a copy that keeps up with lag L shows"
	echo "  load / (load + L), e.g. 0.98 for 1 s after 60 s."
	echo
}

# ---------------------------------------------------------------- (b) catch-up

catchup_section() {
	[[ -s $CATCHUP ]] || return 0
	echo "### Catch-up after a stop: sluice vs MariaDB's parallel replication"
	echo
	echo "sluice (its copy made by \`sluice snapshot\`) and a native replica (positioned at a GTID by a consistent"
	echo "\`mariadb-dump --single-transaction --gtid --master-data\` loaded with sql_log_bin=0; ${NATIVE_SETTINGS:-}) both"
	echo "stopped; ${SECONDS_LOAD:-60} s of sysbench on the source; then each applies that same backlog alone, one after"
	echo "the other (sluice first in odd passes, the replica first in even ones), timed from its start (\`sluice"
	echo "replicate\` / \`START SLAVE\`) until it has the heartbeat written when the load ended. The replica has the"
	echo "target's settings (binlog on, log_slave_updates, innodb_flush_log_at_trx_commit=2, sync_binlog=0, 1 GB buffer"
	echo "pool). Catch-up / source = how many times faster the backlog was applied than it was written."
	echo
	[[ -n ${CATCHUP_SLUICE_CMD:-} ]] && echo "- sluice: \`$CATCHUP_SLUICE_CMD\`" && echo
	echo "| workload | pass | applier | backlog txns | written in s | applied in s | catch-up / source | sluice CPU s | source mariadbd CPU s | target/replica mariadbd CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' -v OFS=' | ' '
		$4 == "failed" { print "| " $2, $3, $1, "failed (see logs)", "", "", "", "", "", " |"; next }
		{ printf "| %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s |\n", $2, $3, ($1 == "native" ? "MariaDB replica" : $1), $4, $5, $6, $5 / $6, $7, $8, $9 }' "$CATCHUP"
	echo
	local v
	for v in ${!CATCHUP_CORRECT_@}; do echo "- ${v#CATCHUP_CORRECT_}: after the last pass the copy equals the source (row counts, content hashes): ${!v}"; done
	echo "- CPU: sluice's own seconds are apart from the target's mariadbd; the replica does all its work (IO thread,"
	echo "  SQL threads) in its mariadbd, so compare sluice + target with the replica."
	awk -F'\t' '$4 != "failed" { s[$2 "\t" $3 "\t" $1] = $6 }
		END { for (k in s) { split(k, p, "\t"); if (p[3] == "sluice" && ((p[1] "\t" p[2] "\tnative") in s)) {
			r = s[p[1] "\t" p[2] "\tnative"] / s[k]
			printf "- %s pass %s: sluice applies the backlog %.2fx as fast as the replica (goal >= 2: %s)\n", p[1], p[2], r, (r >= 2 ? "met" : "NOT met") } } }' "$CATCHUP" | sort
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
	"$venv/bin/python" - "$WORK" "$PLOT" <<'PY' >>"$log" 2>&1 || { bench_log "plot failed (see $log)"; return 1; }
import csv, os, re, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

work, out = sys.argv[1], sys.argv[2]
def rows(name):
    p = os.path.join(work, name)
    return [r for r in csv.reader(open(p), delimiter="\t")] if os.path.exists(p) else []

live = [r for r in rows("live.tsv") if len(r) >= 15]
catchup = [r for r in rows("catchup.tsv") if len(r) >= 9]
snap = [r for r in rows("results.tsv") if len(r) >= 4 and r[0].startswith("snapshot.") and r[2] == "0"]
ncols = max(1, len(live))
nrows = (1 if live else 0) + (1 if catchup or snap else 0)
if nrows == 0:
    sys.exit(0)
fig = plt.figure(figsize=(max(10, 4.5 * ncols), 3.4 * nrows))
grid = fig.add_gridspec(nrows, max(ncols, 2))
row = 0
if live:
    for i, r in enumerate(live):
        engine, wl, t0 = r[0], r[1], int(r[12])
        tag = f"live.{engine.lower()}.{wl}"
        ax = fig.add_subplot(grid[row, i])
        sx, sy = [], []
        for line in open(os.path.join(work, "logs", tag + ".sysbench.log")):
            m = re.match(r"\[ *(\d+)s \].*r/w/o: [\d.]+/([\d.]+)/", line)
            if m:
                sx.append(int(m.group(1)))
                sy.append(float(m.group(2)))
        ts, hb, n = [], [], []
        for line in open(os.path.join(work, "samples", tag + ".tsv")):
            f = line.rstrip("\n").split("\t")
            if len(f) == 3 and f[1].isdigit() and f[2].isdigit():
                ts.append((int(f[0]) - t0) / 1e6)
                hb.append(int(f[1]))
                n.append(int(f[2]))
        ax_x, ax_y = [], []
        for k in range(len(ts)):
            j = k
            while j > 0 and ts[k] - ts[j] < 1.0:  # rate over the last second
                j -= 1
            if ts[k] > ts[j]:
                ax_x.append(ts[k])
                ax_y.append((n[k] - n[j]) / (ts[k] - ts[j]))
        ax.plot(sx, sy, label="source writes/s", color="tab:blue")
        ax.plot(ax_x, ax_y, label="target rows written/s (Handler_*)", color="tab:green")
        ax.set_title(f"live, {engine}: {wl}", fontsize=9)
        ax.set_xlabel("s", fontsize=8)
        ax.tick_params(labelsize=7)
        ax2 = ax.twinx()
        ax2.plot(ts, [max(0, (t * 1e6 + t0 - h) / 1e6) for t, h in zip(ts, hb)], label="lag s", color="tab:red", linewidth=0.8)
        ax2.set_ylabel("lag s", fontsize=8, color="tab:red")
        ax2.tick_params(labelsize=7)
        if i == 0:
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper left")
    row += 1
if catchup or snap:
    half = max(ncols, 2) // 2
    if catchup:
        ax = fig.add_subplot(grid[row, :half])
        wls = list(dict.fromkeys(r[1] for r in catchup))
        appliers = list(dict.fromkeys(r[0] for r in catchup))
        width = 0.8 / len(appliers)
        for a, who in enumerate(appliers):
            ys = []
            for wl in wls:
                v = [float(r[5]) for r in catchup if r[0] == who and r[1] == wl and r[3] != "failed"]
                ys.append(statistics.median(v) if v else 0)
            ax.bar([x + a * width for x in range(len(wls))], ys, width,
                   label="MariaDB replica (4 threads, optimistic)" if who == "native" else who)
        load = [statistics.median([float(r[4]) for r in catchup if r[1] == wl and r[3] != "failed"] or [0]) for wl in wls]
        ax.hlines(load, [x - width / 2 for x in range(len(wls))], [x + (len(appliers) - 0.5) * width for x in range(len(wls))],
                  colors="k", linestyles="dashed", label="seconds the source took to write it")
        ax.set_xticks([x + (len(appliers) - 1) * width / 2 for x in range(len(wls))], wls, fontsize=8)
        ax.set_ylim(0, 1.4 * max([p.get_height() for p in ax.patches] + load + [1]))  # room for the legend
        ax.set_ylabel("seconds to apply the backlog", fontsize=8)
        ax.set_title("catch-up after a stop (lower is better)", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="upper right")
    if snap:
        ax = fig.add_subplot(grid[row, half:])
        meta = dict(l.rstrip("\n").split("=", 1) for l in open(os.path.join(work, "meta.env")) if "=" in l)
        mbytes = float(meta.get("SNAP_BYTES", "0").strip("'")) / 1048576
        engines = list(dict.fromkeys(r[0].split(".")[2] for r in snap))
        tools = ["sluice", "pipe"]
        for a, tool in enumerate(tools):
            ys = []
            for e in engines:
                v = [float(r[3]) for r in snap if r[0] == f"snapshot.{tool}.{e}"]
                ys.append(mbytes / statistics.median(v) if v else 0)
            ax.bar([x + a * 0.4 for x in range(len(engines))], ys, 0.4,
                   label="mariadb-dump | mariadb" if tool == "pipe" else tool)
        ax.set_xticks([x + 0.2 for x in range(len(engines))], engines, fontsize=8)
        ax.set_ylim(0, 1.3 * max([p.get_height() for p in ax.patches] + [1]))
        ax.set_ylabel("MB/s", fontsize=8)
        ax.set_title("snapshot into MariaDB, by target engine (higher is better)", fontsize=9)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=90)
PY
}

# ---------------------------------------------------------------- the section

{
	echo "Produced by \`bench/mysql_target.sh\` (\`bench/run.sh mysql-target\`), $RUN_START to ${RUN_END:-?} (${RUN_MINUTES:-?} min)."
	echo
	echo "- machine: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"); load average at the start ${LOADAVG:-?} (shared with other work)"
	echo "- servers: throwaway MariaDB ${MARIADB_VERSION:-?} instances started by the script on this machine (not the"
	echo "  sandbox's): the source, the target (MyRocks ${ROCKSDB_VERSION:-not loaded}) and, for the catch-up, the native"
	echo "  replica; all with the sandbox's settings: binlog ROW/FULL, gtid_strict_mode, log_slave_updates, sync_binlog=0,"
	echo "  innodb_flush_log_at_trx_commit=2, 1 GB buffer pool and redo log, rocksdb_block_cache_size=256M"
	echo "- tools: ${SYSBENCH_VERSION:-sysbench ?}; ${DUMP_VERSION:-mariadb-dump ?}; ${SLUICE_VERSION:-sluice (not run)}, built from commit ${SLUICE_COMMIT:-?}"
	echo "- data: sysbench oltp_common, ${TABLES:-8} tables x ${TABLE_SIZE:-100000} rows, plus a heartbeat table"
	[[ -n ${SLUICE_SKIPPED:-} ]] && echo "- **sluice not measured**: $SLUICE_SKIPPED"
	[[ -n ${BENCH_REPORT_NOTE:-} ]] && echo "- note: $BENCH_REPORT_NOTE"
	echo
	snapshot_section
	live_section
	catchup_section
	if plot; then
		echo "![live runs (source writes/s, target rows/s, lag), catch-up seconds, snapshot MB/s](benchmarks-mysql-target.png)"
		echo
	fi
} >"$OUT"

bench_publish "mysql target" "$OUT"
