# shellcheck shell=bash
# bench/pg_server.sh: one throwaway PostgreSQL server for a benchmark (bench/reverse.sh), the
# counterpart of bench/mysql_target_servers.sh. Source it after bench/lib.sh. The server has its
# own data directory under $PG_SRV_ROOT, a free 127.0.0.1 port and the sandbox's settings
# (scripts/sandbox pg_write_config: wal_level=logical, shared_buffers, synchronous_commit=off),
# runs as the postgres OS user, and is stopped by pg_ctl. The sandbox's PostgreSQL is left alone:
# other engineers' tests run there, and its postgres CPU would count their work too.
#
#   pg_server_start                  initdb, start, provision postgres/postgres and sluice/sluice
#                                    (LOGIN CREATEDB REPLICATION, the replication-origin functions);
#                                    then points lib.sh's BENCH_PG_HOST/PORT/PIDFILE at it, so
#                                    bench_psql, bench_hash_pg, bench_pg_recreate_db and
#                                    bench_cpu_postgres work on this server
#   pg_server_stop                   pg_ctl stop -m fast (bounded), data directory removed unless
#                                    BENCH_KEEP_SERVERS=1
#   pg_url DB [USER]                 postgres://USER:USER@127.0.0.1:PORT/DB (default sluice)
#
# Variables: PG_SRV_ROOT (default $BENCH_WORK/servers), BENCH_PG_SHARED_BUFFERS (default 1GB, as
# in the sandbox), BENCH_PG_SYNCHRONOUS_COMMIT (default off, as in the sandbox; with off a logical
# walsender sees a commit only once the WAL writer has flushed it, up to wal_writer_delay later).

PG_SRV_BIN="${PG_SRV_BIN:-$(find /usr/lib/postgresql/*/bin -maxdepth 0 2>/dev/null | sort -V | tail -n1)}"
PG_SRV_PORT='' PG_SRV_DIR='' PG_SRV_RUN=''

pg_url() { echo "postgres://${2:-sluice}:${2:-sluice}@127.0.0.1:$PG_SRV_PORT/$1"; }

_pg_as() { runuser -u postgres -- "$@"; }

# _pg_in_cgroup CMD...: CMD, and so the server it starts, in a cpu cgroup of its own when
# BENCH_PG_CGROUP=1. Every PostgreSQL backend calls setsid(), and with the kernel's autogroup
# scheduling (sched_autogroup_enabled=1, as on this box) each then weighs as much as the whole
# mariadbd or the whole sluice: eight busy backends take the CPU from the MariaDB the reverse stream
# applies into. In one cgroup the server weighs as one service, as under systemd.
_pg_in_cgroup() {
	if [[ ${BENCH_PG_CGROUP:-} != 1 ]]; then
		"$@"
		return
	fi
	PG_SRV_CGROUP=/sys/fs/cgroup/cpu/sluice-bench-pg-$$
	mkdir -p "$PG_SRV_CGROUP" || return 1
	(echo "$BASHPID" >"$PG_SRV_CGROUP/cgroup.procs" && "$@")
}

