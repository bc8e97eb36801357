# shellcheck shell=bash
# bench/snapshot_report.sh: the "## snapshot" section of docs/benchmarks.md from $BENCH_RESULTS
# (sourced by bench/snapshot.sh; uses its DB, TABLES, ROWS, SRC_ROWS, SRC_BYTES, TOOLS, SKIPPED).

tool_name() {
	case $1 in
	sluice) echo "sluice snapshot" ;;
	sluice_base) echo "sluice snapshot (base build)" ;;
	pgloader) echo "pgloader" ;;
	chameleon) echo "pg_chameleon init_replica" ;;
	copy) echo "COPY limit ($COPY_SESSIONS sessions)" ;;
	pipe) echo "pipe mariadb → psql \\copy ($COPY_SESSIONS sessions)" ;;
	*) echo "$1" ;;
	esac
}

# checks_of TOOL: "k/n" runs whose row counts equalled the source.
checks_of() {
	local ok all
	ok="$(grep -c "^$1 [0-9]* ok$" "$BENCH_WORK/checks.txt" 2>/dev/null || true)"
	all="$(grep -c "^$1 " "$BENCH_WORK/checks.txt" 2>/dev/null || true)"
	echo "${ok:-0}/${all:-0}"
}

mbps() { awk -v b="$SRC_BYTES" -v s="$1" 'BEGIN{ if (s == "-" || s <= 0) print "-"; else printf "%.1f", b / 1048576 / s }'; }
rowps() { awk -v r="$SRC_ROWS" -v s="$1" 'BEGIN{ if (s == "-" || s <= 0) print "-"; else printf "%.0f", r / s }'; }

# median_of TOOL COLUMN: the median only.
median_of() { bench_stat "$1" "$2" | awk '{ print $1 }'; }

result_row() {
	local tool=$1 w wmed wmin wmax n rss
	read -r wmed wmin wmax n < <(bench_stat "$tool" wall)
	if [[ $n == 0 ]]; then
		printf '| %s | no successful run | | | | | | | %s |\n' "$(tool_name "$tool")" "$(checks_of "$tool")"
		return
	fi
	rss="$(median_of "$tool" rss)"
	w="$(bench_fmt "$wmed" 1) ($(bench_fmt "$wmin" 1)–$(bench_fmt "$wmax" 1))"
	printf '| %s | %s | %s (%s–%s) | %s | %s | %s | %s | %s | %s |\n' \
		"$(tool_name "$tool")" "$w" "$(mbps "$wmed")" "$(mbps "$wmax")" "$(mbps "$wmin")" "$(rowps "$wmed")" \
		"$(awk -v k="$rss" 'BEGIN{printf "%.0f", k / 1024}')" \
		"$(bench_fmt "$(median_of "$tool" tool)" 1)" "$(bench_fmt "$(median_of "$tool" my)" 1)" \
		"$(bench_fmt "$(median_of "$tool" pg)" 1)" "$(checks_of "$tool")"
}

# ratio A B: median seconds of B / median seconds of A (= rate of A / rate of B).
ratio() {
	local a b
	a="$(median_of "$1" wall)" b="$(median_of "$2" wall)"
	awk -v a="$a" -v b="$b" 'BEGIN{ if (a == "-" || b == "-" || a <= 0) print "-"; else printf "%.2f", b / a }'
}

# bottleneck_line TOOL: how the median run's CPU splits between the tool and the two servers.
bottleneck_line() {
	local tool=$1 w t m p
	w="$(median_of "$tool" wall)"
	[[ $w == - ]] && return
	t="$(median_of "$tool" tool)" m="$(median_of "$tool" my)" p="$(median_of "$tool" pg)"
	NAME="$(tool_name "$tool")" awk -v w="$w" -v t="$t" -v m="$m" -v p="$p" -v cores="$(nproc)" 'BEGIN {
		name = ENVIRON["NAME"]; tot = t + m + p; avail = w * cores
		top = "the tool"; v = t
		if (m > v) { top = "mariadbd"; v = m }
		if (p > v) { top = "postgres"; v = p }
		printf "- %s: %.1f s wall = %.1f core-seconds available; used %.1f (%.0f%%): tool %.1f, mariadbd %.1f, postgres %.1f; the largest share is %s (%.0f%% of the CPU used).\n",
			name, w, avail, tot, 100 * tot / avail, t, m, p, top, 100 * v / tot }'
}

# faster_peer: the peer tool with the lower median seconds.
faster_peer() {
	local best="" bw="" t w
	for t in pgloader chameleon; do
		w="$(median_of "$t" wall)"
		[[ $w == - ]] && continue
		if [[ -z $best ]] || awk -v a="$w" -v b="$bw" 'BEGIN{ exit !(a < b) }'; then best=$t bw=$w; fi
	done
	echo "$best"
}

