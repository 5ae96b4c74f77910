/// Version 3 of the server's schema: deleted rows' records collected, over version 2.
///
/// A deleted row's record (a tombstone) is kept until every hub of its zone has pulled past
/// it; then `hearth.collect` deletes it. Every hub means every hub seen within
/// `tombstoneHubDays` (hearth.meta, default 30): a hub away longer does not hold the zone's
/// tombstones for ever. Such a hub, when it comes back, may have missed deletes that are no
/// longer on the server: `hearth.pull` refuses its old cursor (SQLSTATE `HR001`) and the hub
/// pulls the zone again from the start, dropping its rows the server no longer has
/// (`hearth.zones.collected_to`: the greatest sequence number collected).
let serverSchemaV3 = """
  ALTER TABLE hearth.zones ADD COLUMN collected_to bigint NOT NULL DEFAULT 0;
  INSERT INTO hearth.meta VALUES ('tombstoneHubDays', '30') ON CONFLICT DO NOTHING;
  UPDATE hearth.meta SET value = '3' WHERE key = 'schema';
  CREATE INDEX records_deleted ON hearth.records (zone, seq) WHERE deleted IS NOT NULL;

  -- Deletes the records of zone p_zone's deleted rows that every hub of the zone seen within
  -- tombstoneHubDays has pulled past (a writer of the zone may ask). Returns how many.
  CREATE FUNCTION hearth.collect(p_zone text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_horizon bigint; v_count bigint; v_last bigint;
  BEGIN
    -- A person's private zone before its first push: nothing to collect.
    IF NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone) THEN RETURN 0; END IF;
    IF NOT hearth.can_write(p_zone) THEN
      PERFORM hearth.refuse(format('%s may not write to zone %s', session_user, p_zone));
    END IF;
    SELECT min(coalesce(pulled, 0)) INTO v_horizon FROM hearth.cursors
    WHERE zone = p_zone AND greatest(pulled_at, pushed_at) > now()
      - make_interval(days => (SELECT value::int FROM hearth.meta WHERE key = 'tombstoneHubDays'));
    IF coalesce(v_horizon, 0) = 0 THEN RETURN 0; END IF;
    WITH gone AS (
      DELETE FROM hearth.records WHERE zone = p_zone AND moved_to IS NULL
        AND deleted IS NOT NULL AND (created IS NULL OR deleted >= created) AND seq < v_horizon
      RETURNING seq)
    SELECT count(*), max(seq) INTO v_count, v_last FROM gone;
    IF v_count > 0 THEN
      UPDATE hearth.zones SET collected_to = greatest(collected_to, v_last) WHERE zone = p_zone;
    END IF;
    RETURN v_count;
  END $$;

  -- As version 2's, and: `cursors.pulled` says that the hub has every record of the zone
  -- numbered below it (after a page shorter than asked for, everything committed when the
  -- pull began; from the start, everything collected too); a hub whose `pulled` is at or
  -- before the zone's collected tombstones is refused (HR001: pull the zone again from the
  -- start); `pulled_at` is kept fresh (within the hour) even while nothing changes.
  CREATE OR REPLACE FUNCTION hearth.pull(p_zone text, p_hub text, p_seq bigint, p_type text,
    p_name text, p_limit int) RETURNS json
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_page json; v_count int; v_top bigint; v_pulled bigint; v_had bigint;
  BEGIN
    IF NOT hearth.can_read(p_zone) THEN
      IF p_zone = session_user || '/' || substr(p_zone, length(session_user) + 2)
        AND strpos(substr(p_zone, length(session_user) + 2), '/') = 0
        AND NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone) THEN
        RETURN '[]'::json;
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
    -- Read before the page: every batch numbered up to it committed before the page's
    -- snapshot was taken.
    SELECT seq INTO v_top FROM hearth.clock WHERE id = 1;
    SELECT coalesce(json_agg(CASE WHEN moved_to IS NULL
      THEN json_build_object('type', record_type, 'name', record_name, 'fields', fields,
        'times', times, 'created', created, 'deleted', deleted, 'seq', seq)
      ELSE json_build_object('type', record_type, 'name', record_name, 'seq', seq,
        'fields', '{}'::json, 'times', '{}'::json, 'movedTo', moved_to) END
      ORDER BY seq, record_type, record_name), '[]'), count(*)
    INTO v_page, v_count
    FROM (SELECT * FROM hearth.records
      WHERE zone = p_zone AND (seq, record_type, record_name) > (p_seq, p_type COLLATE "C", p_name COLLATE "C")
      ORDER BY seq, record_type, record_name LIMIT p_limit) AS page;
    -- From the start, a hub needs none of what was collected: it has all of that.
    v_pulled := greatest(CASE WHEN v_count < p_limit THEN v_top + 1 ELSE p_seq END,
      CASE WHEN p_seq = 0
        THEN (SELECT collected_to + 1 FROM hearth.zones WHERE zone = p_zone) ELSE 0 END);
    INSERT INTO hearth.cursors AS c (hub, zone, role, pulled, pulled_at)
    VALUES (p_hub, p_zone, session_user, v_pulled, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pulled = greatest(c.pulled, v_pulled), pulled_at = now()
      WHERE c.pulled IS DISTINCT FROM greatest(c.pulled, v_pulled)
        OR c.pulled_at < now() - interval '1 hour';
    RETURN v_page;
  END $$;

  -- Files as bytes, not hex text: stored as they come (images are compressed already).
  ALTER TABLE hearth.assets ALTER COLUMN bytes SET STORAGE EXTERNAL;
  DROP FUNCTION hearth.put_asset(text, text, text);
  DROP FUNCTION hearth.get_asset(text);
  -- Stores file h (its bytes, checked against h) for zone z: once, however often sent.
  CREATE FUNCTION hearth.put_asset(z text, h text, p_bytes bytea) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  BEGIN
    PERFORM hearth.writable(z);
    IF encode(sha256(p_bytes), 'hex') <> h THEN
      PERFORM hearth.refuse(format('the bytes sent are not file %s', h));
    END IF;
    INSERT INTO hearth.assets (sha256, bytes, size) VALUES (h, p_bytes, length(p_bytes))
    ON CONFLICT DO NOTHING;
    INSERT INTO hearth.asset_zones VALUES (h, z) ON CONFLICT DO NOTHING;
  END $$;
  -- File h's bytes, for a person who may read it; NULL otherwise (none, or not theirs).
  CREATE FUNCTION hearth.get_asset(h text) RETURNS bytea LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT bytes FROM hearth.assets WHERE sha256 = h AND hearth.can_read_asset(h) $$;

  -- Every record name of zone p_zone, live or not (for a hub pulling it again from the start).
  CREATE FUNCTION hearth.names(p_zone text) RETURNS TABLE (record_type text, record_name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT record_type, record_name FROM hearth.records
    WHERE zone = p_zone AND hearth.can_read(p_zone) $$;
  """
