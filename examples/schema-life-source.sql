-- Source side of examples/schema-life.yaml: a CRM's customers, some of them test accounts, with personal data.
CREATE TABLE public.customers (
    id          bigint PRIMARY KEY,
    email       text NOT NULL,
    phone       text,
    status      text NOT NULL,
    notes       text,
    spend_cents bigint NOT NULL
);
INSERT INTO public.customers
SELECT g,
       'Customer' || g || '@Example.com',
       '+41 79 ' || lpad((g % 10000)::text, 4, '0'),
       CASE WHEN g % 20 = 0 THEN 'test' ELSE 'live' END,
       'called on ' || (date '2026-01-01' + g % 300),
       g * 137
FROM generate_series(1, 50000) g;
