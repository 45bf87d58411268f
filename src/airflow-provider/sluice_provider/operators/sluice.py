"""Run a Sluice spec as an Airflow task (Airflow 2.9+ and 3.x).

``SluiceRunOperator`` is a ``BashOperator`` that runs ``sluice run SPEC`` with the Airflow run id as Sluice's
``--run-id`` (so every Sluice log line, metric and ledger row names the DAG run) and, from the second try on,
``--resume`` of that id (so a retry continues where the failed try stopped), writes the run summary to a JSON
file and pushes it to XCom (``return_value``, also when the run failed), and turns Sluice's exit codes into
Airflow's retry decision:

====  ==========================  =============================================
code  meaning                     Airflow
====  ==========================  =============================================
0     success                     success; XCom ``return_value`` = summary
1     run failed                  retried (bad data fails again: look first)
2     usage error                 failed at once, no retry (fix the DAG)
3     invalid spec                failed at once, no retry (fix the spec)
4     preflight failure           retried (the server may have been down)
5     verification mismatch       failed at once, no retry (investigate)
130   interrupted (SIGTERM)       retried
====  ==========================  =============================================

Any other code (e.g. 137, killed for memory) is retried. See docs/airflow.md in Sluice's repository.

Secrets come from Airflow connections (``connections={"DST": "warehouse"}``, see ``sluice_provider.hooks.sluice``)
as environment variables, never on the command line. With ``apache-airflow-providers-openlineage`` installed, the
task's OpenLineage run is passed as ``OPENLINEAGE_PARENT_ID``, so Sluice's lineage events name it as their parent.
"""

from __future__ import annotations

import json
import os
from typing import Any

from airflow.exceptions import AirflowException, AirflowFailException

from sluice_provider.hooks.sluice import SluiceHook

try:  # Airflow 3: the standard provider
    from airflow.providers.standard.operators.bash import BashOperator
except ImportError:  # Airflow 2
    from airflow.operators.bash import BashOperator

# Exit codes that fail the task without using its retries: running again cannot help.
NOT_RETRYABLE = {
    2: "usage error: the sluice command line is wrong; fix the DAG",
    3: "invalid spec: 'sluice lint SPEC' lists every problem; fix the spec",
    5: "verification mismatch: rows differ between source and target; investigate before loading again",
}

# The command reads everything from the environment, so spec paths and run ids never need shell quoting.
# The exit code goes to a file next to the summary: the operator decides on retries from it, not from log text.
_COMMAND = r"""
set -u
mkdir -p "$(dirname "$SLUICE_SUMMARY_JSON")"
rm -f "$SLUICE_SUMMARY_JSON" "$SLUICE_SUMMARY_JSON.exit"
"$SLUICE_BIN" run "$SLUICE_SPEC" --run-id "$SLUICE_RUN_ID" \
    ${SLUICE_RESUME:+--resume="$SLUICE_RUN_ID"} \
    ${SLUICE_JOIN:+--join} \
    --summary-json "$SLUICE_SUMMARY_JSON" \
    ${SLUICE_STATE_DIR:+--state-dir "$SLUICE_STATE_DIR"} \
    ${SLUICE_METRICS_PUSH:+--metrics-push "$SLUICE_METRICS_PUSH"} \
    $SLUICE_EXTRA_ARGS
rc=$?
echo "$rc" > "$SLUICE_SUMMARY_JSON.exit"
exit "$rc"
"""


