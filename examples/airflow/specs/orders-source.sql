-- Source side of the Airflow example: 20,000 deterministic rows (the Airflow test compares both sides).
CREATE TABLE public.orders (
    id         bigint        NOT NULL PRIMARY KEY,
    customer   integer       NOT NULL,
    status     text          NOT NULL,
    amount     numeric(12,2),
    ordered_at timestamptz   NOT NULL
);
INSERT INTO public.orders
SELECT g,
       (g * 7919) % 1000,
       (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4],
       CASE WHEN g % 10 = 0 THEN NULL ELSE round((g % 10000) / 100.0, 2) END,
       timestamptz '2024-01-01 00:00:00+00' + g * interval '1 minute'
FROM generate_series(1, 20000) AS g;
ANALYZE public.orders;
