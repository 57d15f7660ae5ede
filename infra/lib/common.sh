# shellcheck shell=bash
# Shared defaults and helpers for the infra scripts. Source it; do not run it.
#
# Every setting is an environment variable with a default, so a test run, a
# second checkout or CI can move ports and folders without editing files.
# Each checkout gets a stack of its own: its own folder under /tmp and its own
# block of ports (infra/README.md, "Folder and ports per checkout"), so that
# two checkouts testing at once neither share nor stop each other's servers.

INFRA_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Physical path: a checkout reached through a symlink is still the same checkout.
PROJECT_ROOT="$(cd "$INFRA_HOME/.." && pwd -P)"

say() { printf '[infra %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

short_hash() { printf '%s' "$1" | sha256sum | cut -c1-8; }

# Downloads (Maven jars) live outside the work tree and survive between runs;
# every checkout shares them (maven_fetch locks them while it downloads).
: "${OPENPIE_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/openpie}"
# Runtime state: rendered configs, data, pid files and logs. One folder per
# checkout, named after it and the hash of its path.
checkout_name="$(basename "$PROJECT_ROOT")"
: "${OPENPIE_INFRA_DIR:=/tmp/openpie-infra-${checkout_name//[^A-Za-z0-9_.-]/_}-$(short_hash "$PROJECT_ROOT")}"
unset checkout_name
# Absolute, so that a pid file's process can be recognised by this path in its
# command line, and the same folder always hashes to the same ports.
OPENPIE_INFRA_DIR="$(realpath -m "$OPENPIE_INFRA_DIR")"

# The servers' ports are one block of PORT_BLOCK_SIZE consecutive ports, the
# block picked by the hash of $OPENPIE_INFRA_DIR: a second folder (another
# checkout, or OPENPIE_INFRA_DIR set by hand) gets other ports. The blocks lie
# in 20000-32767, below Linux's ephemeral range (32768-60999, from which
# outgoing connections take their local ports), and a block holding a port of
# this kind of machine's own servers is never picked. Two folders may still
# draw the same block (1 chance in about 1,270): the second start then stops
# with the port and the variable that moves it (require_free_ports).
PORT_BLOCK_SIZE=10
PORT_RANGE_FIRST=20000
PORT_RANGE_LAST=32767
# Mosquitto, MariaDB, NATS, epmd, PostgreSQL, RabbitMQ, NATS cluster, Redis,
# NATS monitoring, RabbitMQ management, RabbitMQ distribution.
MACHINE_PORTS=(1883 3306 4222 4369 5432 5672 6222 6379 8222 15672 25672)

default_port_base() {
  local blocks=$(((PORT_RANGE_LAST + 1 - PORT_RANGE_FIRST) / PORT_BLOCK_SIZE)) block base port
  block=$((16#$(short_hash "$OPENPIE_INFRA_DIR") % blocks))
  while :; do
    base=$((PORT_RANGE_FIRST + block * PORT_BLOCK_SIZE))
    for port in "${MACHINE_PORTS[@]}"; do
      if ((port >= base && port < base + PORT_BLOCK_SIZE)); then
        block=$(((block + 1) % blocks))
        continue 2
      fi
    done
    printf '%s\n' "$base"
    return
  done
}

# The first port of the block; each server's port below is an offset in it
# and can be set on its own as well.
: "${OPENPIE_PORT_BASE:=$(default_port_base)}"
if ! [[ "$OPENPIE_PORT_BASE" =~ ^[1-9][0-9]*$ ]] || ((OPENPIE_PORT_BASE < 1 || OPENPIE_PORT_BASE > 65536 - PORT_BLOCK_SIZE)); then
  die "OPENPIE_PORT_BASE must be a port number (1-$((65536 - PORT_BLOCK_SIZE))), not '$OPENPIE_PORT_BASE'"
fi

: "${MOSQUITTO_HOST:=127.0.0.1}"
: "${MOSQUITTO_PORT:=$((OPENPIE_PORT_BASE + 0))}"
: "${MOSQUITTO_USER:=openpie-node}"
: "${MOSQUITTO_PASSWORD:=openpie-node-secret}"
: "${MOSQUITTO_DATA_DIR:=$OPENPIE_INFRA_DIR/data/mosquitto}"

: "${REDIS_HOST:=127.0.0.1}"
: "${REDIS_PORT:=$((OPENPIE_PORT_BASE + 1))}"
: "${REDIS_DATA_DIR:=$OPENPIE_INFRA_DIR/data/redis}"
# everysec or always (infra/redis/redis.conf says what each costs).
: "${REDIS_APPENDFSYNC:=everysec}"

: "${CASSANDRA_VERSION:=5.0.9}"
: "${CASSANDRA_HOST:=127.0.0.1}"
: "${CASSANDRA_NATIVE_PORT:=$((OPENPIE_PORT_BASE + 2))}"
: "${CASSANDRA_STORAGE_PORT:=$((OPENPIE_PORT_BASE + 3))}"
: "${CASSANDRA_HEAP:=1G}"
: "${CASSANDRA_DATA_DIR:=$OPENPIE_INFRA_DIR/data/cassandra}"
: "${CASSANDRA_DATACENTER:=datacenter1}"

: "${KAIROSDB_GROUP:=org.kairosdb}"
: "${KAIROSDB_VERSION:=1.2.1-1}"
: "${KAIROSDB_DATASTORE:=cassandra}"   # cassandra | h2
: "${KAIROSDB_HOST:=127.0.0.1}"
: "${KAIROSDB_PORT:=$((OPENPIE_PORT_BASE + 4))}"
: "${KAIROSDB_TELNET_PORT:=$((OPENPIE_PORT_BASE + 5))}"
: "${KAIROSDB_KEYSPACE:=kairosdb}"
: "${KAIROSDB_HEAP:=512m}"
: "${KAIROSDB_DATA_DIR:=$OPENPIE_INFRA_DIR/data/kairosdb}"

# The variables that hold each server's ports, for require_free_ports.
declare -gA PORT_VARIABLES=(
  [mosquitto]="MOSQUITTO_PORT"
  [redis]="REDIS_PORT"
  [cassandra]="CASSANDRA_NATIVE_PORT CASSANDRA_STORAGE_PORT"
  [kairosdb]="KAIROSDB_PORT KAIROSDB_TELNET_PORT"
)

# Seconds each wait gives its server before it reports failure.
: "${OPENPIE_WAIT_TIMEOUT:=180}"

LOG_DIR="$OPENPIE_INFRA_DIR/logs"
RUN_DIR="$OPENPIE_INFRA_DIR/run"
CONF_DIR="$OPENPIE_INFRA_DIR/conf"

ensure_dirs() {
  command -v envsubst >/dev/null || die "envsubst is required (Debian package gettext-base)"
  command -v node >/dev/null || die "node is required for the readiness checks"
  mkdir -p "$LOG_DIR" "$RUN_DIR" "$CONF_DIR" "$OPENPIE_CACHE"
}

# Renders a template with ${NAME} placeholders: render TEMPLATE TARGET NAME...
# Only the named (exported) variables are replaced, so any other dollar sign in
# a config stays as it is.
render() {
  local template="$1" target="$2" names
  shift 2
  # shellcheck disable=SC2016 # a literal ${NAME} list is what envsubst expects
  names="$(printf '${%s} ' "$@")"
  envsubst "$names" <"$template" >"$target.tmp" && mv "$target.tmp" "$target"
}

pid_file() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }

# A server that has exited but is not yet reaped by its new parent (init, as
# these scripts leave it behind) is a zombie: kill -0 still succeeds on it.
alive() {
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)"
  [[ -n "$state" && "$state" != Z ]]
}

# Prints the pid of a running server started by these scripts, or fails. The
# process must still be ours: its command line names a file under
# $OPENPIE_INFRA_DIR, so a recycled pid never makes us stop a stranger.
running_pid() {
  local file pid
  file="$(pid_file "$1")"
  [[ -s "$file" ]] || return 1
  pid="$(cat "$file")"
  if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$OPENPIE_INFRA_DIR/"; then
    printf '%s\n' "$pid"
  else
    rm -f "$file"
    return 1
  fi
}

# Stops the server named $1: TERM first, KILL after $2 seconds (default 30).
stop_by_pid_file() {
  local name="$1" grace="${2:-30}" pid waited=0
  if ! pid="$(running_pid "$name")"; then
    say "$name is not running"
    return 0
  fi
  say "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  while alive "$pid"; do
    if ((waited >= grace * 10)); then
      say "$name did not stop in ${grace}s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -f "$(pid_file "$name")"
  say "$name stopped"
}

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# Prints who listens on TCP port $1, as far as ss may tell (other users'
# processes show only as root): its command line, or for a long one (a JVM's)
# its name and working directory, which for these scripts' servers is a folder
# under their stack folder or the checkout.
port_holder() {
  local pid command
  pid="$(ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2)" || true
  if [[ -z "$pid" ]]; then
    printf 'another process\n'
    return
  fi
  command="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || true
  command="${command% }"
  if ((${#command} > 120)); then
    command="$(cat "/proc/$pid/comm" 2>/dev/null), in $(readlink "/proc/$pid/cwd" 2>/dev/null)"
  fi
  printf 'pid %s (%s)\n' "$pid" "$command"
}

# require_free_ports NAME: refuses to start server NAME while any of its ports
# is held, so that a test never talks to a stranger: the machine's own
# Mosquitto on 1883, say, or the server of another checkout whose block came
# out the same. Called only when NAME is not running from $OPENPIE_INFRA_DIR,
# so whoever holds the port is not this checkout's server.
require_free_ports() {
  local name="$1" host_variable="${1^^}_HOST" variable port
  for variable in ${PORT_VARIABLES[$name]}; do
    port="${!variable}"
    if port_open "${!host_variable}" "$port"; then
      die "$name: port $port ($variable) on ${!host_variable} is already in use by $(port_holder "$port"), not by the" \
        "$name of $OPENPIE_INFRA_DIR; set $variable to another port, or OPENPIE_PORT_BASE to move the whole block" \
        "(infra/README.md)"
    fi
  done
}

# server_status NAME WHERE: says whether NAME runs (with its pid, memory and address WHERE); exit 1 when stopped.
server_status() {
  local pid
  if pid="$(running_pid "$1")"; then
    say "$1 running: pid $pid, RSS $(rss_mib "$pid") MiB, $2"
  else
    say "$1 stopped"
    return 1
  fi
}

# reset_data NAME DIR [NOTE]: wipes a stopped server's data folder.
reset_data() {
  running_pid "$1" >/dev/null && die "stop $1 before wiping its data"
  rm -rf "$2"
  say "$1 data wiped ($2)${3:+; $3}"
}

rss_mib() {
  local kb
  kb="$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null)"
  [[ -n "$kb" ]] && printf '%d\n' "$((kb / 1024))"
}

# Copies an artifact and its runtime dependencies from Maven Central into a
# folder: maven_fetch NAME POM OUT [-Dprop=value...], where the pom under
# infra/ names them. Done once per version: the marker file makes later calls
# free. Each NAME has a Maven repository of its own, so that the servers can
# download side by side (Maven 3.8 does not lock a shared one). The cache is
# shared by every checkout: a lock per NAME makes a second checkout that
# installs at the same time wait for the first one's download, not delete it.
maven_fetch() {
  local name="$1" pom="$2" out="$3" log="$LOG_DIR/maven-$1.log" lock
  shift 3
  if [[ -f "$out/.complete" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn is required (Apache Maven from Debian's packages)"
  exec {lock}>"$OPENPIE_CACHE/$name.lock"
  if ! flock --nonblock "$lock"; then
    say "waiting for another checkout's download of $name into $OPENPIE_CACHE"
    flock "$lock"
  fi
  if [[ ! -f "$out/.complete" ]]; then
    rm -rf "$out"
    mkdir -p "$out"
    say "downloading $name into $out (Maven Central)"
    mvn -B -q -f "$pom" -Dmaven.repo.local="$OPENPIE_CACHE/m2/$name" "$@" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out" \
      >"$log" 2>&1 || die "Maven download of $name failed; see $log"
    touch "$out/.complete"
  fi
  # Closed, not only unlocked: the server started next must not inherit it.
  exec {lock}>&-
}

# The java to run the servers with: OPENPIE_JAVA, else $JAVA_HOME/bin/java,
# else the one on PATH. Cassandra 5.0 supports Java 11 and 17 only, and both
# servers were tried here on 17, so anything else is refused.
java_bin() {
  local java="${OPENPIE_JAVA:-}" major
  if [[ -z "$java" && -n "${JAVA_HOME:-}" ]]; then java="$JAVA_HOME/bin/java"; fi
  if [[ -z "$java" ]]; then java="$(command -v java)" || die "java is required (OpenJDK 17)"; fi
  major="$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2}')"
  [[ "$major" == 17 || "$major" == 11 ]] \
    || die "$java is Java $major; set OPENPIE_JAVA to a Java 17 (e.g. /usr/lib/jvm/java-17-openjdk-amd64/bin/java)"
  printf '%s\n' "$java"
}

# Runs a command in the background, detached from this shell, with its output
# in the log file, and records its pid.
start_detached() {
  local name="$1" log="$2"
  shift 2
  nohup setsid "$@" >>"$log" 2>&1 </dev/null &
  printf '%s\n' "$!" >"$(pid_file "$name")"
}

# Calls "$@" every half second until it succeeds, the server dies or time runs out.
wait_until() {
  local name="$1" timeout="$2"
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" 2>/dev/null; do
    running_pid "$name" >/dev/null || die "$name exited while starting; see $LOG_DIR/$name.log"
    ((SECONDS < deadline)) || die "$name not ready after ${timeout}s; see $LOG_DIR/$name.log"
    sleep 0.5
  done
}
