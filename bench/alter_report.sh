#!/usr/bin/env bash
# bench/alter_report.sh WORK: turns the results of bench/alter.sh ($WORK/meta.env, runs.tsv,
# logs/*.sysbench.log) into the "## alter" section of docs/benchmarks.md and the plot
# docs/benchmarks-alter.png (python3 venv with matplotlib from PyPI, shared with the other
# reports). BENCH_NO_DOC=1 prints the section and leaves docs/ alone; BENCH_REPORT_NOTE adds a
# remark. Can be re-run on the same WORK dir.
set -uo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"

WORK=$1
[[ -s $WORK/meta.env ]] || bench_die "$WORK/meta.env missing: run bench/alter.sh first"
# shellcheck disable=SC1091
source "$WORK/meta.env"
RUNS="$WORK/runs.tsv"
PLOT="$BENCH_ROOT/docs/benchmarks-alter.png"
[[ -n ${BENCH_NO_DOC:-} ]] && PLOT="$WORK/benchmarks-alter.png"
OUT="$WORK/section.md"

tool_name() {
	case $1 in
	sluice) echo "sluice alter" ;;
	ptosc) echo "pt-online-schema-change" ;;
	native) echo "MariaDB INPLACE" ;;
	*) echo "$1" ;;
	esac
}

# The per-run table: one row per run, ordered by threads, tool (as run), rep.
runs_table() {
	echo "| threads | tool | run | exit | ALTER s | tps before | tps during | during/before | tps after | worst 1-s tps during | client errors before / during / after | probe's longest write wait ms, before / during | writes blocked at the swap (sluice's log) ms | tool CPU s | mariadbd CPU s | sysbench CPU s | equal to the reference |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
		function name(t) { return t == "sluice" ? "sluice alter" : t == "ptosc" ? "pt-online-schema-change" : t == "native" ? "MariaDB INPLACE" : t }
		NF < 10 { printf "| %s | %s | %d | failed (%s; see logs) | | | | | | | | | | | | | |\n", $2, name($1), $3, $4; next }
		{
			r = ($6 != "-" && $6 > 0 && $7 != "-") ? sprintf("%.2f", $7 / $6) : "-"
			printf "| %s | %s | %d | %s | %.1f | %s | %s | %s | %s | %s | %d / %d / %d | %s / %s | %s | %s | %s | %s | %s |\n",
				$2, name($1), $3, $4, $5, $6, $7, r, $8, $9, $10, $11, $12, $16, $17, $19, $20, $21, $22, $23
		}' "$RUNS" | sort -t'|' -k2,2n -s
}

