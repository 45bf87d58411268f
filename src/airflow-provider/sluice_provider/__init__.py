"""Apache Airflow provider for Sluice: ``SluiceRunOperator`` and the ``sluice`` connection type."""

__version__ = "0.1.0"


def get_provider_info() -> dict:
    """What Airflow's provider manager reads (entry point ``apache_airflow_provider``)."""
    return {
        "package-name": "airflow-provider-sluice",
        "name": "Sluice",
        "description": "Declarative bulk loads into PostgreSQL with Sluice.",
        "versions": [__version__],
        "connection-types": [
            {"connection-type": "sluice", "hook-class-name": "sluice_provider.hooks.sluice.SluiceHook"},
        ],
    }
