CREATE TABLE public.rows (id int PRIMARY KEY, name text, amount numeric(10,2), at timestamptz, flag boolean);
INSERT INTO public.rows SELECT g, 'row ' || g, g / 7.0, now(), g % 2 = 0 FROM generate_series(1, 1000) g;