# goals: per threads and tool, over its runs: during/before >= 0.9, 0 client errors (before,
# during, after, and the probe), longest write wait during the ALTER < 1 s, equal.
goals() {
	awk -F'\t' '
		function name(t) { return t == "sluice" ? "sluice alter" : t == "ptosc" ? "pt-online-schema-change" : t == "native" ? "MariaDB INPLACE" : t }
		{ k = $2 " threads, " name($1); if (!(k in n)) order[++no] = k; n[k]++ }
		NF < 10 || $4 != 0 { bad[k]++; next }
		{
			if ($6 > 0 && $7 / $6 >= 0.9) tp[k]++
			if ($10 + $11 + $12 + $18 == 0) er[k]++
			if ($17 < 1000) st[k]++
			if ($23 == "yes") eq[k]++
		}
		END {
			for (i = 1; i <= no; i++) {
				k = order[i]
				printf "- %s (%d runs%s): throughput during >= 0.9 of before in %d; 0 client errors in %d; longest write wait < 1 s in %d; equal in %d\n",
					k, n[k], bad[k] ? ", " bad[k] " failed" : "", tp[k], er[k], st[k], eq[k]
			}
		}' "$RUNS" | sort -t' ' -k2,2n -s
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
import csv, os, re, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

work, out = sys.argv[1], sys.argv[2]
names = {"sluice": "sluice alter", "ptosc": "pt-online-schema-change", "native": "MariaDB INPLACE, LOCK=NONE"}
runs = [r for r in csv.reader(open(os.path.join(work, "runs.tsv")), delimiter="\t") if len(r) >= 26]
# The first run of each (threads, tool): the plot shows one run, the table all of them.
first = {}
for r in runs:
    first.setdefault((int(r[1]), r[0]), r)
if not first:
    sys.exit(0)
threads = sorted({k[0] for k in first})
tools = [t for t in ["sluice", "ptosc", "native"] if any(k[1] == t for k in first)]
fig, axes = plt.subplots(len(threads), len(tools), figsize=(4.6 * len(tools), 2.9 * len(threads)), squeeze=False)
for i, th in enumerate(threads):
    for j, tool in enumerate(tools):
        ax = axes[i][j]
        r = first.get((th, tool))
        if r is None:
            ax.axis("off")
            continue
        tsb, ta, tb = int(r[23]), int(r[24]), int(r[25])
        xs, tps, errs = [], [], []
        for line in open(os.path.join(work, "logs", f"{tool}.t{th}.{r[2]}.sysbench.log")):
            m = re.match(r"\[ *(\d+)s \].* tps: ([\d.]+) .* err/s: ([\d.]+)", line)
            if m:
                # the interval's middle, in seconds since the ALTER started
                xs.append((tsb + (int(m.group(1)) - 0.5) * 1e6 - ta) / 1e6)
                tps.append(float(m.group(2)))
                errs.append(float(m.group(3)))
        ax.plot(xs, tps, color="tab:blue", linewidth=1, label="sysbench tps")
        ax.axvspan(0, (tb - ta) / 1e6, color="tab:orange", alpha=0.2, label=f"ALTER ({(tb - ta) / 1e6:.1f} s)")
        ax.axvline(0, color="tab:orange", linewidth=0.8)
        ax.axvline((tb - ta) / 1e6, color="tab:orange", linewidth=0.8)
        ex = [x for x, e in zip(xs, errs) if e > 0]
        if ex:
            ax.scatter(ex, [0] * len(ex), color="tab:red", marker="x", s=18, label=f"errors ({int(sum(errs))})", zorder=3)
        ax.set_ylim(bottom=0)
        failed = "" if r[3] == "0" else f" (failed: exit {r[3]})"
        ax.set_title(f"{names.get(tool, tool)}, {th} threads{failed}", fontsize=9)
        ax.set_xlabel("s since the ALTER started", fontsize=8)
        ax.set_ylabel("tps", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="lower left")
fig.suptitle("sysbench oltp_write_only throughput while the table is altered", fontsize=10)
fig.tight_layout()
fig.savefig(out, dpi=90)
PY
		bench_log "plot failed (see $log)"
		return 1
	}
}

# ---------------------------------------------------------------- the section

