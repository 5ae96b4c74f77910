/// Version 5 of the server's schema: records kept as the log of their pushes, over version 4.
///
/// - A push is one row of `hearth.chunks`: its records as the hub sent them (a `jsonb`
///   array, which PostgreSQL compresses: about 41 bytes a record of the sync benchmark's
///   rows, against 479 for a row of `hearth.records`), numbered from the clock row, with the
///   bound its times are read under (the server's clock plus `maximumDrift` when it came: a
///   time past it is read as it, by every reader). Nothing is merged when it comes.
/// - Records of rows moved to a share (`hearth.moved`, the stubs) go to the share's chunk.
/// - `hearth.zone_records` merges a zone's chunks as `hearth.records` held them: per column
///   the value of the later time, the later insert and delete; share, unshare, collect and
///   verify read it.
///
/// Not wired: the service still pushes and pulls `hearth.records` (versions 1 to 4).
let serverSchemaV5 = """
  CREATE TABLE hearth.chunks (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    seq bigint NOT NULL, origin text NOT NULL, bound bigint NOT NULL, records jsonb NOT NULL,
    PRIMARY KEY (zone, seq));
  CREATE TABLE hearth.moved (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    record_type text COLLATE "C" NOT NULL, record_name text COLLATE "C" NOT NULL,
    moved_to text COLLATE "C" NOT NULL, seq bigint NOT NULL,
    PRIMARY KEY (zone, record_type, record_name));
  ALTER TABLE hearth.chunks ENABLE ROW LEVEL SECURITY;
  ALTER TABLE hearth.chunks FORCE ROW LEVEL SECURITY;
  CREATE POLICY readable ON hearth.chunks FOR SELECT USING (hearth.can_read(zone));
  ALTER TABLE hearth.moved ENABLE ROW LEVEL SECURITY;
  ALTER TABLE hearth.moved FORCE ROW LEVEL SECURITY;
  CREATE POLICY readable ON hearth.moved FOR SELECT USING (hearth.can_read(zone));
  UPDATE hearth.meta SET value = '5' WHERE key = 'schema';

  -- One push: its records appended as a chunk of the zone (those of moved rows as a chunk
  -- of the share they moved to), numbered from the clock row, the doorbell rung at commit.
  -- Returns the number and the bound the times are read under.
  CREATE FUNCTION hearth.append(p_zone text, p_hub text, p_records jsonb, OUT seq bigint,
    OUT bound bigint)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_target text;
  BEGIN
    PERFORM hearth.writable(p_zone);
    UPDATE hearth.clock c SET seq = c.seq + 1 WHERE id = 1 RETURNING c.seq INTO seq;
    bound := (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      + (SELECT value::bigint FROM hearth.meta WHERE key = 'maximumDrift');
    IF NOT EXISTS (SELECT 1 FROM hearth.moved m WHERE m.zone = p_zone) THEN
      INSERT INTO hearth.chunks VALUES (p_zone, seq, p_hub, bound, p_records);
    ELSE
      FOR v_target IN
        SELECT DISTINCT coalesce(m.moved_to, p_zone) FROM jsonb_array_elements(p_records) x(r)
        LEFT JOIN hearth.moved m ON m.zone = p_zone AND m.record_type = x.r ->> 'type'
          AND m.record_name = x.r ->> 'name'
      LOOP
        IF v_target <> p_zone THEN PERFORM hearth.writable(v_target); END IF;
      END LOOP;
      INSERT INTO hearth.chunks
      SELECT coalesce(m.moved_to, p_zone), seq, p_hub, bound, jsonb_agg(x.r ORDER BY x.n)
      FROM jsonb_array_elements(p_records) WITH ORDINALITY x(r, n)
      LEFT JOIN hearth.moved m ON m.zone = p_zone AND m.record_type = x.r ->> 'type'
        AND m.record_name = x.r ->> 'name'
      GROUP BY coalesce(m.moved_to, p_zone);
    END IF;
    INSERT INTO hearth.cursors AS c (hub, zone, role, pushed, pushed_at)
    VALUES (p_hub, p_zone, session_user, seq, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pushed = excluded.pushed, pushed_at = now();
    PERFORM pg_notify('hearth', seq::text);
  END $$;

  -- The chunks of zone p_zone after p_seq, in order, until p_limit records: their number,
  -- bound and records (text), less hub p_hub's own pushes numbered at most p_pushed (it has
  -- them); `skipped` says a row stands only for the cursor's move past them.
  CREATE FUNCTION hearth.chunks_after(p_zone text, p_hub text, p_seq bigint, p_limit int,
    p_pushed bigint)
  RETURNS TABLE (seq bigint, bound bigint, records text, skipped boolean)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT c.seq, c.bound,
      CASE WHEN c.origin = p_hub AND c.seq <= p_pushed THEN NULL ELSE c.records::text END,
      c.origin = p_hub AND c.seq <= p_pushed
    FROM (
      SELECT c.*, sum(jsonb_array_length(c.records)) OVER (ORDER BY c.seq) AS total
      FROM hearth.chunks c
      WHERE c.zone = p_zone AND c.seq > p_seq AND hearth.can_read(p_zone)) AS c
    WHERE c.total - jsonb_array_length(c.records) < p_limit
    ORDER BY c.seq $$;

  -- Zone p_zone's records, merged from its chunks as `hearth.records` held them: per column
  -- the value of the later time (times past a chunk's bound read as the bound), the later
  -- insert and delete, the number of the last chunk that named the record.
  CREATE FUNCTION hearth.zone_records(p_zone text)
  RETURNS TABLE (record_type text, record_name text, fields jsonb, times jsonb, created text,
    deleted text, seq bigint)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    WITH pushed AS (
      SELECT c.seq, c.bound, x.r FROM hearth.chunks c, jsonb_array_elements(c.records) x(r)
      WHERE c.zone = p_zone AND hearth.can_read(p_zone)),
    columns AS (
      SELECT DISTINCT ON (r ->> 'type', r ->> 'name', k)
        r ->> 'type' AS t, r ->> 'name' AS n, k,
        hearth.clamped(r -> 'times' ->> k, bound) AS time, r -> 'fields' -> k AS value
      FROM pushed, jsonb_object_keys(coalesce(r -> 'times', '{}')) k
      ORDER BY r ->> 'type', r ->> 'name', k,
        hearth.clamped(r -> 'times' ->> k, bound) COLLATE "C" DESC),
    lives AS (
      SELECT r ->> 'type' AS t, r ->> 'name' AS n,
        max(hearth.clamped(r ->> 'created', bound) COLLATE "C") AS created,
        max(hearth.clamped(r ->> 'deleted', bound) COLLATE "C") AS deleted, max(seq) AS seq
      FROM pushed GROUP BY 1, 2)
    SELECT l.t, l.n,
      coalesce(jsonb_object_agg(c.k, coalesce(c.value, 'null')) FILTER (WHERE c.k IS NOT NULL),
        '{}'),
      coalesce(jsonb_object_agg(c.k, c.time) FILTER (WHERE c.k IS NOT NULL), '{}'),
      l.created, l.deleted, l.seq
    FROM lives l LEFT JOIN columns c ON c.t = l.t AND c.n = l.n
    GROUP BY l.t, l.n, l.created, l.deleted, l.seq $$;
  """
