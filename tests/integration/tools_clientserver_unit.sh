#!/bin/bash
# tools/nvmeof/clientserver.py on real fio client/server outputs (tests/tools/fixtures/
# clientserver/, taken from engine_clientserver.sh); host only, no testbed.  Exit 0/1, 77 when
# python3 is missing.
REPO=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 "$REPO/tests/tools/test_clientserver.py" -v
