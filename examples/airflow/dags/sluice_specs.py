"""Example DAG: one Airflow task per Sluice spec, ``sluice run SPEC --run-id {{ run_id }}``.

Configuration, from the worker's environment (or edit the defaults below):

- ``SLUICE_BIN``: the sluice executable (default ``sluice`` on the PATH; a checkout's ``./sluice`` works too).
- ``SLUICE_SPECS_DIR``: folder of ``*.yaml`` specs, one task each (default: ``../specs`` next to this file).
- ``SLUICE_STATE_DIR``: Sluice's ``--state-dir``, for ``embedded:`` connections (default
  ``$AIRFLOW_HOME/sluice/state``).
- ``SLUICE_SUMMARY_DIR``: where run summaries are written (default ``$AIRFLOW_HOME/sluice/summaries``).
- ``SLUICE_METRICS_PUSH``: a Prometheus Pushgateway URL (default: no push).
- ``SLUICE_RETRY_DELAY_SECONDS``: wait before the first retry, doubling after (default 120).

Each task's summary is its XCom ``return_value``; read it downstream with
``{{ ti.xcom_pull(task_ids='orders')['streams'] }}``. Exit codes 2, 3 and 5 fail at once; the others use the
task's retries (see the provider's SluiceRunOperator and docs/airflow.md).
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timedelta
from pathlib import Path

try:  # Airflow 3
    from airflow.sdk import DAG
except ImportError:  # Airflow 2
    from airflow import DAG

from sluice_provider.operators.sluice import SluiceRunOperator  # pip install airflow-provider-sluice

AIRFLOW_HOME = os.environ.get("AIRFLOW_HOME", os.path.expanduser("~/airflow"))
SLUICE_BIN = os.environ.get("SLUICE_BIN", "sluice")
SPECS_DIR = Path(os.environ.get("SLUICE_SPECS_DIR", Path(__file__).resolve().parent.parent / "specs"))
STATE_DIR = os.environ.get("SLUICE_STATE_DIR", os.path.join(AIRFLOW_HOME, "sluice", "state"))
SUMMARY_DIR = os.environ.get("SLUICE_SUMMARY_DIR", os.path.join(AIRFLOW_HOME, "sluice", "summaries"))
METRICS_PUSH = os.environ.get("SLUICE_METRICS_PUSH") or None
RETRY_DELAY = timedelta(seconds=int(os.environ.get("SLUICE_RETRY_DELAY_SECONDS", "120")))


def task_id_for(spec: Path) -> str:
    """A valid task id from the file name: orders.yaml -> orders, Nightly Sales.yml -> nightly_sales."""
    return re.sub(r"[^a-zA-Z0-9_.-]+", "_", spec.stem).strip("_").lower() or "spec"


with DAG(
    dag_id="sluice_specs",
    description="Bulk loads into PostgreSQL with Sluice, one task per spec",
    schedule=None,  # e.g. "@daily"; triggered by hand or by another DAG here
    start_date=datetime(2024, 1, 1),
    catchup=False,
    max_active_runs=1,  # two runs of one spec would load the same target at once
    default_args={
        "retries": 2,
        "retry_delay": RETRY_DELAY,
        "retry_exponential_backoff": True,
        "execution_timeout": timedelta(hours=6),  # SIGTERM on timeout: Sluice rolls back and exits 130
    },
    tags=["sluice"],
) as dag:
    for spec_file in sorted(SPECS_DIR.glob("*.y*ml")):
        SluiceRunOperator(
            task_id=task_id_for(spec_file),
            spec=str(spec_file),
            sluice=SLUICE_BIN,
            state_dir=STATE_DIR,
            summary_dir=SUMMARY_DIR,
            metrics_push=METRICS_PUSH,
        )
