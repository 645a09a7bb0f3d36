#!/usr/bin/env bash
# Runs squall with the given arguments and checks its exit status and that its output
# contains a text: the command-line conventions of docs/output.md ("Exit status").
# Usage: expect_cli.sh SQUALL STATUS TEXT [ARGS...]   (an ARG @EMPTY@ is passed as '',
# which CMake cannot pass)
set -u
squall=$1 want=$2 text=$3
shift 3
args=()
for a in "$@"; do [[ $a == @EMPTY@ ]] && args+=("") || args+=("$a"); done
output=$("$squall" "${args[@]}" 2>&1)
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