{
	echo "Produced by \`bench/alter.sh\` (\`bench/run.sh alter\`), ${RUN_START:-?} to ${RUN_END:-?} (${RUN_MINUTES:-?} min)."
	echo
	echo "- machine: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"); load average at the start ${LOADAVG:-?} (shared with other work)"
	echo "- server: a throwaway MariaDB ${MARIADB_VERSION:-?} started by the script (not the sandbox's), with the sandbox's"
	echo "  settings: binlog ROW/FULL, sync_binlog=0, innodb_flush_log_at_trx_commit=2, 1 GB buffer pool and redo log"
	echo "- tools: ${VERSION_sluice:-sluice (not run)}, built from commit ${SLUICE_COMMIT:-?}; ${VERSION_ptosc:-pt-online-schema-change (not run)}; ${SYSBENCH_VERSION:-sysbench ?}"
	echo "- data: \`sysbench oltp_common --tables=1 --table-size=${SIZE:-?} prepare\` into a database kept pristine; every run"
	echo "  alters a fresh copy of it (\`CREATE TABLE … LIKE\` + \`INSERT … SELECT\`): $(awk '{ printf "%s rows, %.0f MB", $2, $3 / 1048576 }' <<<"${BASE_STATS:-x 0 0}") (data + indexes)"
	[[ -n ${BENCH_REPORT_NOTE:-} ]] && echo "- note: $BENCH_REPORT_NOTE"
	echo
	if [[ -n ${INSTANT_REASON:-} ]]; then
		echo "The ALTER: \`${ALTER:-?}\`. INSTANT cannot do it (asked on an empty copy, the server says: \"$INSTANT_REASON\"),"
		echo "so sluice is run with \`--method copy\` (what \`--method auto\` would fall back to)."
	else
		echo "The ALTER: \`${ALTER:-?}\`. **The server can run it as ALGORITHM=INSTANT** (\`--method auto\` would do that);"
		echo "sluice is run with \`--method copy\` anyway, to measure the copy."
	fi
	echo
	echo "- load: \`${SB_CMD:-?}\` (oltp_write_only: per transaction one UPDATE of an indexed column, one of a"
	echo "  non-indexed one, one DELETE and one INSERT of the same id; sysbench's default server-side prepared"
	echo "  statements), started ${BEFORE:-?} s before the ALTER and stopped ${AFTER:-?} s after it ended."
	echo "  \`--mysql-ignore-errors=${IGNORE:-all}\`: sysbench goes on after any error and counts it (err/s); its default"
	echo "  ignores deadlocks and lock wait timeouts without a word and ends the run at any other error. It does not"
	echo "  say which errors it counted; the probe's are in logs/<run>.probe.err of the work dir."
	echo "- sluice: \`${CMD_sluice:-not run}\`"
	echo "- pt-online-schema-change: \`${CMD_ptosc:-not run}\`"
	echo "- MariaDB: \`${CMD_native:-not run}\`"
	echo
	echo "Before = the 1-s sysbench reports from second 4 until the ALTER started; during = the reports overlapping"
	echo "the ALTER; after = the rest. Worst 1-s tps = the lowest report during the ALTER. The probe is one more"
	echo "client (text protocol) that updates one row every 20 ms and reads the server's clock before each UPDATE:"
	echo "its longest wait is how long a write was blocked at most (the cut-over's lock for the copying tools, the"
	echo "metadata lock upgrade for MariaDB's own ALTER). CPU seconds are of the ALTER's duration only (tool: its"
	echo "process tree; mariadbd and sysbench: /proc/<pid>/stat before and after). Equal: the altered table has"
	echo "the row count, content hash (every column), \`CHECKSUM TABLE\` and definition of a reference built without"
	echo "any online tool: the pristine copy, the same ALTER run offline, then the last image of every key from"
	echo "the clients' row changes of \`sbtest1\` in the run's binlog."
	echo
	runs_table
	echo
	echo "Goals (issue 11): throughput during the change >= 0.9 of before; 0 client errors; the cut-over blocks writes"
	echo "for < 1 s; the result equal. Runs meeting each:"
	echo
	goals
	echo
	if [[ -n ${MAX_THREADS:-} ]]; then
		echo "The ${MAX_THREADS}-thread run is sysbench's highest write rate on this box (the 2 cores are saturated by"
		echo "mariadbd and sysbench), the rate at which a single-threaded binlog applier such as gh-ost's falls behind."
		echo "gh-ost is not measured: 1.1.6 does not start on MariaDB."
		echo
	fi
	echo "Not measured here: replicas. MariaDB's INPLACE ALTER does not block writes on the primary, but a replica"
	echo "replays it as one statement after it ended on the primary and stalls behind it for its whole duration."
	echo
	if plot; then
		echo "![sysbench tps over time, the ALTER's span shaded, per tool and thread count](benchmarks-alter.png)"
		echo
	fi
} >"$OUT"

bench_publish "alter" "$OUT"
