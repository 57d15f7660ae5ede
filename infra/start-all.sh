#!/usr/bin/env bash
# Shorthand for: infra/stack.sh start
exec "$(dirname "${BASH_SOURCE[0]}")/stack.sh" start "$@"
