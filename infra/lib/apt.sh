# shellcheck shell=bash
# apt-get that waits while another apt-get or dpkg holds apt's locks (a second checkout's test run installing the
# same package, unattended-upgrades) instead of failing at once. Source it; do not run it.
#   apt_get [--log FILE] update|install ARGS...   (through sudo unless root; apt's own output appended to FILE)
# OPENPIE_APT_LOCK_WAIT (seconds, default 600) bounds the waits of all calls of one script together. While it waits,
# it says every 30 s which lock and which process it waits for; when time is up, it fails naming that process.
#
# apt 2.6 waits by itself for the dpkg lock when given DPkg::Lock::Timeout, but not for the package lists' lock that
# `apt-get update` takes (that fails at once: "Could not get lock /var/lib/apt/lists/lock. It is held by process
# ..."). So the waiting is done here, by looking at the kernel's lock table, for both; DPkg::Lock::Timeout stays on
# for the moment between that look and apt taking the lock, and an update that lost that race is run again.

: "${OPENPIE_APT_LOCK_WAIT:=600}"
APT_LOCK_DEADLINE=$((SECONDS + OPENPIE_APT_LOCK_WAIT))
APT_LOCK_REPORT_EVERY=30

apt_say() { printf '[apt %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The lock files apt-get takes for a subcommand, where this machine's apt configuration puts them (APT_CONFIG and
# apt.conf.d are honoured, as apt-get itself honours them).
apt_lock_files() {
  local LISTS STATUS ARCHIVES
  eval "$(apt-config shell LISTS Dir::State::lists/d STATUS Dir::State::status/f ARCHIVES Dir::Cache::archives/d)"
  case "$1" in
    update) printf '%s\n' "${LISTS}lock" ;;
    *) printf '%s\n' "$(dirname "$STATUS")/lock-frontend" "$(dirname "$STATUS")/lock" "${ARCHIVES}lock" ;;
  esac
}

# lock_holder FILE: prints the process that holds FILE's lock ("pid 123 (apt-get install -y foo)"); fails when none
# does. apt and dpkg take fcntl locks, which /proc/locks lists as "N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE ..."
# (a process still waiting shows as "N: -> POSIX ...", one field later, and never matches). By inode alone: on
# overlayfs (containers) stat reports the overlay's device, the lock table the real one.
lock_holder() {
  local inode pid command
  inode="$(stat -c %i "$1" 2>/dev/null)" || return 1
  pid="$(awk -v inode="$inode" '{ n = split($6, id, ":") } n == 3 && id[3] == inode { print $5; exit }' /proc/locks)"
  [[ -n "$pid" ]] || return 1
  if ((pid > 0)); then
    command="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-120)" || true
    printf 'pid %s (%s)\n' "$pid" "${command% }"
  else
    printf 'another process (an open file description lock, which names no pid)\n'
  fi
}

# wait_for_locks FILE...: returns once no process holds any of them; fails naming the holder at the deadline.
wait_for_locks() {
  local file holder next_report=$SECONDS
  while :; do
    holder=""
    for file in "$@"; do
      if holder="$(lock_holder "$file")"; then break; fi
    done
    [[ -n "$holder" ]] || return 0
    if ((SECONDS >= APT_LOCK_DEADLINE)); then
      apt_say "gave up after ${OPENPIE_APT_LOCK_WAIT}s (OPENPIE_APT_LOCK_WAIT): $file is still held by $holder"
      return 1
    fi
    if ((SECONDS >= next_report)); then
      apt_say "waiting for $file, held by $holder (at most $((APT_LOCK_DEADLINE - SECONDS))s more)"
      next_report=$((SECONDS + APT_LOCK_REPORT_EVERY))
    fi
    sleep 2
  done
}

apt_lock_seconds_left() {
  local left=$((APT_LOCK_DEADLINE - SECONDS))
  printf '%s\n' "$((left > 0 ? left : 0))"
}

apt_get() {
  local log="" status file taken
  local -a sudo=() locks
  if [[ "$1" == --log ]]; then
    log="$2"
    shift 2
  fi
  ((EUID == 0)) || sudo=(sudo)
  mapfile -t locks < <(apt_lock_files "$1")
  while :; do
    wait_for_locks "${locks[@]}" || return 1
    status=0
    if [[ -n "$log" ]]; then
      "${sudo[@]}" apt-get -o DPkg::Lock::Timeout="$(apt_lock_seconds_left)" "$@" >>"$log" 2>&1 || status=$?
    else
      "${sudo[@]}" apt-get -o DPkg::Lock::Timeout="$(apt_lock_seconds_left)" "$@" || status=$?
    fi
    ((status != 0)) || return 0
    # Failed with a lock taken since the look above: another apt-get got there first; wait for it and try again.
    # Failed with every lock free: a real failure (network, unknown package), which apt has reported.
    taken=0
    for file in "${locks[@]}"; do
      if lock_holder "$file" >/dev/null; then taken=1; fi
    done
    ((taken)) || return "$status"
  done
}
