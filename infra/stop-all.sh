#!/usr/bin/env bash
# Shorthand for: infra/stack.sh stop
exec "$(dirname "${BASH_SOURCE[0]}")/stack.sh" stop "$@"
