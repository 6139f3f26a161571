#!/usr/bin/env bash
# Merges the findings of sharded `conform fuzz --out` runs by cause: for
# each cause (the op and provenance.cause of a saved case), or for each
# failure signature (provenance.signature) of a case no rule explains, the
# case with the fewest input elements after shrinking is kept, with its
# .npy files. Usage: scripts/merge-findings.sh OUT SHARD_DIR...
set -euo pipefail
out=$1; shift
mkdir -p "$out"
declare -A best best_size best_dir
for dir in "$@"; do
  for case in "$dir"/*.json; do
    [ -e "$case" ] || continue
    sig=$(jq -r '.provenance.signature // empty' "$case")
    [ -n "$sig" ] || continue
    cause=$(jq -r '.provenance.cause // empty' "$case")
    if [ -n "$cause" ] && [ "$cause" != "no rule confirmed by neighbours" ]; then
      sig="$(jq -r '.op' "$case") cause $cause"
    fi
    size=$(jq -r '.provenance.input_elements' "$case" | cut -d' ' -f1)
    if [ -z "${best[$sig]:-}" ] || [ "$size" -lt "${best_size[$sig]}" ]; then
      best[$sig]=$(basename "$case" .json)
      best_size[$sig]=$size
      best_dir[$sig]=$dir
    fi
  done
done
for sig in "${!best[@]}"; do
  id=${best[$sig]}
  cp "${best_dir[$sig]}/$id".* "$out"/
  echo "$sig: $id (${best_size[$sig]} input elements, from ${best_dir[$sig]})"
done | sort
echo "${#best[@]} causes and signatures merged into $out"
