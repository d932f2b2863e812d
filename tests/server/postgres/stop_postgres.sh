#!/bin/sh
# Stops a cluster started by start_postgres.sh DIR and removes DIR. Safe to
# run again, or on a DIR whose start failed half-way.
set -u

[ $# -eq 1 ] || { echo "usage: stop_postgres.sh DIR" >&2; exit 2; }
DIR=$1
[ -d "$DIR" ] || exit 0
# Never remove a directory that start_postgres.sh did not make its own.
[ -f "$DIR/gmlab-postgres" ] || { echo "stop_postgres: $DIR is not a gmlab test cluster" >&2; exit 1; }

if [ -f "$DIR/data/postmaster.pid" ]; then
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null); do
        [ -x "$d/pg_ctl" ] && [ "$(cat "$DIR/data/PG_VERSION" 2>/dev/null)" = "$(basename "$(dirname "$d")")" ] && BINDIR=$d
    done
    if [ -n "${BINDIR:-}" ]; then
        if [ "$(id -u)" -eq 0 ]; then
            runuser -u "$(stat -c %U "$DIR/data")" -- "$BINDIR/pg_ctl" -D "$DIR/data" -m fast -w stop >&2 ||
                runuser -u "$(stat -c %U "$DIR/data")" -- "$BINDIR/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2
        else
            "$BINDIR/pg_ctl" -D "$DIR/data" -m fast -w stop >&2 || "$BINDIR/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2
        fi
    fi
fi
rm -rf "$DIR"