write_report() {
	local tool peer r1 r2
	echo
	echo "Full migration, run by \`bench/run.sh snapshot\` (bench/snapshot.sh)."
	echo
	cat "$BENCH_WORK/machine.md"
	echo "- pgloader: $(pgloader --version 2>/dev/null | head -n1 || echo -); pg_chameleon: $CHAMELEON_VERSION (PyPI, Debian python3 venv)"
	echo "- data: \`sysbench oltp_common --tables=$TABLES --table-size=$ROWS prepare\` in MariaDB database \`$DB\`:" \
		"$SRC_ROWS rows, $(awk -v b="$SRC_BYTES" 'BEGIN{printf "%.1f", b / 1048576}') MB (data_length + index_length)"
	echo "- $BENCH_REPS runs of each, interleaved; each into a freshly created PostgreSQL database after a CHECKPOINT"
	echo
	echo "| tool | seconds, median (min–max) | MB/s (min–max) | rows/s | peak RSS MB | CPU s tool | CPU s mariadbd | CPU s postgres | rows and content = source |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for tool in $TOOLS; do
		if [[ -n ${SKIPPED[$tool]:-} ]]; then
			printf '| %s | not run: %s | | | | | | | |\n' "$(tool_name "$tool")" "${SKIPPED[$tool]}"
		else
			result_row "$tool"
		fi
	done
	echo
	peer="$(faster_peer)"
	r1="-" r2="-"
	[[ -n $peer && -z ${SKIPPED[sluice]:-} ]] && r1="$(ratio sluice "$peer")"
	[[ -z ${SKIPPED[copy]:-} && -z ${SKIPPED[sluice]:-} ]] && r2="$(ratio sluice copy)"
	echo "Ratios of the median rates (same run):"
	echo
	echo "- sluice / faster peer (${peer:+$(tool_name "$peer")}): **$r1** (goal ≥ 2)"
	echo "- sluice / COPY limit: **$r2** (goal ≥ 0.7)"
	echo
	echo "Where the CPU went ($(nproc) cores; median runs; the server figures include any other client"
	echo "of the shared sandbox during the run, so small values are noisy):"
	echo
	for tool in $TOOLS; do
		[[ -z ${SKIPPED[$tool]:-} ]] && bottleneck_line "$tool"
	done
	echo
	if [[ -n ${SKIPPED[sluice]:-} ]]; then
		SLUICE_CMD_MD="not run (${SKIPPED[sluice]})."
	else
		SLUICE_CMD_MD="\`sluice ${SLUICE_ARGS[*]//sluice:sluice@/sluice:xxxxx@}\`: schema, consistent parallel copy, indexes (its own method and defaults)."
	fi
	cat <<EOF
What each contender did (all read \`$DB\` as the sandbox user sluice and write schema \`$DB\` of
their own fresh PostgreSQL database). Correctness: after each run, every table's \`count(*)\` and a
content hash computed inside each server (XOR over the rows of the first 64 bits of
\`sha256(concat_ws('#', $HASH_COLS)), 64 bits XORed\`, columns as text) were compared with the source's; the last
column counts the runs where both were equal; a run that differs is not counted in the figures.

- **sluice**: ${SLUICE_CMD_MD}
- **pgloader**: \`pgloader --dynamic-space-size 8192 mysql://…/$DB postgresql://…/bench_pgloader\`,
  otherwise its defaults (the heap option is needed: the Debian build crashes with its default heap
  on this data).
- **pg_chameleon**: only \`chameleon init_replica\` is timed (\`create_replica_schema\` and
  \`add_source\` run before, untimed), as the unprivileged OS user $CHAMELEON_USER, defaults
  (copy_mode file, copy_max_memory 300M).
- **COPY limit**: the rows exported once beforehand to local TSV files (\`mariadb --batch --raw\`,
  not timed). Timed: CREATE SCHEMA, then $COPY_SESSIONS parallel psql sessions each taking the next
  table, in one transaction: CREATE TABLE with the column types sluice creates for sysbench
  (integer, integer, varchar(120), varchar(60)), \`\\copy … FROM file WITH (FREEZE)\` (text
  format, streamed through the client), ADD PRIMARY KEY, CREATE INDEX on k, ANALYZE. It is the target's side alone: no reading from
  MariaDB, no type conversion.
- **pipe** (no tool, for reference): the same as the COPY limit, but each session pipes
  \`mariadb --batch --raw -e 'SELECT * FROM t'\` straight into \`\\copy … FROM STDIN\`: the
  source's read and the target's write on the same cores, without type conversion, checks or a
  consistent snapshot. What any tool could reach on this box if its own work cost nothing.
EOF
	echo
	if [[ -s $BENCH_DIR/snapshot-notes.md ]]; then
		cat "$BENCH_DIR/snapshot-notes.md"
		echo
	fi
	if [[ -s $BENCH_WORK/profile/groups.txt ]]; then
		echo "CPU profile of one extra sluice run (\`perf record -a -g\`, whole machine; % of all samples):"
		echo
		echo '```'
		echo "by process:"
		sed 's/^/  /' "$BENCH_WORK/profile/by-command.txt"
		echo "sluice, by what the time went to (% of all samples, % of sluice's):"
		sed 's/^/  /' "$BENCH_WORK/profile/groups.txt"
		echo "postgres, inclusive time of its main steps (% of all samples):"
		sed 's/^/  /' "$BENCH_WORK/profile/postgres-inclusive.txt"
		echo '```'
		echo
	fi
	if [[ -s $BENCH_WORK/profile/by-command.txt ]]; then
		echo "<details><summary>Top symbols of that profile (% of all samples)</summary>"
		echo
		local comm
		for comm in sluice postgres mariadbd; do
			[[ -s $BENCH_WORK/profile/$comm.txt ]] || continue
			echo
			echo "Top symbols of $comm:"
			echo
			echo '```'
			sed 's/ *- *- *$//' "$BENCH_WORK/profile/$comm.txt"
			echo '```'
		done
		echo
		echo "</details>"
		echo
	fi
	echo "<details><summary>Every run (label, run, exit, seconds, peak RSS kB, CPU s tool, mariadbd, postgres, % CPU idle just before)</summary>"
	echo
	echo '```'
	cat "$BENCH_RESULTS"
	echo '```'
	echo
	echo "</details>"
}
