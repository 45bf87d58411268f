"""Example DAG: one Sluice run shared by several Airflow tasks (dynamic task mapping, ``--join``).

``SluiceRunOperator.joined(task_id=..., processes=3, ...)`` (``.partial(...).expand(process=[0, 1, 2])``) makes
three mapped tasks of one DAG run; each runs
``sluice run SPEC --run-id {{ run_id }} --join``, so all three are processes of the same Sluice run: each claims
partitions from the ledger in the target, renews its leases while it copies, and succeeds when every partition is
done, whoever copied it. A task whose worker dies loses its partitions to the others when its lease ends (30 s by
default); its retry simply joins again. On a scheduler with parallel workers the tasks run at once; ``airflow dags
test`` runs them one after another, so there the first copies everything and the others find the run done.

Configuration, from the worker's environment (defaults as in sluice_specs.py):

- ``SLUICE_JOINED_SPEC``: the spec (default ``../joined/orders.yaml`` next to this file); every stream needs
  ``consistency: none`` where the source would share a snapshot (a PostgreSQL snapshot lives only as long as the
  session of the process that exported it).
- ``SLUICE_JOINED_PROCESSES``: how many tasks join the run (default 3).
- ``SLUICE_BIN``, ``SLUICE_STATE_DIR``, ``SLUICE_SUMMARY_DIR``, ``SLUICE_RETRY_DELAY_SECONDS``: as sluice_specs.py.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

try:  # Airflow 3
    from airflow.sdk import DAG
except ImportError:  # Airflow 2
    from airflow import DAG

from sluice_provider.operators.sluice import SluiceRunOperator  # pip install airflow-provider-sluice

AIRFLOW_HOME = os.environ.get("AIRFLOW_HOME", os.path.expanduser("~/airflow"))
SLUICE_BIN = os.environ.get("SLUICE_BIN", "sluice")
SPEC = os.environ.get("SLUICE_JOINED_SPEC",
                      str(Path(__file__).resolve().parent.parent / "joined" / "orders.yaml"))
PROCESSES = int(os.environ.get("SLUICE_JOINED_PROCESSES", "3"))
STATE_DIR = os.environ.get("SLUICE_STATE_DIR", os.path.join(AIRFLOW_HOME, "sluice", "state"))
SUMMARY_DIR = os.environ.get("SLUICE_SUMMARY_DIR", os.path.join(AIRFLOW_HOME, "sluice", "summaries"))
RETRY_DELAY = timedelta(seconds=int(os.environ.get("SLUICE_RETRY_DELAY_SECONDS", "120")))

with DAG(
    dag_id="sluice_joined",
    description="One Sluice run shared by several mapped Airflow tasks",
    schedule=None,
    start_date=datetime(2024, 1, 1),
    catchup=False,
    max_active_runs=1,  # two DAG runs would be two Sluice runs of one target: the second waits, then fails
    default_args={
        "retries": 2,
        "retry_delay": RETRY_DELAY,
        "execution_timeout": timedelta(hours=6),
    },
    tags=["sluice"],
) as dag:
    SluiceRunOperator.joined(
        task_id="orders",
        processes=PROCESSES,
        spec=SPEC,
        sluice=SLUICE_BIN,
        state_dir=STATE_DIR,
        summary_dir=SUMMARY_DIR,
    )
