"""Example DAG: a Sluice spec between real PostgreSQL servers, their credentials from Airflow connections.

The spec (``../postgres/orders.yaml``) names its secrets as ``${SHOP_URL}``, ``${SHOP_USER}``, ``${SHOP_PASSWORD}``
and the same for ``WAREHOUSE``; ``connections=`` maps each prefix to an Airflow connection of type ``postgres``
(or ``sluice``), and the operator sets those variables for the Sluice process only: nothing secret in the spec, the
DAG file or the command line, and Airflow and Sluice both mask the password in the task log.

Create the connections once, e.g. ``airflow connections add shop_db --conn-uri
postgres://loader:secret@shop-host:5432/shop`` (or ``AIRFLOW_CONN_SHOP_DB=...`` in the worker's environment).

Configuration, from the worker's environment: ``SLUICE_BIN``, ``SLUICE_SUMMARY_DIR`` as in sluice_specs.py, and
``SLUICE_SHOP_CONN_ID`` / ``SLUICE_WAREHOUSE_CONN_ID`` (default ``shop_db`` / ``warehouse_db``).
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
SPEC = Path(__file__).resolve().parent.parent / "postgres" / "orders.yaml"

with DAG(
    dag_id="sluice_postgres",
    description="Bulk load between PostgreSQL servers with Sluice, credentials from Airflow connections",
    schedule=None,  # e.g. "@daily"
    start_date=datetime(2024, 1, 1),
    catchup=False,
    max_active_runs=1,  # two runs would load the same target at once
    default_args={"retries": 2, "retry_delay": timedelta(minutes=2), "retry_exponential_backoff": True},
    tags=["sluice"],
) as dag:
    SluiceRunOperator(
        task_id="orders",
        spec=str(SPEC),
        sluice=os.environ.get("SLUICE_BIN", "sluice"),
        summary_dir=os.environ.get("SLUICE_SUMMARY_DIR", os.path.join(AIRFLOW_HOME, "sluice", "summaries")),
        connections={
            "SHOP": os.environ.get("SLUICE_SHOP_CONN_ID", "shop_db"),
            "WAREHOUSE": os.environ.get("SLUICE_WAREHOUSE_CONN_ID", "warehouse_db"),
        },
    )
