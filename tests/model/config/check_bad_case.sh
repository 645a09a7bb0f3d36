#!/usr/bin/env bash
# Run `squall run CASE [args]` on a broken case file and check that it fails cleanly:
# a non-zero exit status that is not a signal, and every "# expect:" line of the file
# (with @FILE@ replaced by the path) in the output.
# Usage: check_bad_case.sh SQUALL CASE [EXPECTED...]   (EXPECTED for files that do not exist)
set -u
squall=$1
case_file=$2
shift 2

expects=()
args=()
if [[ -f $case_file ]]; then
    while IFS= read -r line; do expects+=("${line#'# expect: '}"); done \
        < <(grep '^# expect: ' "$case_file")
    # "# args:" holds extra command-line words, split on blanks.
    read -r -a args < <(grep '^# args: ' "$case_file" | sed 's/^# args: //') || true
fi
expects+=("$@")
if ((${#expects[@]} == 0)); then
    echo "FAIL: no expectations for $case_file"
    exit 1
fi

output=$("$squall" run "$case_file" "${args[@]}" 2>&1)
status=$?
echo "$output"
echo "exit status: $status"

fail=0
if ((status == 0)); then
    echo "FAIL: squall accepted a broken case"
    fail=1
elif ((status >= 128)); then
    echo "FAIL: squall died from a signal or crashed (status $status)"
    fail=1
fi
if ! grep -qF -- "squall: error: " <<<"$output"; then
    echo "FAIL: no 'squall: error: ' message"
    fail=1
fi
for e in "${expects[@]}"; do
    e=${e//@FILE@/$case_file}
    if ! grep -qF -- "$e" <<<"$output"; then
        echo "FAIL: expected message not found: $e"
        fail=1
    fi
done
exit $fail
