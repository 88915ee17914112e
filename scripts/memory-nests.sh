#!/bin/bash
# metron memory on random affine nests of metron-nestgen: static == traced, no trip parameter,
# and 5 x the brute-force body count where the body has no branch. SEEDS=A..B (default 0..200).
# Prints the seeds that fail; the test binary's exit says whether all passed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" && METRON_NEST_SEEDS=${SEEDS:-0..200} nice -n 10 cargo test -q -p metron-memory --test nests -- --include-ignored --nocapture
