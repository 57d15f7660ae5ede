#!/usr/bin/env bash
# Shorthand for: infra/stack.sh wait
exec "$(dirname "${BASH_SOURCE[0]}")/stack.sh" wait "$@"
