#!/bin/sh
# Runs one command against a throwaway PostgreSQL and stops it afterwards,
# whatever happens (exit, failure, SIGINT/SIGTERM from CTest's timeout):
#
#   run_with_postgres.sh COMMAND [ARGS...]
#
# Every argument that is exactly @PGURL@ is replaced by the connection URL,
# which is also exported as GMLAB_TEST_POSTGRES_URL. Exits with the command's
# status.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: run_with_postgres.sh COMMAND [ARGS...]" >&2; exit 2; }

DIR=$(mktemp -d "${TMPDIR:-/tmp}/gmlab-pg.XXXXXX") || exit 1
child=
cleanup() {
    [ -n "$child" ] && kill -TERM "$child" 2>/dev/null
    "$HERE/stop_postgres.sh" "$DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

URL=$("$HERE/start_postgres.sh" "$DIR") || { echo "run_with_postgres: PostgreSQL did not start" >&2; exit 1; }
export GMLAB_TEST_POSTGRES_URL="$URL"

# Rebuild the argument list with the URL in place of @PGURL@.
n=$#
while [ "$n" -gt 0 ]; do
    a=$1
    shift
    [ "$a" = "@PGURL@" ] && a=$URL
    set -- "$@" "$a"
    n=$((n - 1))
done

# In the background so that a signal interrupts the wait and the traps run
# at once (a foreground command would delay them until it ends).
"$@" &
child=$!
wait "$child"
status=$?
child=
exit "$status"
