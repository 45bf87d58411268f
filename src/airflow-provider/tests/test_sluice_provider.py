"""SluiceRunOperator and SluiceHook under a real Airflow (``dag.test()``: scheduler-free, in process, real DB)."""

from __future__ import annotations

import json
import os
import runpy
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import calls

try:  # Airflow 3
    from airflow.sdk import DAG
    from airflow.models.xcom import XComModel as XCom
except ImportError:  # Airflow 2
    from airflow import DAG
    from airflow.models.xcom import XCom

from airflow.utils.session import create_session

from sluice_provider import get_provider_info
from sluice_provider.hooks.sluice import SluiceHook
from sluice_provider.operators.sluice import SluiceRunOperator

_DATES = iter(datetime(2024, 2, d, tzinfo=timezone.utc) for d in range(1, 29))


DAGS = Path(os.environ["AIRFLOW_HOME"]) / "dags"


def dag_file(dag_id: str, tasks: str, default_args: str = "{}") -> DAG:
    """A DAG written into the DAGs folder, as a user writes one (Airflow 3 tests only DAGs it can parse there)."""
    DAGS.mkdir(parents=True, exist_ok=True)
    path = DAGS / f"{dag_id}.py"
    path.write_text(f"""
from datetime import datetime, timedelta, timezone
try:
    from airflow.sdk import DAG
except ImportError:
    from airflow import DAG
from sluice_provider.operators.sluice import SluiceRunOperator

with DAG({dag_id!r}, schedule=None, start_date=datetime(2024, 1, 1, tzinfo=timezone.utc), catchup=False,
         default_args={default_args}) as dag:
{textwrap.indent(textwrap.dedent(tasks).strip(), "    ")}
""")
    return runpy.run_path(str(path))["dag"]


def run_dag(dag: DAG):
    """Runs every task of ``dag`` once; the task instances by (task id, map index), and the run id."""
    when = next(_DATES)
    try:
        dagrun = dag.test(logical_date=when)
    except TypeError:  # Airflow 2 names it execution_date
        dagrun = dag.test(execution_date=when)
    with create_session() as session:
        from airflow.models.taskinstance import TaskInstance
        tis = session.query(TaskInstance).filter_by(dag_id=dag.dag_id, run_id=dagrun.run_id).all()
        states = {(ti.task_id, ti.map_index): str(ti.state) for ti in tis}
    return states, dagrun.run_id


def xcom(dag_id: str, run_id: str, task_id: str, map_index: int = -1):
    with create_session() as session:
        row = session.query(XCom).filter_by(dag_id=dag_id, run_id=run_id, task_id=task_id, map_index=map_index,
                                            key="return_value").one_or_none()
        if row is None:
            value = None
        elif isinstance(row.value, (dict, list)):  # Airflow 2.10 hands the value over deserialized
            value = row.value
        else:
            value = XCom.deserialize_value(row)
    return json.loads(value) if isinstance(value, str) else value


def test_a_run_passes_the_airflow_run_id_puts_the_summary_in_xcom_and_secrets_only_in_the_environment(
        fake_sluice, tmp_path):
    exe, record = fake_sluice
    dag = dag_file("sluice_ok", f"""
        SluiceRunOperator(task_id="orders", spec="/specs/orders.yaml", sluice={str(exe)!r},
                          summary_dir={str(tmp_path / "summaries")!r},
                          connections={{"DST": "warehouse", "LAKE": "lake"}})
    """)
    states, run_id = run_dag(dag)
    assert states[("orders", -1)] == "success"
    [(args, env)] = calls(record)
    assert args[:4] == ["run", "/specs/orders.yaml", "--run-id", run_id]
    assert "--resume" not in " ".join(args) and "--join" not in args
    assert env["DST_URL"] == "jdbc:postgresql://warehouse-db:6432/dwh"
    assert (env["DST_USER"], env["DST_PASSWORD"]) == ("loader", "s3cret-pw")
    assert (env["LAKE_KEY_ID"], env["LAKE_SECRET"], env["LAKE_REGION"], env["LAKE_ENDPOINT"]) == (
        "AKIAEXAMPLE", "lake-secret", "eu-west-1", "127.0.0.1:9000")
    assert not any("s3cret-pw" in a or "lake-secret" in a for a in args), "no secret on the command line"
    summary = xcom("sluice_ok", run_id, "orders")
    assert summary == {"run-id": run_id, "exit-code": 0, "state": "done", "streams": []}


