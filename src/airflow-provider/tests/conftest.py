"""An Airflow home of the test's own (SQLite), migrated once per session, and a stand-in ``sluice`` executable.

The stand-in records its arguments and environment and behaves as ``sluice run`` does at its edges (writes the
summary to ``--summary-json``, exits with the code it is told): the operator's contract is with that command line.
The real Sluice runs under the real Airflow in .ci/airflow-test.sh (``airflow dags test`` of the example DAGs).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HOME = Path(os.environ.setdefault("SLUICE_PROVIDER_TEST_HOME", "/tmp/sluice-provider-test"))
os.environ["AIRFLOW_HOME"] = str(HOME / "airflow")
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(HOME / "airflow" / "dags")
os.environ["AIRFLOW__CORE__UNIT_TEST_MODE"] = "True"
os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] = f"sqlite:///{HOME}/airflow/airflow.db"
# An Airflow connection from the environment, as a deployment's secrets backend would give it.
os.environ["AIRFLOW_CONN_WAREHOUSE"] = "postgres://loader:s3cret-pw@warehouse-db:6432/dwh"
os.environ["AIRFLOW_CONN_LAKE"] = ('{"conn_type": "aws", "login": "AKIAEXAMPLE", "password": "lake-secret", '
                                   '"extra": {"region_name": "eu-west-1", "endpoint_url": "http://127.0.0.1:9000"}}')

FAKE_SLUICE = r"""#!/usr/bin/env bash
# Records how it was called, writes a summary where --summary-json says, exits $FAKE_SLUICE_EXIT.
out="$FAKE_SLUICE_RECORD.$$"
printf '%s\n' "$@" > "$out.args"
env > "$out.env"
summary=""
while [ $# -gt 0 ]; do
  case "$1" in --summary-json) summary="$2"; shift ;; esac
  shift
done
rc="${FAKE_SLUICE_EXIT:-0}"
[ -n "$summary" ] && printf '{"run-id": "%s", "exit-code": %s, "state": "%s", "streams": []}\n' \
  "$SLUICE_RUN_ID" "$rc" "$([ "$rc" = 0 ] && echo done || echo failed)" > "$summary"
exit "$rc"
"""


@pytest.fixture(scope="session", autouse=True)
def airflow_db():
    (HOME / "airflow").mkdir(parents=True, exist_ok=True)
    airflow = Path(sys.executable).with_name("airflow")
    subprocess.run([str(airflow), "db", "migrate"], check=True, capture_output=True, timeout=600)


@pytest.fixture
def fake_sluice(tmp_path, monkeypatch):
    exe = tmp_path / "sluice"
    exe.write_text(FAKE_SLUICE)
    exe.chmod(0o755)
    record = tmp_path / "calls"
    monkeypatch.setenv("FAKE_SLUICE_RECORD", str(record))
    return exe, record


def calls(record: Path) -> list[tuple[list[str], dict[str, str]]]:
    """Every call of the stand-in: its arguments and environment, in no particular order."""
    found = []
    for args in sorted(record.parent.glob(record.name + ".*.args")):
        env_file = Path(str(args)[: -len(".args")] + ".env")
        env = dict(line.split("=", 1) for line in env_file.read_text().splitlines() if "=" in line)
        found.append((args.read_text().splitlines(), env))
    return found
