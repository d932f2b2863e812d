#!/usr/bin/env bash
# Prints the report of the newest run committed in results/ (by the run's
# created_at), as gmlab printed it on that GPU: what gmlab produces, for a
# machine that cannot measure. Needs nothing but the shell's tools.
set -euo pipefail
cd "$(dirname "$0")/.."
newest="" newest_at=""
for json in results/*.json; do
  [ -f "${json%.json}.txt" ] || continue
  at=$(grep -o '"created_at": *"[^"]*"' "$json" | head -1 | sed 's/.*: *"\(.*\)"/\1/')
  if [[ "$at" > "$newest_at" ]]; then newest=$json newest_at=$at; fi
done
[ -n "$newest" ] || { echo "no committed run with its report in results/" >&2; exit 1; }
text=${newest%.json}.txt
echo "== What gmlab reports on a GPU: $text ($(wc -l <"$text") lines), measured $newest_at;"
echo "== its command and build are listed in results/README.md."
echo
cat "$text"
