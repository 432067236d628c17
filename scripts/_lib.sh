# shellcheck shell=bash
# Shared helpers for scripts/*: source it, do not run it.
#
# Environment (same names as the service's settings, service/settings.py, and cypher-shell):
#   NEO4J_URI        bolt://127.0.0.1:7687
#   NEO4J_USERNAME   neo4j
#   NEO4J_PASSWORD   rationale-dev-password   (local dev/test only; `neo4j` is refused)
#   NEO4J_DATABASE   neo4j
#   NEO4J_HTTP_PORT  7474                     (HTTP and Neo4j Browser of the local server)
#   NEO4J_HOME_DIR   $ROOT/.neo4j             (home of the local server: jars, conf, data, logs)
#   JAVA_HOME        a Java >= 25 (Neo4j 2026.09 needs it); when unset or older, the Temurin 25
#                    JDK at /usr/lib/jvm/temurin-25-jdk-amd64 is used and exported as JAVA_HOME
# Values already in the environment win over `.env` at the repo root, which wins over defaults.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_MIN=25
TEMURIN_HOME=/usr/lib/jvm/temurin-${JAVA_MIN}-jdk-amd64
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

say() { printf '%s\n' "$*"; }
warn() { printf '%s\n' "$*" >&2; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Load KEY=VALUE lines of .env for keys not already set (like pydantic-settings does).
load_dotenv() {
    local file="$ROOT/.env" line key value
    [[ -f "$file" ]] || return 0
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line#export }"
        [[ "$line" =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || continue
        key="${line%%=*}"
        value="${line#*=}"
        if [[ "$value" =~ ^\"(.*)\"$ || "$value" =~ ^\'(.*)\'$ ]]; then
            value="${BASH_REMATCH[1]}"
        fi
        if [[ -z "${!key+x}" ]]; then
            export "$key=$value"
        fi
    done <"$file"
}

# java_major JAVA_BIN: print the feature version (17, 21, 25...) of that java, or nothing.
java_major() {
    [[ -x "$1" ]] || return 1
    "$1" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p'
}

# find_java_home: print the JDK home to run Neo4j with: JAVA_HOME when it is Java >= JAVA_MIN,
# else the Temurin JDK at TEMURIN_HOME; print nothing (and fail) when neither is there.
find_java_home() {
    local home major
    for home in "${JAVA_HOME:-}" "$TEMURIN_HOME"; do
        [[ -n "$home" ]] || continue
        major="$(java_major "$home/bin/java")" || continue
        if [[ "$major" =~ ^[0-9]+$ ]] && ((major >= JAVA_MIN)); then
            printf '%s\n' "$home"
            return 0
        fi
    done
    return 1
}

# Export the NEO4J_* defaults (and JAVA_HOME when a Java >= 25 is found) and derive NEO4J_BOLT_HOST / NEO4J_BOLT_PORT from NEO4J_URI.
rationale_env() {
    load_dotenv
    export NEO4J_URI="${NEO4J_URI:-bolt://127.0.0.1:7687}"
    export NEO4J_USERNAME="${NEO4J_USERNAME:-neo4j}"
    export NEO4J_PASSWORD="${NEO4J_PASSWORD:-rationale-dev-password}"
    export NEO4J_DATABASE="${NEO4J_DATABASE:-neo4j}"
    export NEO4J_HTTP_PORT="${NEO4J_HTTP_PORT:-7474}"
    export NEO4J_HOME_DIR="${NEO4J_HOME_DIR:-$ROOT/.neo4j}"
    local java_home
    if java_home="$(find_java_home)"; then
        export JAVA_HOME="$java_home"
    fi
    if [[ "$NEO4J_PASSWORD" == "neo4j" ]]; then
        die "NEO4J_PASSWORD=neo4j is refused (it is Neo4j's default); pick another, at least 8 characters"
    fi
    if ((${#NEO4J_PASSWORD} < 8)); then
        die "NEO4J_PASSWORD must be at least 8 characters (Neo4j's minimum)"
    fi
    local rest="${NEO4J_URI#*://}"
    rest="${rest%%/*}"
    rest="${rest%%\?*}"
    rest="${rest##*@}"
    if [[ "$rest" =~ ^\[(.*)\]:([0-9]+)$ ]]; then
        NEO4J_BOLT_HOST="${BASH_REMATCH[1]}" NEO4J_BOLT_PORT="${BASH_REMATCH[2]}"
    elif [[ "$rest" =~ ^([^:]+):([0-9]+)$ ]]; then
        NEO4J_BOLT_HOST="${BASH_REMATCH[1]}" NEO4J_BOLT_PORT="${BASH_REMATCH[2]}"
    else
        NEO4J_BOLT_HOST="${rest#[}" NEO4J_BOLT_HOST="${NEO4J_BOLT_HOST%]}" NEO4J_BOLT_PORT=7687
    fi
    [[ -n "$NEO4J_BOLT_HOST" ]] || die "cannot read a host from NEO4J_URI=$NEO4J_URI"
    export NEO4J_BOLT_HOST NEO4J_BOLT_PORT
}

# Test-time defaults on top of rationale_env: no model downloads.
rationale_test_env() {
    rationale_env
    export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
}

is_local_host() {
    case "$1" in
    127.* | localhost | 0.0.0.0 | ::1 | "$(hostname 2>/dev/null || true)") return 0 ;;
    *) return 1 ;;
    esac
}

# tcp_open HOST PORT: does anything accept a TCP connection there?
tcp_open() {
    timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

venv_has_driver() {
    [[ -x "$PY" ]] && "$PY" -c 'import neo4j' 2>/dev/null
}

# neo4j_check SECONDS [PID]: wait up to SECONDS until NEO4J_URI answers Bolt, the credentials are
# accepted and NEO4J_DATABASE runs `RETURN 1`. Gives up early if PID (the server we launched) dies.
# Returns 0 ready, 2 unreachable, 3 credentials rejected, 4 other error, 5 the server process died.
# Uses the neo4j driver from .venv when it is installed, else TCP + Neo4j's HTTP API on
# NEO4J_HTTP_PORT (which checks the password as well).
neo4j_check() {
    local seconds="$1" pid="${2:-}"
    if venv_has_driver; then
        WATCH_PID="$pid" "$PY" - "$seconds" <<'PY'
import os
import sys
import time

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, Neo4jError

uri = os.environ["NEO4J_URI"]
auth = (os.environ["NEO4J_USERNAME"], os.environ["NEO4J_PASSWORD"])
database = os.environ["NEO4J_DATABASE"]
pid = os.environ.get("WATCH_PID")
deadline = time.monotonic() + float(sys.argv[1])
last: object = "no answer"
while True:
    try:
        with GraphDatabase.driver(uri, auth=auth, connection_timeout=3, max_transaction_retry_time=0) as driver:
            driver.verify_connectivity()
            driver.execute_query("RETURN 1", database_=database)
        sys.exit(0)
    except AuthError as exc:
        print(f"credentials rejected: {exc.message}", file=sys.stderr)
        sys.exit(3)
    except Neo4jError as exc:
        if exc.code and "Security" in exc.code:
            print(f"credentials rejected: {exc.code}: {exc.message}", file=sys.stderr)
            sys.exit(3)
        if exc.code and exc.code.startswith("Neo.ClientError") and "DatabaseNotFound" not in exc.code:
            print(f"{exc.code}: {exc.message}", file=sys.stderr)
            sys.exit(4)
        last = exc
    except Exception as exc:  # ServiceUnavailable, OSError, ... : not up yet
        last = exc
    if pid and not os.path.exists(f"/proc/{pid}"):
        print("the server process exited", file=sys.stderr)
        sys.exit(5)
    if time.monotonic() >= deadline:
        print(f"no answer: {last}", file=sys.stderr)
        sys.exit(2)
    time.sleep(1)
PY
        return $?
    fi
    local deadline=$((SECONDS + seconds)) code
    while :; do
        if tcp_open "$NEO4J_BOLT_HOST" "$NEO4J_BOLT_PORT"; then
            code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
                -u "$NEO4J_USERNAME:$NEO4J_PASSWORD" -H 'Content-Type: application/json' \
                -d '{"statements":[{"statement":"RETURN 1"}]}' \
                "http://$NEO4J_BOLT_HOST:$NEO4J_HTTP_PORT/db/$NEO4J_DATABASE/tx/commit" || true)"
            case "$code" in
            200) return 0 ;;
            401 | 403)
                warn "credentials rejected (HTTP $code)"
                return 3
                ;;
            esac
        fi
        if [[ -n "$pid" && ! -e "/proc/$pid" ]]; then
            warn "the server process exited"
            return 5
        fi
        if ((SECONDS >= deadline)); then
            warn "no answer at $NEO4J_URI"
            return 2
        fi
        sleep 1
    done
}

# neo4j_version: print "<version> <edition>" of the server at NEO4J_URI (driver, else HTTP).
neo4j_version() {
    if venv_has_driver; then
        "$PY" - <<'PY' 2>/dev/null && return 0
import os

from neo4j import GraphDatabase

auth = (os.environ["NEO4J_USERNAME"], os.environ["NEO4J_PASSWORD"])
with GraphDatabase.driver(os.environ["NEO4J_URI"], auth=auth, connection_timeout=3) as driver:
    records, _, _ = driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS v, edition",
        database_="system",
    )
    print(records[0]["v"], records[0]["edition"])
PY
    fi
    curl -s --max-time 5 "http://$NEO4J_BOLT_HOST:$NEO4J_HTTP_PORT/" 2>/dev/null |
        python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["neo4j_version"], d["neo4j_edition"])' \
            2>/dev/null
}
