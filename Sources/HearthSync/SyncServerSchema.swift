/// Version 1 of the server's schema (`hearth`): version, the clock row, zones, records,
/// hubs, and the push and pull functions. Version 2 (`serverSchemaV2`) changes it.
let serverSchemaV1 = """
  CREATE SCHEMA hearth;
  CREATE TABLE hearth.meta (key text PRIMARY KEY, value text NOT NULL);
  INSERT INTO hearth.meta VALUES ('schema', '1'), ('maximumDrift', '60000');
  CREATE TABLE hearth.clock (id int PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL);
  INSERT INTO hearth.clock VALUES (1, 0);
  CREATE TABLE hearth.zones (
    zone text COLLATE "C" PRIMARY KEY, owner name NOT NULL DEFAULT current_user,
    created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE hearth.records (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE,
    record_type text COLLATE "C" NOT NULL, record_name text COLLATE "C" NOT NULL,
    fields jsonb NOT NULL DEFAULT '{}', times jsonb NOT NULL DEFAULT '{}',
    created text COLLATE "C", deleted text COLLATE "C",
    seq bigint NOT NULL, origin text NOT NULL,
    PRIMARY KEY (zone, record_type, record_name));
  CREATE INDEX records_by_seq ON hearth.records (zone, seq, record_type, record_name);
  CREATE TABLE hearth.hubs (
    hub text PRIMARY KEY, role name NOT NULL DEFAULT current_user, zone text,
    pushed bigint, pulled bigint, pushed_at timestamptz, pulled_at timestamptz);

  -- The later of two times (text that sorts as the times compare; NULL is earliest).
  CREATE FUNCTION hearth.later(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN b IS NULL OR (a IS NOT NULL AND a COLLATE "C" >= b COLLATE "C")
      THEN a ELSE b END $$;
  -- A time no further ahead than `bound` (wall milliseconds): its counter and hub kept.
  -- `push` bounds times at the server's clock plus hearth.meta's maximumDrift (ms).
  CREATE FUNCTION hearth.clamped(t text, bound bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN t IS NULL OR left(t, 15) !~ '^[0-9]{15}$' OR left(t, 15)::bigint <= bound
      THEN t ELSE lpad(bound::text, 15, '0') || substr(t, 16) END $$;
  CREATE FUNCTION hearth.clamped_times(times jsonb, bound bigint) RETURNS jsonb
  LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(key, hearth.clamped(value, bound)), '{}')
    FROM jsonb_each_text(times) $$;
  -- Per column, the value of the later time (ties cannot be: a time names its hub).
  CREATE FUNCTION hearth.merge_fields(old_fields jsonb, old_times jsonb, new_fields jsonb,
    new_times jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(k, CASE
      WHEN new_times ? k AND (NOT old_times ? k
        OR (new_times ->> k) COLLATE "C" > (old_times ->> k) COLLATE "C")
      THEN new_fields -> k ELSE old_fields -> k END), '{}')
    FROM (SELECT jsonb_object_keys(old_times) UNION SELECT jsonb_object_keys(new_times)) AS c(k) $$;
  CREATE FUNCTION hearth.merge_times(old_times jsonb, new_times jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_object_agg(k, hearth.later(old_times ->> k, new_times ->> k)), '{}')
    FROM (SELECT jsonb_object_keys(old_times) UNION SELECT jsonb_object_keys(new_times)) AS c(k) $$;

  -- One batch, in one transaction: numbered from the clock row (whose lock orders the
  -- pushers), each record merged into the server's, the doorbell rung at commit.
  CREATE FUNCTION hearth.push(p_zone text, p_hub text, p_records jsonb) RETURNS bigint
  LANGUAGE plpgsql AS $$
  DECLARE
    v_seq bigint;
    v_bound bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      + (SELECT value::bigint FROM hearth.meta WHERE key = 'maximumDrift');
  BEGIN
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    INSERT INTO hearth.zones (zone) VALUES (p_zone) ON CONFLICT DO NOTHING;
    INSERT INTO hearth.records AS r (zone, record_type, record_name, fields, times, created,
      deleted, seq, origin)
    SELECT p_zone, x.type, x.name, coalesce(x.fields, '{}'),
      hearth.clamped_times(coalesce(x.times, '{}'), v_bound),
      hearth.clamped(x.created, v_bound), hearth.clamped(x.deleted, v_bound), v_seq, p_hub
    FROM jsonb_to_recordset(p_records)
      AS x(type text, name text, fields jsonb, times jsonb, created text, deleted text)
    ON CONFLICT (zone, record_type, record_name) DO UPDATE SET
      fields = hearth.merge_fields(r.fields, r.times, excluded.fields, excluded.times),
      times = hearth.merge_times(r.times, excluded.times),
      created = hearth.later(r.created, excluded.created),
      deleted = hearth.later(r.deleted, excluded.deleted),
      seq = v_seq, origin = p_hub;
    INSERT INTO hearth.hubs AS h (hub, zone, pushed, pushed_at)
    VALUES (p_hub, p_zone, v_seq, now())
    ON CONFLICT (hub) DO UPDATE SET pushed = v_seq, pushed_at = now(), zone = p_zone;
    PERFORM pg_notify('hearth', p_zone || ':' || v_seq);
    RETURN v_seq;
  END $$;

  -- The records after the cursor (seq, type, name), in that order, as one JSON array.
  CREATE FUNCTION hearth.pull(p_zone text, p_hub text, p_seq bigint, p_type text,
    p_name text, p_limit int) RETURNS json LANGUAGE plpgsql AS $$
  DECLARE v_page json;
  BEGIN
    INSERT INTO hearth.hubs AS h (hub, zone, pulled, pulled_at)
    VALUES (p_hub, p_zone, p_seq, now())
    ON CONFLICT (hub) DO UPDATE SET pulled = p_seq, pulled_at = now()
      WHERE h.pulled IS DISTINCT FROM p_seq;
    SELECT coalesce(json_agg(json_build_object('type', record_type, 'name', record_name,
      'fields', fields, 'times', times, 'created', created, 'deleted', deleted, 'seq', seq)
      ORDER BY seq, record_type, record_name), '[]')
    INTO v_page
    FROM (SELECT * FROM hearth.records
      WHERE zone = p_zone AND (seq, record_type, record_name) > (p_seq, p_type COLLATE "C", p_name COLLATE "C")
      ORDER BY seq, record_type, record_name LIMIT p_limit) AS page;
    RETURN v_page;
  END $$;
  """
