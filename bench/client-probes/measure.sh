#!/usr/bin/env bash
# make client-compare: what each payment client adds to a function that already has the
# DynamoDB SDK on the store's HTTP stack (base/). For each: a fresh target directory, base built
# first, then the probe's build timed (what it adds, its release link included), its crates
# counted, the stripped binary's size, and the instructions from exec to the client built
# (callgrind, INIT_ONLY: no request is sent).
set -euo pipefail
cd "$(dirname "$0")"
out=${CARGO_TARGET_BASE:-$(cd ../.. && pwd)/target/client-probes}
printf '| client | build it adds (wall, CPU) | crates it adds | stripped binary | instructions to the client built |\n|---|---|---|---|---|\n'
# WHO=ours (or theirs) measures one of them.
for who in ${WHO:-ours theirs}; do
  export CARGO_TARGET_DIR="$out/$who"
  rm -rf "$CARGO_TARGET_DIR"
  cp ../../Cargo.lock base/Cargo.lock
  cp ../../Cargo.lock "$who/Cargo.lock"
  (cd base && cargo build --release --quiet)
  start=$(date +%s.%N)
  cpu=$( { /usr/bin/time -f '%U %S' bash -c "cd $who && cargo build --release 2>&1 | grep -c Compiling > '$CARGO_TARGET_DIR/crates'" ; } 2>&1 | tail -1)
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  base_size=$(stat -c %s "$CARGO_TARGET_DIR/release/probe-base")
  size=$(stat -c %s "$CARGO_TARGET_DIR/release/probe-$who")
  ir() { INIT_ONLY=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" 2>&1 | sed -n 's/.*Collected : //p'; }
  base_ir=$(ir "$CARGO_TARGET_DIR/release/probe-base")
  probe_ir=$(ir "$CARGO_TARGET_DIR/release/probe-$who")
  name=$([ "$who" = ours ] && echo "the store's (provider/)" || echo "async-stripe 0.41.0")
  printf '| %s | %.0f s, %.0f s CPU | %s (the probe among them) | %s B (+%s B over the base) | %s (+%s over the base) |\n' \
    "$name" "$wall" "$(echo "$cpu" | awk '{print $1 + $2}')" "$(cat "$CARGO_TARGET_DIR/crates")" \
    "$size" "$((size - base_size))" "$probe_ir" "$((probe_ir - base_ir))"
  rm -f base/Cargo.lock "$who/Cargo.lock"
done
