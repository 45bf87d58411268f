-- Target side of the quickstart: the empty table, created when Sluice creates the embedded database.
CREATE TABLE public.orders (
    id          bigint      NOT NULL,
    customer_id integer     NOT NULL,
    status      text        NOT NULL,
    amount      numeric(12,2),
    discount    real,
    ordered_at  timestamptz NOT NULL,
    ship_date   date,
    is_gift     boolean,
    tags        text[],
    details     jsonb,
    ref         uuid
);
