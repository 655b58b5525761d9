#!/usr/bin/env bash
# Waits until something accepts TCP connections at HOST:PORT (the app under test), at most
# 60 s. Bash only: no curl or netcat needed on the runner.
#   examples/ci/wait-for.sh 127.0.0.1:8025
set -euo pipefail
host="${1%:*}"
port="${1##*:}"
for _ in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
        exit 0
    fi
    sleep 0.2
done
echo "nothing listens on $1 after 60 s" >&2
exit 1
