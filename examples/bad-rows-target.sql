-- The warehouse's orders table of examples/bad-rows.yaml: its constraints are what the server refuses rows for.
CREATE TABLE IF NOT EXISTS public.orders (
    id bigint PRIMARY KEY,
    name varchar(12),
    amount numeric(8,2),
    qty integer NOT NULL CHECK (qty >= 0),
    order_no text UNIQUE,
    ordered_on date
);