class SluiceRunOperator(BashOperator):
    """``sluice run SPEC --run-id {{ run_id }} --summary-json ...`` with exit-code-aware retries.

    :param spec: the spec file (templated).
    :param sluice: the ``sluice`` executable: the launcher of a checkout, or ``sluice`` on the PATH.
    :param summary_dir: folder for summaries; each try writes ``<dag>/<run id>/<task>.<try>.json`` (templated).
    :param state_dir: Sluice's ``--state-dir`` (only needed for ``embedded:`` connections); default Sluice's own.
    :param metrics_push: a Prometheus Pushgateway URL for ``--metrics-push``; default none.
    :param resume: on the second and later tries (a retry, a cleared task), pass ``--resume=<run id>`` so the try
        continues the Sluice run of the same DAG run from its ledger: done partitions are skipped, done streams too.
        Without it, such a try exits 2 (run id already in the ledger). Set False for specs with ``ledger: off``,
        which cannot resume (and do not need to: without a ledger the run id may repeat).
    :param join: ``--join``: this task is one of several processes of the same Sluice run (mapped tasks of one
        DAG run share its run id), each claiming partitions from the ledger; a retry simply joins again. See
        sluice_joined.py and docs/operations.md, "Scaling out".
    :param process: which process of a joined run this task is (the value a mapped task expands over); it only
        names the summary file and the logs.
    :param connections: spec variable prefix -> Airflow connection id, e.g. ``{"DST": "warehouse"}`` sets
        ``DST_URL``, ``DST_USER``, ``DST_PASSWORD``... in Sluice's environment (see ``SluiceHook``).
    :param extra_args: more ``sluice run`` arguments, e.g. ``"--log-format json"`` (split on spaces).
    """

    template_fields = (*BashOperator.template_fields, "spec", "summary_dir", "state_dir", "metrics_push")

    def __init__(
        self,
        *,
        spec: str,
        sluice: str = "sluice",
        summary_dir: str,
        state_dir: str | None = None,
        metrics_push: str | None = None,
        resume: bool = True,
        join: bool = False,
        process: int | None = None,
        connections: dict[str, str] | None = None,
        extra_args: str = "",
        **kwargs: Any,
    ) -> None:
        if not spec:
            raise ValueError("spec is empty: give the path of a Sluice spec file")
        if not summary_dir:
            raise ValueError("summary_dir is empty: give a folder for the run summaries")
        kwargs.setdefault("append_env", True)  # keep PATH, JAVA_HOME and the worker's own variables
        super().__init__(bash_command=_COMMAND, **kwargs)
        self.spec = spec
        self.sluice = sluice
        self.summary_dir = summary_dir
        self.state_dir = state_dir or ""
        self.metrics_push = metrics_push or ""
        self.resume = resume
        self.join = join
        self.process = process
        self.connections = dict(connections or {})
        self.extra_args = extra_args

    @classmethod
    def joined(cls, *, task_id: str, processes: int, **kwargs: Any) -> Any:
        """One Sluice run shared by ``processes`` mapped tasks of a DAG run (``--join``): each claims partitions from
        the ledger, and each succeeds when every partition is done. ``kwargs`` are this operator's (``spec``,
        ``summary_dir``...) and the task's (``retries``...)."""
        if processes < 1:
            raise ValueError(f"processes is {processes}: a joined run needs at least one task")
        return cls.partial(task_id=task_id, join=True, **kwargs).expand(process=list(range(processes)))

    def summary_path(self, ti: Any) -> str:
        """One file per try, so a retry never reads the summary of the try before."""
        mapped = f".{ti.map_index}" if getattr(ti, "map_index", -1) >= 0 else ""
        return os.path.join(self.summary_dir, ti.dag_id, ti.run_id, f"{ti.task_id}{mapped}.{ti.try_number}.json")

    def execute(self, context: Any) -> Any:
        ti = context["ti"]
        path = self.summary_path(ti)
        # Set here, after templating, so templated spec paths and folders arrive rendered.
        self.env = {
            **(self.env or {}),
            "SLUICE_BIN": self.sluice,
            "SLUICE_SPEC": self.spec,
            "SLUICE_RUN_ID": context["run_id"],
            "SLUICE_SUMMARY_JSON": path,
            "SLUICE_STATE_DIR": self.state_dir,
            "SLUICE_METRICS_PUSH": self.metrics_push,
            # The first try starts the run; later tries (retries, a cleared task) continue it.
            # A joined process continues the run by itself, whichever try it is.
            "SLUICE_RESUME": "1" if self.resume and not self.join and ti.try_number > 1 else "",
            "SLUICE_JOIN": "1" if self.join else "",
            "SLUICE_EXTRA_ARGS": self.extra_args,
            **SluiceHook.environment(self.connections),
            **_lineage_parent(ti),
        }
        try:
            super().execute(context)
        except AirflowException as failure:
            code = _read_exit_code(path)
            summary = _read_summary(path)
            if summary is not None:
                # Failed runs keep their summary too: the first error and the partitions done are in it.
                ti.xcom_push(key="return_value", value=summary)
            if code in NOT_RETRYABLE:
                raise AirflowFailException(
                    f"sluice exited {code} for {self.spec}: {NOT_RETRYABLE[code]} (not retried)"
                ) from failure
            raise
        summary = _read_summary(path)
        if summary is None:
            self.log.warning("sluice succeeded but wrote no summary at %s; XCom stays empty", path)
        return summary


def _lineage_parent(ti: Any) -> dict[str, str]:
    """The task's OpenLineage run, when the OpenLineage provider is installed: Sluice's events name it as parent."""
    try:
        from airflow.providers.openlineage.plugins.macros import (
            lineage_job_name, lineage_job_namespace, lineage_run_id)
    except ImportError:
        return {}
    try:
        return {"OPENLINEAGE_PARENT_ID": f"{lineage_job_namespace()}/{lineage_job_name(ti)}/{lineage_run_id(ti)}"}
    except Exception:  # lineage must never fail a load
        return {}


def _read_exit_code(path: str) -> int | None:
    try:
        with open(path + ".exit", encoding="utf-8") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None  # killed before it could write: treat as retryable


def _read_summary(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