@pytest.mark.parametrize("code,tries", [(3, 1), (5, 1), (2, 1), (4, 2), (1, 2), (130, 2)])
def test_exit_codes_a_retry_cannot_fix_fail_at_once_and_the_others_retry_resuming_the_same_run(
        fake_sluice, tmp_path, monkeypatch, code, tries):
    exe, record = fake_sluice
    monkeypatch.setenv("FAKE_SLUICE_EXIT", str(code))
    dag_id = f"sluice_exit_{code}"
    dag = dag_file(dag_id, f"""
        SluiceRunOperator(task_id="orders", spec="/specs/orders.yaml", sluice={str(exe)!r},
                          summary_dir={str(tmp_path / "summaries")!r})
    """, default_args='{"retries": 1, "retry_delay": timedelta(0)}')
    states, run_id = run_dag(dag)
    assert states[("orders", -1)] == "failed"
    found = calls(record)
    assert len(found) == tries, f"exit {code}: {len(found)} tries"
    resumed = [args for args, _ in found if f"--resume={run_id}" in args]
    assert len(resumed) == tries - 1, "a retry resumes the Sluice run of the same DAG run"
    summary = xcom(dag_id, run_id, "orders")
    assert summary["exit-code"] == code, "a failed run's summary is in XCom too"


def test_joined_maps_one_run_over_several_tasks_each_with_join_and_the_same_run_id(fake_sluice, tmp_path):
    exe, record = fake_sluice
    dag = dag_file("sluice_joined_test", f"""
        SluiceRunOperator.joined(task_id="orders", processes=3, spec="/specs/orders.yaml", sluice={str(exe)!r},
                                 summary_dir={str(tmp_path / "summaries")!r})
    """)
    states, run_id = run_dag(dag)
    assert sorted(states.items()) == [(("orders", i), "success") for i in range(3)]
    found = calls(record)
    assert len(found) == 3
    for args, _ in found:
        assert args[:4] == ["run", "/specs/orders.yaml", "--run-id", run_id] and "--join" in args
    summaries = sorted((tmp_path / "summaries" / "sluice_joined_test" / run_id).glob("orders.*.1.json"))
    assert [p.name for p in summaries] == ["orders.0.1.json", "orders.1.1.json", "orders.2.1.json"]
    with pytest.raises(ValueError):
        SluiceRunOperator.joined(task_id="none", processes=0, spec="s", summary_dir="d")


def test_the_hook_refuses_a_connection_type_sluice_cannot_use_and_a_prefix_that_is_no_variable(monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_MAILER", "smtp://user:pw@mail:25")
    with pytest.raises(ValueError, match="postgres, mysql, sluice .* or aws"):
        SluiceHook.environment({"DST": "mailer"})
    with pytest.raises(ValueError, match="not an environment variable name"):
        SluiceHook.environment({"dst-db": "warehouse"})


def test_a_mysql_connection_gives_a_mariadb_jdbc_url_and_its_default_port(monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_SHOP", "mysql://loader:my-pw@shop-db/shop")
    env = SluiceHook.environment({"SHOP": "shop"})
    assert env == {"SHOP_URL": "jdbc:mariadb://shop-db:3306/shop", "SHOP_HOST": "shop-db", "SHOP_PORT": "3306",
                   "SHOP_DATABASE": "shop", "SHOP_USER": "loader", "SHOP_PASSWORD": "my-pw"}


def test_a_sluice_connection_gives_its_own_jdbc_url(monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_PG", json.dumps({"conn_type": "sluice", "login": "u", "password": "p",
                                                      "extra": {"jdbc_url": "jdbc:postgresql://a,b/db?sslmode=require"}}))
    env = SluiceHook.environment({"SRC": "pg"})
    assert env == {"SRC_URL": "jdbc:postgresql://a,b/db?sslmode=require", "SRC_USER": "u", "SRC_PASSWORD": "p"}


def test_the_provider_registers_the_sluice_connection_type():
    info = get_provider_info()
    assert info["connection-types"] == [
        {"connection-type": "sluice", "hook-class-name": "sluice_provider.hooks.sluice.SluiceHook"}]
    from airflow.providers_manager import ProvidersManager
    assert "airflow-provider-sluice" in ProvidersManager().providers, "installed: its entry point is found"
