#!/usr/bin/env bash
# Runs squall with the given arguments and checks its exit status and that its output
# contains a text: the command-line conventions of docs/output.md ("Exit status").
# Usage: expect_cli.sh SQUALL STATUS TEXT [ARGS...]
set -u
squall=$1 want=$2 text=$3
shift 3
output=$("$squall" "$@" 2>&1)
status=$?
echo "$output" | head -20
echo "exit status: $status"
if [[ $status != "$want" ]]; then
    echo "FAIL: exit status $status, want $want"
    exit 1
fi
if ! grep -qF -- "$text" <<<"$output"; then
    echo "FAIL: the output lacks: $text"
    exit 1
fi
