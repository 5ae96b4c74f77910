/// Version 4 of the server's schema: bulk at the server's speed, over version 3.
///
/// - A record that is exactly what its hub pushed (`as_pushed`: every column, its insert
///   and its delete won by that push) is not pulled back by that hub while the hub says it
///   has that push (its last acknowledged push is at or past it: a hub restored from a
///   backup, or whose local data was dropped, gets it back); a page says where it ended, so
///   the records left out move the cursor too.
/// - Times are clamped only when one is past the bound (one JSON path test per record);
///   the stubs a push may merge through are found in an index of the stubs alone.
let serverSchemaV4 = """
  ALTER TABLE hearth.records ADD COLUMN as_pushed boolean NOT NULL DEFAULT false;
  CREATE INDEX records_moved ON hearth.records (zone, record_type, record_name)
    WHERE moved_to IS NOT NULL;
  UPDATE hearth.meta SET value = '4' WHERE key = 'schema';

  -- Whether a time of `times` is past `bound` (wall milliseconds): their text compares as
  -- they do, and JSON paths compare UTF-8 strings byte by byte.
  CREATE FUNCTION hearth.any_past(times jsonb, bound bigint) RETURNS boolean
  LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_path_exists(times, '$.* ? (@ >= $b)',
      jsonb_build_object('b', lpad((bound + 1)::text, 15, '0'))) $$;

  -- As version 2's, and: a record's times are clamped only when one is past the bound, and
  -- `as_pushed` says whether the merged record is exactly the one pushed.
  CREATE OR REPLACE FUNCTION hearth.push(p_zone text, p_hub text, p_records jsonb)
  RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE
    v_seq bigint;
    v_bound bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      + (SELECT value::bigint FROM hearth.meta WHERE key = 'maximumDrift');
  BEGIN
    PERFORM hearth.writable(p_zone);
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    INSERT INTO hearth.records AS r (zone, record_type, record_name, fields, times, created,
      deleted, seq, origin, as_pushed)
    SELECT coalesce(stub.moved_to, p_zone), x.type, x.name, x.fields, x.clamped, x.created,
      x.deleted, v_seq, p_hub, x.clamped = x.times AND x.created IS NOT DISTINCT FROM x.sent_created
        AND x.deleted IS NOT DISTINCT FROM x.sent_deleted
    FROM (
      SELECT type, name, coalesce(fields, '{}') AS fields, coalesce(times, '{}') AS times,
        CASE WHEN hearth.any_past(coalesce(times, '{}'), v_bound)
          THEN hearth.clamped_times(times, v_bound) ELSE coalesce(times, '{}') END AS clamped,
        hearth.clamped(created, v_bound) AS created, created AS sent_created,
        hearth.clamped(deleted, v_bound) AS deleted, deleted AS sent_deleted
      FROM jsonb_to_recordset(p_records)
        AS x(type text, name text, fields jsonb, times jsonb, created text, deleted text)) AS x
    LEFT JOIN hearth.records stub ON stub.zone = p_zone AND stub.record_type = x.type
      AND stub.record_name = x.name AND stub.moved_to IS NOT NULL
    ON CONFLICT (zone, record_type, record_name) DO UPDATE SET
      fields = hearth.merge_fields(r.fields, r.times, excluded.fields, excluded.times),
      times = hearth.merge_times(r.times, excluded.times),
      created = hearth.later(r.created, excluded.created),
      deleted = hearth.later(r.deleted, excluded.deleted),
      seq = v_seq, origin = p_hub,
      as_pushed = excluded.as_pushed
        AND hearth.merge_times(r.times, excluded.times) = excluded.times
        AND hearth.later(r.created, excluded.created) IS NOT DISTINCT FROM excluded.created
        AND hearth.later(r.deleted, excluded.deleted) IS NOT DISTINCT FROM excluded.deleted;
    INSERT INTO hearth.cursors AS c (hub, zone, role, pushed, pushed_at)
    VALUES (p_hub, p_zone, session_user, v_seq, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pushed = v_seq, pushed_at = now();
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_seq;
  END $$;

  -- As version 3's, but a page is an object: `records`, the page's records less those that
  -- are exactly what hub p_hub pushed in a push numbered at most p_pushed (the last push
  -- it has acknowledged); `last`, the cursor past the page (seq, type, name; null for an
  -- empty page); `complete`, whether the page reached the end.
  DROP FUNCTION hearth.pull(text, text, bigint, text, text, int);
  CREATE FUNCTION hearth.pull(p_zone text, p_hub text, p_seq bigint, p_type text,
    p_name text, p_limit int, p_pushed bigint) RETURNS json
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE
    v_records json; v_last json; v_count int; v_top bigint; v_pulled bigint; v_had bigint;
  BEGIN
    IF NOT hearth.can_read(p_zone) THEN
      IF p_zone = session_user || '/' || substr(p_zone, length(session_user) + 2)
        AND strpos(substr(p_zone, length(session_user) + 2), '/') = 0
        AND NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone) THEN
        RETURN '{"records": [], "last": null, "complete": true}'::json;
      END IF;
      PERFORM hearth.refuse(format('%s may not read zone %s', session_user, p_zone));
    END IF;
    IF p_seq > 0 THEN
      SELECT pulled INTO v_had FROM hearth.cursors WHERE hub = p_hub AND zone = p_zone;
      IF coalesce(v_had, 0) <= (SELECT collected_to FROM hearth.zones WHERE zone = p_zone)
        AND (SELECT collected_to FROM hearth.zones WHERE zone = p_zone) > 0 THEN
        RAISE EXCEPTION 'hearth: zone % collected deleted records this hub had not pulled',
          p_zone USING ERRCODE = 'HR001';
      END IF;
    END IF;
    SELECT seq INTO v_top FROM hearth.clock WHERE id = 1;
    SELECT coalesce(json_agg(CASE WHEN moved_to IS NULL
      THEN json_build_object('type', record_type, 'name', record_name, 'fields', fields,
        'times', times, 'created', created, 'deleted', deleted, 'seq', seq)
      ELSE json_build_object('type', record_type, 'name', record_name, 'seq', seq,
        'fields', '{}'::json, 'times', '{}'::json, 'movedTo', moved_to) END
      ORDER BY seq, record_type, record_name)
      FILTER (WHERE NOT (as_pushed AND origin = p_hub AND seq <= p_pushed
        AND moved_to IS NULL)), '[]'),
      count(*),
      (array_agg(json_build_object('seq', seq, 'type', record_type, 'name', record_name)
        ORDER BY seq DESC, record_type DESC, record_name DESC))[1]
    INTO v_records, v_count, v_last
    FROM (SELECT * FROM hearth.records
      WHERE zone = p_zone AND (seq, record_type, record_name) > (p_seq, p_type COLLATE "C", p_name COLLATE "C")
      ORDER BY seq, record_type, record_name LIMIT p_limit) AS page;
    v_pulled := greatest(CASE WHEN v_count < p_limit THEN v_top + 1 ELSE p_seq END,
      CASE WHEN p_seq = 0
        THEN (SELECT collected_to + 1 FROM hearth.zones WHERE zone = p_zone) ELSE 0 END);
    INSERT INTO hearth.cursors AS c (hub, zone, role, pulled, pulled_at)
    VALUES (p_hub, p_zone, session_user, v_pulled, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pulled = greatest(c.pulled, v_pulled), pulled_at = now()
      WHERE c.pulled IS DISTINCT FROM greatest(c.pulled, v_pulled)
        OR c.pulled_at < now() - interval '1 hour';
    RETURN json_build_object('records', v_records, 'last', v_last,
      'complete', v_count < p_limit);
  END $$;
  """
