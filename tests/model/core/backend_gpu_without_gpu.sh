#!/usr/bin/env bash
# `squall run --backend gpu` where no GPU is usable (the test hides the driver through
# SQUALL_CUDA_DRIVER): a non-zero exit that is not a crash, and a message naming why; and
# the refused run leaves no trace: output.dir is not created, and --overwrite removes no
# earlier checkpoint (both happened before the GPU was looked for).
# Usage: backend_gpu_without_gpu.sh SQUALL CASE
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
output=$("$1" run "$2" --backend gpu --set time.max_steps=1 --set output.stats_every=0 \
    --set output.dir="$tmp/new" 2>&1)
status=$?
echo "$output"
echo "exit status: $status"
if ((status == 0 || status >= 128)); then echo "FAIL: expected a clean failure"; exit 1; fi
if ! grep -qF "squall: error: backend 'gpu' requested, but " <<<"$output"; then
    echo "FAIL: no clear message"
    exit 1
fi
# The reason: a missing driver (CUDA build) or a build without GPU support.
if ! grep -qE "no CUDA driver/GPU found|no GPU support" <<<"$output"; then
    echo "FAIL: the message does not name the reason"
    exit 1
fi
if grep -q "^step " <<<"$output"; then echo "FAIL: the run started anyway"; exit 1; fi
if [[ -e $tmp/new ]]; then echo "FAIL: the refused run created output.dir"; exit 1; fi
mkdir "$tmp/old"
earlier="$tmp/old/drycbl.chk.00000000000000000001.h5"
echo "an earlier run's checkpoint" >"$earlier"
output=$("$1" run "$2" --backend gpu --overwrite --set time.max_steps=1 \
    --set output.stats_every=0 --set output.dir="$tmp/old" 2>&1)
status=$?
if ((status != 1)) || ! grep -qF "backend 'gpu' requested, but " <<<"$output"; then
    echo "$output"
    echo "FAIL: the run into an existing output.dir was not refused for its GPU (status $status)"
    exit 1
fi
if [[ ! -f $earlier ]]; then echo "FAIL: the refused run removed an earlier checkpoint"; exit 1; fi
# Another run's lock on an existing output.dir is named before the GPU is looked for (a
# second run on the same GPU would otherwise be refused for the memory the first one holds).
mkdir "$tmp/busy"
exec 9>"$tmp/busy/.drycbl.lock"
flock -x 9
output=$("$1" run "$2" --backend gpu --set time.max_steps=1 --set output.stats_every=0 \
    --set output.dir="$tmp/busy" 9>&- 2>&1)
exec 9>&-
if ! grep -qF "is in use by another run of case 'drycbl'" <<<"$output"; then
    echo "$output"
    echo "FAIL: the lock was not named before the GPU"
    exit 1
fi
echo "clean refusal"
