#!/bin/sh
# Starts a throwaway PostgreSQL cluster for the server tests and prints its
# connection URL (the only line on stdout; progress goes to stderr).
#
#   start_postgres.sh [DIR]    DIR: where the cluster lives (default: a new
#                              temporary directory); stop_postgres.sh DIR
#                              stops it and removes DIR.
#
# The cluster listens on 127.0.0.1 only, on a free port, with no Unix socket,
# and asks for a random password. PostgreSQL refuses to run as root: as root
# the cluster belongs to the "postgres" system user. Running it again for a DIR
# whose cluster is up prints the same URL. Installs Debian's postgresql if no
# server binaries are found.
set -eu

log() { echo "start_postgres: $*" >&2; }

find_bindir() {
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    done
    return 1
}

BINDIR=$(find_bindir || true)
if [ -z "$BINDIR" ]; then
    if [ "$(id -u)" -ne 0 ]; then log "PostgreSQL is not installed and this is not root"; exit 1; fi
    log "installing postgresql"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q postgresql >&2 || { apt-get update -q >&2 && apt-get install -y -q postgresql >&2; }
    BINDIR=$(find_bindir) || { log "no initdb after installing postgresql"; exit 1; }
fi

if [ $# -ge 1 ]; then
    DIR=$1
    mkdir -p "$DIR"
else
    DIR=$(mktemp -d "${TMPDIR:-/tmp}/gmlab-pg.XXXXXX")
fi
DIR=$(cd "$DIR" && pwd)
MARK="$DIR/gmlab-postgres"   # stop_postgres.sh removes only directories marked so
touch "$MARK"

# Commands on the cluster run as its owner.
if [ "$(id -u)" -eq 0 ]; then
    OWNER=postgres
    id "$OWNER" >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin "$OWNER"
    chown "$OWNER" "$DIR"
    as_owner() { runuser -u "$OWNER" -- "$@"; }
    as_owner test -w "$DIR" || { log "$OWNER cannot reach $DIR: choose a DIR (or TMPDIR) outside private directories"; exit 1; }
else
    as_owner() { "$@"; }
fi
chmod 700 "$DIR"

DATA="$DIR/data"
if [ -f "$DIR/url" ] && as_owner "$BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    cat "$DIR/url"
    exit 0
fi

if [ ! -f "$DATA/PG_VERSION" ]; then
    PASSWORD=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    printf '%s\n' "$PASSWORD" > "$DIR/password"
    [ "$(id -u)" -eq 0 ] && chown "$OWNER" "$DIR/password"
    chmod 600 "$DIR/password"
    as_owner "$BINDIR/initdb" -D "$DATA" -U gmlab --pwfile="$DIR/password" --auth=scram-sha-256 \
        -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
fi
PASSWORD=$(cat "$DIR/password")

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Another process may take the port between the probe and the start: retry.
started=0
for attempt in 1 2 3 4 5; do
    PORT=$(free_port)
    if as_owner "$BINDIR/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -c unix_socket_directories=''" start >&2; then
        started=1
        break
    fi
    log "start on port $PORT failed (attempt $attempt)"
    tail -n 5 "$DIR/server.log" >&2 || true
done
[ "$started" -eq 1 ] || { log "could not start PostgreSQL"; exit 1; }

PGPASSWORD=$PASSWORD "$BINDIR/psql" -q -X -h 127.0.0.1 -p "$PORT" -U gmlab -d postgres \
    -c "CREATE DATABASE gmlab" >&2 2>"$DIR/createdb.log" || grep -q "already exists" "$DIR/createdb.log" || {
    cat "$DIR/createdb.log" >&2; exit 1; }

URL="postgresql://gmlab:$PASSWORD@127.0.0.1:$PORT/gmlab"
printf '%s\n' "$URL" > "$DIR/url"
log "running in $DIR (port $PORT); stop with: stop_postgres.sh $DIR"
echo "$URL"
