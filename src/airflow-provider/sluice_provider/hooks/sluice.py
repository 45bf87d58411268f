"""Airflow connections as a Sluice spec's environment variables.

A spec names its secrets as variables (``url: "${DST_URL}", password: "${DST_PASSWORD}"``); the operator's
``connections={"DST": "warehouse"}`` fills them from the Airflow connection ``warehouse``. They reach Sluice through
its environment only, never its command line (which ``ps`` shows to every user of the worker), and Sluice masks
every interpolated value in what it prints.

From a connection of type ``postgres`` (or ``sluice``, this provider's: the same fields, for a database Sluice reaches
by a JDBC URL of its own in the extra ``jdbc_url``):

==================  ==========================================================
variable            value
==================  ==========================================================
``<P>_URL``         ``jdbc:postgresql://host:port/schema`` (or extra ``jdbc_url``)
``<P>_HOST``        host
``<P>_PORT``        port (5432 when empty)
``<P>_DATABASE``    schema (the database)
``<P>_USER``        login
``<P>_PASSWORD``    password
==================  ==========================================================

From a ``mysql`` (or ``mariadb``) connection, the same variables, the URL being
``jdbc:mariadb://host:port/schema`` (port 3306 when empty; or extra ``jdbc_url``), for a ``type: mysql`` source.

From an ``aws`` connection (an S3 source read through DuckDB): ``<P>_KEY_ID`` (login), ``<P>_SECRET`` (password),
``<P>_SESSION_TOKEN``, ``<P>_REGION`` and ``<P>_ENDPOINT`` (extras ``aws_session_token``, ``region_name``,
``endpoint_url`` without its scheme). Unset fields are left out, so a spec's ``${VAR:-default}`` applies.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

try:  # Airflow 3
    from airflow.sdk.bases.hook import BaseHook
except ImportError:  # Airflow 2
    from airflow.hooks.base import BaseHook

_PREFIX = re.compile(r"^[A-Z_][A-Z0-9_]*$")


class SluiceHook(BaseHook):
    """Turns Airflow connections into the environment variables a Sluice spec reads."""

    conn_name_attr = "sluice_conn_id"
    default_conn_name = "sluice_default"
    conn_type = "sluice"
    hook_name = "Sluice (JDBC database)"

    @classmethod
    def get_ui_field_behaviour(cls) -> dict[str, Any]:
        return {
            "hidden_fields": [],
            "relabeling": {"schema": "Database", "login": "User"},
            "placeholders": {"extra": '{"jdbc_url": "jdbc:postgresql://db:5432/shop?sslmode=require"}'},
        }

    def __init__(self, sluice_conn_id: str = default_conn_name, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sluice_conn_id = sluice_conn_id

    def get_conn(self) -> Any:
        return self.get_connection(self.sluice_conn_id)

    @classmethod
    def environment(cls, connections: Mapping[str, str]) -> dict[str, str]:
        """The variables of every ``prefix -> connection id`` in ``connections``."""
        env: dict[str, str] = {}
        for prefix, conn_id in connections.items():
            if not _PREFIX.match(prefix):
                raise ValueError(f"connections: prefix {prefix!r} is not an environment variable name "
                                 "(upper case, digits, underscores), e.g. DST")
            env.update(cls.variables(prefix, cls.get_connection(conn_id)))
        return env

    @staticmethod
    def variables(prefix: str, conn: Any) -> dict[str, str]:
        """The variables of one connection (an ``airflow.models.Connection`` or the SDK's)."""
        extra = conn.extra_dejson if getattr(conn, "extra", None) else {}
        kind = (conn.conn_type or "").lower()
        values: dict[str, Any]
        if kind == "aws":
            endpoint = str(extra.get("endpoint_url") or "")
            values = {
                "KEY_ID": conn.login,
                "SECRET": conn.password,
                "SESSION_TOKEN": extra.get("aws_session_token"),
                "REGION": extra.get("region_name"),
                "ENDPOINT": re.sub(r"^https?://", "", endpoint) or None,
            }
        elif kind in ("postgres", "postgresql", "sluice", "mysql", "mariadb"):
            mysql = kind in ("mysql", "mariadb")
            port = conn.port or (3306 if mysql else 5432)
            scheme = "mariadb" if mysql else "postgresql"
            url = extra.get("jdbc_url") or (
                f"jdbc:{scheme}://{conn.host}:{port}/{conn.schema or ''}" if conn.host else None)
            values = {
                "URL": url,
                "HOST": conn.host,
                "PORT": port if conn.host else None,
                "DATABASE": conn.schema,
                "USER": conn.login,
                "PASSWORD": conn.password,
            }
        else:
            raise ValueError(f"connection {conn.conn_id!r} is of type {conn.conn_type!r}; Sluice takes postgres, "
                             "mysql, sluice (a JDBC URL) or aws connections")
        return {f"{prefix}_{key}": str(value) for key, value in values.items() if value not in (None, "")}
