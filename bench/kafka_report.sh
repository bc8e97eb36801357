# shellcheck shell=bash
# bench/kafka_report.sh: the report of bench/kafka.sh, sourced by it (report WORK). Turns
# $WORK/meta.env, catchup.tsv, pp.tsv, live.tsv and samples/ into the "## kafka" section of
# docs/benchmarks.md and docs/benchmarks-kafka.png (python3 venv with matplotlib, shared with the
# other reports). BENCH_NO_DOC=1 prints the section and leaves docs/ alone; BENCH_REPORT_NOTE adds
# a remark. `BENCH_REPORT_ONLY=1 bench/kafka.sh` re-runs it on the last work dir.

# median_of: median, min and max of the numbers on stdin ("- - -" when none).
median_of() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - -"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], v[NR] }'
}

report_catchup() {
	local work=$1 wl
	[[ -s $work/catchup.tsv ]] || return 0
	echo "### Backlog of two shards into Kafka: sluice vs the broker's own producer"
	echo
	echo "Per pass: a new stream starts at both shards' current positions (\`--no-snapshot\`, on idle shards), then"
	echo "sysbench writes both shards at once for ${SECONDS_LOAD:-60} s (${THREADS:-8} threads each, uniform keys) with sluice stopped;"
	echo "then sluice writes that backlog, timed from its start to its exit (start-up included):"
	echo
	echo "- sluice: \`${CATCHUP_CMD:-}\`"
	echo "- broker limit, right after in the same pass: \`${PP_CMD:-}\`"
	echo "  with N = the records sluice wrote (events + tombstones) and S = their average key + value size; one topic"
	echo "  of 1 partition (sluice writes one 1-partition topic per table); plain = no transactions (idempotent"
	echo "  producer, the 3.9 client's default), txn = one transaction every ${PP_TXN_MS:-100} ms"
	echo "- records and bytes are counted by an independent read_committed consumer (\`bench/kafkacount\`, franz-go,"
	echo "  no sluice code); MB = 2^20 bytes of key + value (ProducerPerformance's MB/sec: records x S / 2^20 / s)"
	echo "- ProducerPerformance's rate is its own (from its first send, JVM start-up excluded); sluice's includes"
	echo "  connecting to both shards and Kafka and reading its state, so the ratio slightly favours the broker"
	echo
	echo "| workload | pass | backlog txns (shard1 + shard2) | written in s | records (events) | avg record B | sluice s | sluice records/s | sluice MB/s | sluice CPU s | sluice peak RSS MB | shards' server CPU s | Kafka CPU s | Kafka txns | correct |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
		$3 == "failed" { printf "| %s | %s | failed (see logs) | | | | | | | | | | | | |\n", $1, $2; next }
		{ printf "| %s | %s | %s + %s | %s | %d (%d) | %.0f | %s | %.0f | %.1f | %s | %s | %.1f + %.1f | %s | %d | %s |\n",
			$1, $2, $3, $4, $5, $13, $12, ($13 ? $14 / $13 : 0), $6, $13 / $6, $14 / 1048576 / $6, $8, $7, $9, $10, $11, $15, $16 }' "$work/catchup.tsv"
	echo
	echo "Kafka txns: state records in the offsets topic (each Kafka transaction of sluice writes one; a few are"
	echo "written at start-up). Correct: every shard's events per table and op (c/u/d) equal its binlog's row changes"
	echo "since the stream's start position (\`mysqlbinlog\` or \`mariadb-binlog --verbose\`), and there is one tombstone per delete."
	echo
	if [[ -s $work/pp.tsv ]]; then
		echo "| workload | pass | records | record B | sluice records/s | ProducerPerformance records/s (MB/s) | txn: records/s (MB/s) | sluice / broker | sluice / broker txn | PP CPU s | Kafka CPU s (PP) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		awk -F'\t' '
			function fmt0(v) { return (v == "") ? "failed" : sprintf("%.0f", v) }
			FNR == NR { if ($3 != "failed") { r[$1 "\t" $2] = $13 / $6 } ; next }
			$4 == "failed" { next }
			{ k = $1 "\t" $2; pp[k "\t" $3] = $6; mb[k "\t" $3] = $7; n[k] = $4; sz[k] = $5
			  cpu[k] = cpu[k] (cpu[k] == "" ? "" : " / ") $9; kc[k] = kc[k] (kc[k] == "" ? "" : " / ") $10; order[k] = 1 }
			END { for (k in order) { split(k, p, "\t")
				printf "| %s | %s | %d | %s | %.0f | %s (%s) | %s (%s) | %s | %s | %s | %s |\n", p[1], p[2], n[k], sz[k], r[k],
					fmt0(pp[k "\tplain"]), mb[k "\tplain"], fmt0(pp[k "\ttxn"]), mb[k "\ttxn"],
					(pp[k "\tplain"] ? sprintf("%.2f", r[k] / pp[k "\tplain"]) : "-"), (pp[k "\ttxn"] ? sprintf("%.2f", r[k] / pp[k "\ttxn"]) : "-"),
					cpu[k], kc[k] } }' "$work/catchup.tsv" "$work/pp.tsv" | sort
		echo
		echo "PP CPU s and Kafka CPU s: plain / txn."
		echo
		# shellcheck disable=SC2013 # workload names are single words
		for wl in $(awk -F'\t' '{ print $1 }' "$work/catchup.tsv" | awk '!seen[$0]++'); do
			local plain txn
			read -r plain pmin pmax < <(ratios "$work" "$wl" plain | median_of)
			read -r txn tmin tmax < <(ratios "$work" "$wl" txn | median_of)
			[[ $plain == - ]] && continue
			printf -- '- %s: sluice / broker (acks=all) median %.2f (%.2f–%.2f), goal >= 0.5: %s; with transactions %s\n' "$wl" \
				"$plain" "$pmin" "$pmax" "$(awk -v r="$plain" 'BEGIN { print (r >= 0.5) ? "met" : "NOT met" }')" \
				"$([[ $txn == - ]] && echo "not measured" || printf 'median %.2f (%.2f–%.2f)' "$txn" "$tmin" "$tmax")"
		done
		echo
	fi
}

