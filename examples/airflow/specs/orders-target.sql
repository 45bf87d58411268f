-- Target side of the Airflow example: the empty table, created when Sluice creates the embedded database.
CREATE TABLE public.orders (
    id         bigint        NOT NULL PRIMARY KEY,
    customer   integer       NOT NULL,
    status     text          NOT NULL,
    amount     numeric(12,2),
    ordered_at timestamptz   NOT NULL
);
