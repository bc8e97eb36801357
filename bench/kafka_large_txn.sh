#!/usr/bin/env bash
# bench/kafka_large_txn.sh: one 2 GB source transaction (2.1M rows of ~1 KB, one INSERT … SELECT)
# through `sluice stream --max-txn-memory 256MB` into the sandbox's Kafka (issue 14, "Large
# transactions in bounded memory"): prints the source commit time, the binlog files, sluice's time
# and peak RSS (/usr/bin/time -v), and the records a read_committed consumer counts per topic.
# Needs the dev sandbox (scripts/sandbox start: MariaDB 127.0.0.1:13306, Kafka 127.0.0.1:19092) and
# about 10 GB of free disk (the table, its binlog, the topic); drops database k2g and its topics first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p /tmp/k2g
go build -o /tmp/k2g/sluice ./cmd/sluice
go build -o /tmp/k2g/kafkacount ./bench/kafkacount
M="mariadb --no-defaults -h127.0.0.1 -P13306 -uroot -proot"
$M -e "DROP DATABASE IF EXISTS k2g; CREATE DATABASE k2g; CREATE TABLE k2g.t (id BIGINT PRIMARY KEY, n INT NOT NULL, s VARCHAR(1000) NOT NULL) ENGINE=InnoDB"
/tmp/k2g/kafkacount -prefix k2g delete >/dev/null 2>&1 || true
SRC="mysql://root:root@127.0.0.1:13306/k2g"
/tmp/k2g/sluice stream --source "$SRC" --kafka 127.0.0.1:19092 --topic-prefix k2g --stream k2g --no-snapshot --until-caught-up --log-format text > /tmp/k2g/first.log 2>&1
echo "stream started $(date -u +%T)"
t0=$(date +%s.%N)
$M -D k2g -e "SET SESSION max_statement_time=0; INSERT INTO k2g.t SELECT seq, seq % 100, REPEAT(CHAR(65 + seq % 26), 1000) FROM seq_1_to_2100000"
t1=$(date +%s.%N)
echo "source transaction committed in $(echo "$t1 - $t0" | bc) s"
$M -e "SELECT ROUND(SUM(LENGTH(s) + 12) / 1048576) AS row_data_mib, COUNT(*) AS \`rows\` FROM k2g.t"
/usr/bin/time -v -o /tmp/k2g/big.time /tmp/k2g/sluice stream --source "$SRC" --kafka 127.0.0.1:19092 --topic-prefix k2g --stream k2g \
	--max-txn-memory 256MB --until-caught-up --log-format text >/tmp/k2g/big.log 2>&1 || { echo "stream failed"; tail -20 /tmp/k2g/big.log; exit 1; }
grep -E "reading the binlog|large transaction applied" /tmp/k2g/big.log
grep -E "Maximum resident|Elapsed|User time|System time" /tmp/k2g/big.time
/tmp/k2g/kafkacount -prefix k2g -idle 10s count
$M -e "DROP DATABASE k2g"
/tmp/k2g/kafkacount -prefix k2g delete >/dev/null