# ratios WORK WORKLOAD MODE: sluice records/s / ProducerPerformance records/s, one line per pass.
ratios() {
	awk -F'\t' -v w="$2" -v m="$3" '
		FNR == NR { if ($1 == w && $3 != "failed") r[$2] = $13 / $6; next }
		$1 == w && $3 == m && $4 != "failed" && ($2 in r) && $6 > 0 { print r[$2] / $6 }' "$1/catchup.tsv" "$1/pp.tsv"
}

report_debezium() {
	local work=$1 wl
	echo "### Debezium on the same backlog"
	echo
	if [[ ! -s $work/debezium.tsv ]]; then
		echo "Not measured: ${DBZ_SKIPPED:-no run}."
		echo
		return 0
	fi
	echo "The Debezium MySQL connector ${DBZ_VERSION:-} (Maven Central) in Kafka Connect 3.9.1 standalone (the"
	echo "sandbox's jars: connect-runtime 3.9.1 matches the broker), one connector per shard as Debezium is deployed"
	echo "(\`${DBZ_CMD:-}\`; connector: \`${DBZ_CONNECTOR:-}\`)."
	echo "Everything else is the default: the connector's (max.batch.size 2048, max.queue.size 8192,"
	echo "poll.interval.ms 500, tombstones on delete) and the worker's source producer (acks=all, set explicitly,"
	echo "max.in.flight.requests.per.connection=1, linger.ms=0, batch.size 16384, no idempotence, no transactions);"
	echo "JsonConverter without schemas for keys and values (as sluice writes by default); plugin.discovery=service_load."
	echo "It is positioned before the load as sluice is (a first run with \`snapshot.mode=no_data\`, stopped once"
	echo "both connectors committed an offset), then, after sluice's and ProducerPerformance's runs of the same pass,"
	echo "started on the same backlog and timed until its table topics hold the backlog's records (end offsets):"
	echo "from the worker's start (JVM and plugin start-up included, as sluice's start-up is in sluice's time) and"
	echo "from its first backlog record in Kafka (streaming only, 0.5 s resolution; the fairer rate for Debezium)."
	echo "Its topics are \`P_dbz.s1.sbtest.*\` and \`P_dbz.s2.sbtest.*\` (one prefix per connector); correct as for sluice."
	echo
	echo "| workload | pass | records | Debezium s (from start / from first record) | Debezium records/s (from start / streaming) | sluice records/s | sluice / Debezium (from start / streaming) | Connect CPU s | Connect peak RSS MB | shards' server CPU s | Kafka CPU s | correct |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
		FNR == NR { if ($3 != "failed") r[$1 "\t" $2] = $13 / $6; next }
		$3 == "failed" { printf "| %s | %s | failed (see logs) | | | | | | | | | |\n", $1, $2; next }
		{ d = $3 / $4; st = ($12 > 0) ? $12 : $4; ds = $3 / st; s = r[$1 "\t" $2]
		  printf "| %s | %s | %d | %s / %s | %.0f / %.0f | %.0f | %s / %s | %s | %s | %.1f + %.1f | %s | %s |\n", $1, $2, $3, $4, st, d, ds, s,
			(s && d ? sprintf("%.2f", s / d) : "-"), (s && ds ? sprintf("%.2f", s / ds) : "-"), $5, $6, $7, $8, $9, $11 }' "$work/catchup.tsv" "$work/debezium.tsv"
	echo
	# shellcheck disable=SC2013 # workload names are single words
	for wl in $(awk -F'\t' '{ print $1 }' "$work/debezium.tsv" | awk '!seen[$0]++'); do
		local m mn mx
		local sm smn smx
		read -r m mn mx < <(awk -F'\t' -v w="$wl" '
			FNR == NR { if ($1 == w && $3 != "failed") r[$2] = $13 / $6; next }
			$1 == w && $3 != "failed" && ($2 in r) && $4 > 0 { print r[$2] / ($3 / $4) }' "$work/catchup.tsv" "$work/debezium.tsv" | median_of)
		read -r sm smn smx < <(awk -F'\t' -v w="$wl" '
			FNR == NR { if ($1 == w && $3 != "failed") r[$2] = $13 / $6; next }
			$1 == w && $3 != "failed" && ($2 in r) && $12 > 0 { print r[$2] / ($3 / $12) }' "$work/catchup.tsv" "$work/debezium.tsv" | median_of)
		[[ $m == - ]] && continue
		printf -- '- %s: sluice / Debezium median %.2f (%.2f–%.2f) from the worker'"'"'s start, goal >= 3: %s' "$wl" "$m" "$mn" "$mx" \
			"$(awk -v r="$m" 'BEGIN { print (r >= 3) ? "met" : "NOT met" }')"
		[[ $sm == - ]] || printf -- '; against its streaming rate alone median %.2f (%.2f–%.2f): %s' "$sm" "$smn" "$smx" \
			"$(awk -v r="$sm" 'BEGIN { print (r >= 3) ? "met" : "NOT met" }')"
		echo
	done
	[[ -n ${DBZ_SKIPPED:-} ]] && echo "- later passes: ${DBZ_SKIPPED}"
	echo
}

report_live() {
	local work=$1
	[[ -s $work/live.tsv ]] || return 0
	echo "### Delay at the shards' full write rate"
	echo
	echo "\`${LIVE_CMD:-}\` runs while sysbench writes both shards at once (${THREADS:-8} threads each, ${SECONDS_LOAD:-60} s)."
	echo "Each shard has a heartbeat row updated every 0.1 s with the shard's clock (epoch µs); a read_committed"
	echo "consumer (\`bench/kafkacount tail\`) stamps each heartbeat event when it receives it: delay = receive time -"
	echo "heartbeat value, so it includes the binlog, sluice, the Kafka transaction's commit and the consumer's fetch"
	echo "(franz-go, fetch max wait 100 ms: a fetch returns as soon as a committed record is there, so the wait bounds only empty polls)."
	echo "Samples from the load's start until both shards' last heartbeat arrived."
	echo
	echo "| workload | source tps (shard1 + shard2) | events | shard1 delay p50 / p99 / max s | shard2 delay p50 / p99 / max s | caught up s after the load | sluice CPU s (whole run) | shards' server CPU s | Kafka CPU s | correct |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '
		$2 == "failed" { printf "| %s | failed (see logs) | | | | | | | | |\n", $1; next }
		{ printf "| %s | %.0f + %.0f | %d | %s / %s / %s | %s / %s / %s | %s | %s | %s + %s | %s | %s |\n",
			$1, $2 / $4, $3 / $4, $6, $7, $8, $9, $11, $12, $13, $5, $15, $16, $17, $18, $19 }' "$work/live.tsv"
	echo
	awk -F'\t' '$2 != "failed" { m = ($9 > $13) ? $9 : $13
		printf "- %s: max delay %.2f s, goal < 1 s: %s\n", $1, m, (m < 1 ? "met" : "NOT met") }' "$work/live.tsv"
	echo
	[[ -s $work/live_commit.tsv ]] || return 0
	echo "The same heartbeat events against their source transaction's commit time (\`source.ts_ms\`, from"
	echo "MySQL's immediate_commit_timestamp; MariaDB's binlog time has whole seconds, so this says little there):"
	echo "the heartbeat's value is taken when its UPDATE starts, so the delay above also holds the shard's own"
	echo "statement and commit latency on the saturated box; this one starts at the commit."
	echo
	echo "| workload | shard1 from commit p50 / p99 / max s | shard2 from commit p50 / p99 / max s |"
	echo "|---|---|---|"
	awk -F'\t' '{ printf "| %s | %s / %s / %s | %s / %s / %s |\n", $1, $2, $3, $4, $6, $7, $8 }' "$work/live_commit.tsv"
	echo
}

report_plot() {
	local work=$1 out=$2 venv="$1/../plotvenv" log="$1/logs/plot.log"
	[[ -s $work/live.tsv || -s $work/catchup.tsv ]] || return 1
	{
		[[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
		"$venv/bin/python" -c 'import matplotlib' 2>/dev/null || "$venv/bin/pip" install -q matplotlib
	} >"$log" 2>&1 || {
		bench_log "matplotlib setup failed (see $log); no plot"
		return 1
	}
	"$venv/bin/python" - "$work" "$out" <<'PY' >>"$log" 2>&1 || {
import csv, os, statistics, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

work, out = sys.argv[1], sys.argv[2]
def rows(name):
    p = os.path.join(work, name)
    return [r for r in csv.reader(open(p), delimiter="\t")] if os.path.exists(p) else []

live = [r for r in rows("live.tsv") if len(r) >= 20]
catch = [r for r in rows("catchup.tsv") if len(r) >= 16]
pp = [r for r in rows("pp.tsv") if len(r) >= 10]
dbz = [r for r in rows("debezium.tsv") if len(r) >= 11 and r[2] != "failed" and float(r[3]) > 0]
panels = len(live) + (1 if catch else 0)
if panels == 0:
    sys.exit(0)
fig, axes = plt.subplots(1, panels, figsize=(4.8 * panels, 3.6), squeeze=False)
axes = axes[0]
i = 0
if catch:
    ax = axes[i]; i += 1
    wls = list(dict.fromkeys(r[0] for r in catch))
    series = [("sluice", lambda w: [float(r[12]) / float(r[5]) for r in catch if r[0] == w]),
              ("ProducerPerformance acks=all", lambda w: [float(r[5]) for r in pp if r[0] == w and r[2] == "plain" and r[3] != "failed"]),
              ("ProducerPerformance, transactions", lambda w: [float(r[5]) for r in pp if r[0] == w and r[2] == "txn" and r[3] != "failed"])]
    if dbz:
        # Its streaming rate (from its first backlog record), the one more favourable to Debezium.
        series.append(("Debezium (Connect standalone), streaming", lambda w: [float(r[2]) / float(r[11] if len(r) >= 12 and float(r[11]) > 0 else r[3]) for r in dbz if r[0] == w]))
    width = 0.8 / len(series)
    for a, (label, f) in enumerate(series):
        ys = [statistics.median(f(w)) if f(w) else 0 for w in wls]
        ax.bar([x + a * width for x in range(len(wls))], ys, width, label=label)
    ax.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(wls))], wls, fontsize=8)
    ax.set_ylim(0, 1.35 * max([p.get_height() for p in ax.patches] + [1]))
    ax.set_ylabel("records/s (median of passes)", fontsize=8)
    ax.set_title("two shards' backlog into Kafka", fontsize=9)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, loc="upper right")
for r in live:
    ax = axes[i]; i += 1
    wl, t0 = r[0], int(r[19])
    for sid, color in (("1", "tab:blue"), ("2", "tab:orange")):
        xs, ys = [], []
        for line in open(os.path.join(work, "samples", f"live.{wl}.tsv")):
            f = line.rstrip("\n").split("\t")
            if len(f) == 3 and f[1] == sid and f[0].isdigit() and f[2].isdigit():
                xs.append((int(f[0]) - t0) / 1e6)
                ys.append((int(f[0]) - int(f[2])) / 1e6)
        ax.plot(xs, ys, label=f"shard{sid}", color=color, linewidth=0.8)
    ax.axvline(float(r[3]), color="k", linestyle="dashed", linewidth=0.8, label="load ends")
    ax.axhline(1.0, color="tab:red", linestyle="dotted", linewidth=0.8, label="goal 1 s")
    ax.set_title(f"delay while both shards run {wl}", fontsize=9)
    ax.set_xlabel("s since the load started", fontsize=8)
    ax.set_ylabel("heartbeat delay s", fontsize=8)
    ax.set_ylim(bottom=0)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=90)
