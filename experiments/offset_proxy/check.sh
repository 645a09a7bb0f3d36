#!/bin/bash
# Compiles proxy.cu to PTX for sm_90 and reports what would show a failed split: local
# memory (the register window spilled or indexed at run time) and integer division.
set -e
cd "$(dirname "$0")"
nvcc -std=c++17 -arch=sm_90 -ptx proxy.cu -o /tmp/proxy.ptx
for t in double float; do
    body=$(awk "/.entry.*march.*${t:0:1}/,/^}/" /tmp/proxy.ptx)
    echo "$t: local $(grep -c '\.local' <<<"$body"), div/rem $(grep -cE '\b(div|rem)\.(s|u)32' <<<"$body"), ld.shared $(grep -c 'ld.shared' <<<"$body"), ld.global $(grep -c 'ld.global' <<<"$body")"
done
