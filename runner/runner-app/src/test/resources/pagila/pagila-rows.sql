-- Rows for Pagila's tables (PagilaDumpTest), drawn from its sequences as its own data would be. Written with the
-- triggers and the foreign keys' checks off (store and staff name each other; film's full-text trigger would
-- rewrite the column): every film's fulltext is what no trigger writes, so a trigger fired by the copy shows.
SET session_replication_role = replica;
INSERT INTO public.language (name) VALUES ('English'), ('Italian'), ('Japanese'), ('Mandarin');
INSERT INTO public.country (country) SELECT 'Country ' || g FROM generate_series(1, 20) g;
INSERT INTO public.city (city, country_id) SELECT 'City ' || g, 1 + g % 20 FROM generate_series(1, 60) g;
INSERT INTO public.address (address, address2, district, city_id, postal_code, phone)
  SELECT g || ' Main Street', CASE WHEN g % 3 = 0 THEN 'Suite ' || g END, 'District ' || g % 7, 1 + g % 60,
         lpad(g::text, 5, '0'), '555-' || g FROM generate_series(1, 120) g;
INSERT INTO public.category (name) SELECT 'Category ' || g FROM generate_series(1, 16) g;
INSERT INTO public.actor (first_name, last_name) SELECT 'First' || g, 'Last' || g FROM generate_series(1, 200) g;
INSERT INTO public.film (title, description, release_year, language_id, original_language_id, length, rating,
                         special_features, fulltext)
  SELECT 'Film ' || g, 'A story of ' || g || ' things', 1990 + g % 30, 1 + g % 4, CASE WHEN g % 5 = 0 THEN 2 END,
         45 + g % 140, (enum_range(NULL::public.mpaa_rating))[1 + g % 5], ARRAY['Trailers', 'Commentaries'],
         to_tsvector('pg_catalog.english', 'written by no trigger ' || g)
  FROM generate_series(1, 300) g;
INSERT INTO public.film_actor (actor_id, film_id) SELECT DISTINCT 1 + (g * 7) % 200, 1 + g % 300
  FROM generate_series(1, 900) g;
INSERT INTO public.film_category (film_id, category_id) SELECT g, 1 + g % 16 FROM generate_series(1, 300) g;
INSERT INTO public.store (manager_staff_id, address_id) VALUES (1, 1), (2, 2);
INSERT INTO public.staff (first_name, last_name, address_id, email, store_id, username, password, picture)
  VALUES ('Mike', 'Hillyer', 3, 'mike@example.com', 1, 'Mike', md5('not a real one'), '\x89504e470d0a1a0a'),
         ('Jon', 'Stephens', 4, 'jon@example.com', 2, 'Jon', NULL, NULL);
INSERT INTO public.customer (store_id, first_name, last_name, email, address_id, active, create_date)
  SELECT 1 + g % 2, 'Customer', 'Number ' || g, 'customer' || g || '@example.com', 5 + g % 100, g % 9, date '2022-01-01' + g % 30
  FROM generate_series(1, 400) g;
INSERT INTO public.inventory (film_id, store_id) SELECT 1 + g % 300, 1 + g % 2 FROM generate_series(1, 1000) g;
INSERT INTO public.rental (rental_date, inventory_id, customer_id, return_date, staff_id)
  SELECT timestamptz '2022-01-01 10:00:00+00' + g * interval '37 minutes', 1 + g % 1000, 1 + g % 400,
         CASE WHEN g % 10 <> 0 THEN timestamptz '2022-01-04 10:00:00+00' + g * interval '37 minutes' END, 1 + g % 2
  FROM generate_series(1, 4000) g;
INSERT INTO public.payment (customer_id, staff_id, rental_id, amount, payment_date)
  SELECT customer_id, staff_id, rental_id, 0.99 + rental_id % 5, rental_date + interval '1 hour'
  FROM public.rental ORDER BY rental_id;
SET session_replication_role = DEFAULT;
REFRESH MATERIALIZED VIEW public.rental_by_category;