PY
		bench_log "plot failed (see $log)"
		return 1
	}
}

report() {
	local work=$1 out="$1/section.md" plot="$BENCH_ROOT/docs/benchmarks-kafka.png"
	[[ -s $work/meta.env ]] || bench_die "$work/meta.env missing: run bench/kafka.sh first"
	# shellcheck disable=SC1091
	source "$work/meta.env"
	[[ -n ${BENCH_NO_DOC:-} ]] && plot="$work/benchmarks-kafka.png"
	{
		echo "Produced by \`bench/kafka.sh\` (\`bench/run.sh kafka\`), ${RUN_START:-?} to ${RUN_END:-?} (${RUN_MINUTES:-?} min)."
		echo
		echo "- machine: $(nproc) cores ($(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM, kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"); load average at the start ${LOADAVG:-?} (shared with other work)"
		if [[ ${SHARD_FLAVOR:-mariadb} == mysql ]]; then
			echo "- shards: two throwaway MySQL ${SHARD_VERSION:-?} servers (Debian sid's, as the sandbox's) started by the script (server_id 1"
			echo "  and 2; binlog ROW/FULL, row metadata FULL, GTIDs on, sync_binlog=0, innodb_flush_log_at_trx_commit=2, 1 GB buffer pool), each with sysbench's"
		else
			echo "- shards: two throwaway MariaDB ${SHARD_VERSION:-${MARIADB_VERSION:-?}} servers started by the script (server_id 1 and 2; binlog"
			echo "  ROW/FULL, sync_binlog=0, innodb_flush_log_at_trx_commit=2, 1 GB buffer pool), each with sysbench's"
		fi
		echo "  ${TABLES:-8} tables x ${TABLE_SIZE:-100000} rows (${DATA_ROWS:-?} rows, $(awk -v b="${DATA_BYTES:-0}" 'BEGIN { printf "%.0f", b / 1048576 }') MB per shard) in database sbtest, plus a heartbeat table"
		echo "- Kafka: the sandbox's single node (${KAFKA_VERSION:-?}, KRaft, ${KAFKA:-?}, heap ${KAFKA_HEAP:-?}, ${JAVA_VERSION:-java ?}),"
		echo "  replication factor 1; everything on the same 2 cores"
		echo "- tools: ${SYSBENCH_VERSION:-sysbench ?}; ${SLUICE_VERSION:-sluice ?}, built from commit ${SLUICE_COMMIT:-?}"
		[[ -n ${BENCH_REPORT_NOTE:-} ]] && echo "- note: $BENCH_REPORT_NOTE"
		echo
		report_catchup "$work"
		report_live "$work"
		report_debezium "$work"
		if report_plot "$work" "$plot"; then
			echo "![backlog records/s: sluice vs ProducerPerformance; heartbeat delay per shard under load](benchmarks-kafka.png)"
			echo
		fi
	} >"$out"
	bench_publish kafka "$out"
}
