-- Source side of the quickstart: the table plus 2 million generated rows of mixed types, with NULLs.
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
INSERT INTO public.orders
SELECT g,
       ((g::bigint * 7919) % 100000)::int,
       (ARRAY['new', 'paid', 'shipped', 'returned'])[1 + g % 4],
       round((g % 100000) / 100.0, 2),
       CASE WHEN g % 10 = 0 THEN NULL ELSE (g % 30) / 100.0 END,
       timestamptz '2024-01-01 00:00:00+00' + (g % 525600) * interval '1 minute',
       date '2024-01-01' + (g % 400),
       g % 17 = 0,
       CASE WHEN g % 5 = 0 THEN ARRAY['promo', 'tag' || (g % 3)] END,
       jsonb_build_object('channel', CASE WHEN g % 2 = 0 THEN 'web' ELSE 'store' END, 'items', g % 9 + 1),
       md5(g::text)::uuid
FROM generate_series(1, 2000000) AS g;
ANALYZE public.orders;