pg_server_start() {
	local dir="${PG_SRV_ROOT:?}/pg" attempt port
	[[ -x $PG_SRV_BIN/initdb ]] || {
		bench_log "no PostgreSQL server binaries (initdb) under /usr/lib/postgresql/*/bin"
		return 1
	}
	# A server an earlier run left behind (killed with SIGKILL) is stopped before the directory is reused.
	if [[ -f $dir/data/postmaster.pid ]]; then
		bench_log "stopping the PostgreSQL an earlier run left in $dir"
		_pg_as "$PG_SRV_BIN/pg_ctl" -D "$dir/data" -m fast -w -t 120 stop >/dev/null 2>&1
	fi
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	chown postgres:postgres "$dir"
	_pg_as test -x "$dir" || {
		bench_log "the postgres OS user cannot reach $dir: every parent directory must be world-searchable"
		return 1
	}
	# The socket path must stay short, which $BENCH_WORK may not allow.
	PG_SRV_RUN="$(mktemp -d /tmp/sluice-pg-XXXXXX)" && chown postgres:postgres "$PG_SRV_RUN" || return 1
	PG_SRV_DIR=$dir
	_pg_as "$PG_SRV_BIN/initdb" -D "$dir/data" -U postgres --encoding=UTF8 --locale=C.UTF-8 \
		--auth-local=peer --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 || {
		bench_log "initdb failed (see $dir/initdb.log)"
		return 1
	}
	cat >"$dir/data/pg_hba.conf" <<'EOF'
local   all           postgres                 peer
host    all           all        127.0.0.1/32  scram-sha-256
host    replication   all        127.0.0.1/32  scram-sha-256
EOF
	for attempt in 1 2 3; do
		port="$(mt_free_port)" || return 1
		cat >"$dir/data/postgresql.auto.conf" <<EOF
# bench/pg_server.sh: the sandbox's settings (scripts/sandbox pg_write_config)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$PG_SRV_RUN'
wal_level = logical
max_connections = 300
shared_buffers = ${BENCH_PG_SHARED_BUFFERS:-1GB}
max_wal_size = 4GB
synchronous_commit = ${BENCH_PG_SYNCHRONOUS_COMMIT:-off}
EOF
		chown postgres:postgres "$dir/data/pg_hba.conf" "$dir/data/postgresql.auto.conf"
		if _pg_in_cgroup _pg_as setsid "$PG_SRV_BIN/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 120 start \
			</dev/null >"$dir/pg_ctl.out" 2>&1; then
			PG_SRV_PORT=$port
			break
		fi
		grep -q 'could not bind\|Address already in use' "$dir/postgres.log" 2>/dev/null || {
			bench_log "PostgreSQL did not start: $(tail -n 5 "$dir/postgres.log" 2>/dev/null)"
			return 1
		}
		bench_log "port $port was taken before PostgreSQL bound it; another port (attempt $attempt)"
	done
	[[ -n $PG_SRV_PORT ]] || return 1
	# The replication-origin functions: the forward PostgreSQL sink marks its sessions with an
	# origin (docs/reverse.md); template1 passes the grant on to the databases created later.
	local db
	_pg_as "$PG_SRV_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SRV_RUN" -p "$PG_SRV_PORT" -U postgres -d postgres \
		>"$dir/provision.log" 2>&1 <<'SQL' || {
ALTER ROLE postgres PASSWORD 'postgres';
CREATE ROLE sluice LOGIN CREATEDB REPLICATION NOSUPERUSER PASSWORD 'sluice';
-- Apply sessions run with session_replication_role = replica (docs/replication.md, "Triggers").
GRANT SET ON PARAMETER session_replication_role TO sluice;
SQL
		bench_log "provisioning PostgreSQL failed (see $dir/provision.log)"
		return 1
	}
	for db in template1 postgres; do
		_pg_as "$PG_SRV_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PG_SRV_RUN" -p "$PG_SRV_PORT" -U postgres -d "$db" \
			>>"$dir/provision.log" 2>&1 <<'SQL' || return 1
GRANT EXECUTE ON FUNCTION pg_replication_origin_create(text), pg_replication_origin_drop(text),
	pg_replication_origin_oid(text), pg_replication_origin_session_setup(text),
	pg_replication_origin_session_reset(), pg_replication_origin_session_is_setup() TO sluice;
SQL
	done
	# shellcheck disable=SC2034 # lib.sh's
	BENCH_PG_HOST=127.0.0.1 BENCH_PG_PORT=$PG_SRV_PORT BENCH_PG_PIDFILE="$dir/data/postmaster.pid"
	bench_log "started throwaway PostgreSQL: 127.0.0.1:$PG_SRV_PORT, pid $(bench_pidfile_pid "$BENCH_PG_PIDFILE"), data $dir/data"
}

pg_server_stop() {
	[[ -n $PG_SRV_DIR && -f $PG_SRV_DIR/data/postmaster.pid ]] || return 0
	_pg_as "$PG_SRV_BIN/pg_ctl" -D "$PG_SRV_DIR/data" -m fast -w -t 120 stop >/dev/null 2>&1 ||
		bench_log "pg_ctl stop of $PG_SRV_DIR/data failed (see $PG_SRV_DIR/postgres.log)"
	[[ -n ${PG_SRV_CGROUP:-} ]] && rmdir "$PG_SRV_CGROUP" 2>/dev/null
	rm -rf "$PG_SRV_RUN"
	[[ -n ${BENCH_KEEP_SERVERS:-} ]] || rm -rf "$PG_SRV_DIR"
	PG_SRV_DIR=''
	bench_log "stopped throwaway PostgreSQL"
}
