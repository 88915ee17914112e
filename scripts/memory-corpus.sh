#!/bin/bash
# metron memory on the shared kernel corpus (examples/corpus): per kernel, validate at the
# corpus arguments: static vs traced totals, and the independent counter (valgrind lackey
# at -O0) vs the static reads/writes. FILES="gemm.c lu.c" limits the run. Needs valgrind.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
M=${METRON:-$ROOT/target/debug/metron}
cd "$ROOT/examples/corpus"
for f in ${FILES:-*.c}; do
  hdr=$(grep -m1 "corpus:" $f)
  # A program of several translation units (`sources=`): metron memory compiles one file.
  if echo "$hdr" | grep -q ' sources='; then echo "$f skipped: more than one source file"; continue; fi
  k=$(echo "$hdr" | sed -E 's/.*kernel=([^ ]+).*/\1/')
  args=$(echo "$hdr" | sed -nE 's/.*args="([^"]*)".*/\1/p')
  params=$(echo "$hdr" | sed -nE 's/.* params="([^"]*)".*/\1/p')
  cflags=$(echo "$hdr" | sed -nE 's/.* cflags="([^"]*)".*/\1/p')
  # memparams / memcflags: what metron memory needs beyond the shared line (an
  # argument main passes as a constant, `static` off so that lackey's marks can link).
  params="$params $(echo "$hdr" | sed -nE 's/.*memparams="([^"]*)".*/\1/p')"
  cflags="$cflags $(echo "$hdr" | sed -nE 's/.*memcflags="([^"]*)".*/\1/p')"
  cflags=$(echo $cflags)
  P=""; for p in $(echo $params | tr ',' ' '); do P="$P -p $p"; done
  # memprofile: arguments of a run at another size whose profile (data-dependent loop exits
  # and branches) the count at the corpus arguments uses: a prediction, not a replay.
  profile=$(echo "$hdr" | sed -nE 's/.*memprofile="([^"]*)".*/\1/p')
  PROF=""
  if [ -n "$profile" ]; then
    PROF=$(mktemp)
    timeout 300 $M memory trace $f -f $k ${cflags:+--cflags "$cflags"} -q --write-branch-profile $PROF -- $profile >/dev/null 2>&1
    PROF="--branch-profile $PROF"
  fi
  out=$(timeout 300 $M memory validate $f -f $k $P $PROF ${cflags:+--cflags "$cflags"} -q --json -- $args 2>&1)
  rc=$?
  echo "$f rc=$rc $(echo "$out" | python3 -c 'import json,sys
try:
  d=json.load(sys.stdin); i=d.get("independent") or {}
  print(d["static_total"], d["dynamic_total"], "equal" if d["equal"] else "DIFF", "ind", (i.get("independent") or {}).get("reads"), (i.get("independent") or {}).get("writes"), "st", i.get("static_reads"), i.get("static_writes"), "agree" if i.get("agrees") else "DISAGREE", "|".join(i.get("reasons",[]))[:80])
except Exception as e: print("ERR")' 2>&1) $(echo "$out" | grep -m1 "error" | cut -c1-200)"
done
