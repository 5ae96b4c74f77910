/// Version 5 of the server's schema: records kept as the log of their pushes, over version 4.
///
/// - A push is one row of `hearth.chunks`: its records as the hub sent them (a `jsonb`
///   array, which PostgreSQL compresses), numbered from the clock row, with the bound its
///   times are read under (the server's clock plus `maximumDrift` when it came: a time past
///   it is read as the bound, by every reader, the pushing hub too). Nothing is merged when
///   it comes: each hub merges what it pulls, per column the later time (`SyncRow.merge`).
/// - A shared record moves to its share: its merged record is appended there, and
///   `hearth.moved` keeps where it went. A push of it to the old zone lands in the share; the
///   old zone gets a stub (`movedTo`) its other hubs follow.
/// - `hearth.merged` merges a zone's chunks as a hub would: share, unshare, collect, `names`,
///   verify and the `hearth.records` view read it.
/// - `hearth.collect` compacts: the chunks every hub has pulled past become one chunk of
///   their merged records, less the deleted ones (tombstones).
///
/// Existing records become one chunk per zone; `hearth.records` becomes a view of the merged
/// records, read as before.
let serverSchemaV5 = """
  CREATE TABLE hearth.chunks (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    seq bigint NOT NULL, origin text NOT NULL, bound bigint NOT NULL, size int NOT NULL,
    records jsonb NOT NULL,
    PRIMARY KEY (zone, seq));
  CREATE TABLE hearth.moved (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    record_type text COLLATE "C" NOT NULL, record_name text COLLATE "C" NOT NULL,
    moved_to text COLLATE "C" NOT NULL, seq bigint NOT NULL,
    PRIMARY KEY (zone, record_type, record_name));
  CREATE INDEX moved_to ON hearth.moved (moved_to);
  ALTER TABLE hearth.chunks ENABLE ROW LEVEL SECURITY;
  ALTER TABLE hearth.chunks FORCE ROW LEVEL SECURITY;
  CREATE POLICY readable ON hearth.chunks FOR SELECT USING (hearth.can_read(zone));
  ALTER TABLE hearth.moved ENABLE ROW LEVEL SECURITY;
  ALTER TABLE hearth.moved FORCE ROW LEVEL SECURITY;
  CREATE POLICY readable ON hearth.moved FOR SELECT USING (hearth.can_read(zone));
  GRANT SELECT ON hearth.chunks, hearth.moved TO PUBLIC;

  -- A merged record as a chunk holds it.
  CREATE FUNCTION hearth.record_json(t text, n text, f jsonb, ts jsonb, c text, d text)
  RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_object('type', t, 'name', n, 'fields', f, 'times', ts)
      || jsonb_strip_nulls(jsonb_build_object('created', c, 'deleted', d)) $$;
  -- The bound of a chunk of merged records, whose times were clamped when they came: the
  -- greatest time there is.
  CREATE FUNCTION hearth.unbounded() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT 999999999999999::bigint $$;

  -- The records table becomes chunks: one a zone, its records as merged and its stubs,
  -- which hearth.moved keeps.
  INSERT INTO hearth.moved (zone, record_type, record_name, moved_to, seq)
  SELECT zone, record_type, record_name, moved_to, seq FROM hearth.records
  WHERE moved_to IS NOT NULL;
  INSERT INTO hearth.chunks (zone, seq, origin, bound, size, records)
  SELECT zone, max(seq), 'upgrade', hearth.unbounded(), count(*),
    jsonb_agg(CASE WHEN moved_to IS NULL
      THEN hearth.record_json(record_type, record_name, fields, times, created, deleted)
      ELSE jsonb_build_object('type', record_type, 'name', record_name, 'movedTo', moved_to)
      END ORDER BY record_type, record_name)
  FROM hearth.records GROUP BY zone;
  DROP FUNCTION hearth.push(text, text, jsonb);
  DROP FUNCTION hearth.pull(text, text, bigint, text, text, int, bigint);
  DROP FUNCTION hearth.names(text);
  DROP FUNCTION hearth.merge_fields(jsonb, jsonb, jsonb, jsonb);
  DROP FUNCTION hearth.merge_times(jsonb, jsonb);
  DROP FUNCTION hearth.any_past(jsonb, bigint);
  DROP FUNCTION hearth.clamped_times(jsonb, bigint);
  DROP TABLE hearth.records;
  UPDATE hearth.meta SET value = '5' WHERE key = 'schema';

  -- Zone p_zone's records merged from its chunks (numbered below p_below, when given; of
  -- p_names only, [{type, name}], when given), as a hub merges them: per column the value of the later
  -- time (a time past its chunk's bound read as the bound), the later insert and delete;
  -- `seq`, the last chunk that named the record. Records moved to a share are not the
  -- zone's; stubs are not records.
  CREATE FUNCTION hearth.merged(p_zone text, p_below bigint DEFAULT NULL,
    p_names jsonb DEFAULT NULL)
  RETURNS TABLE (record_type text, record_name text, fields jsonb, times jsonb, created text,
    deleted text, seq bigint)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    WITH pushed AS (
      SELECT c.seq, c.bound, x.r, x.r ->> 'type' AS t, x.r ->> 'name' AS n
      FROM hearth.chunks c, jsonb_array_elements(c.records) x(r)
      WHERE c.zone = p_zone AND (p_below IS NULL OR c.seq < p_below)
        AND hearth.can_read(p_zone) AND NOT x.r ? 'movedTo'),
    wanted AS (
      SELECT p.* FROM pushed p
      WHERE (p_names IS NULL OR EXISTS (SELECT 1 FROM jsonb_to_recordset(p_names)
          AS w(type text, name text) WHERE w.type = p.t AND w.name = p.n))
        AND NOT EXISTS (SELECT 1 FROM hearth.moved m
          WHERE m.zone = p_zone AND m.record_type = p.t AND m.record_name = p.n)),
    columns AS (
      SELECT DISTINCT ON (t, n, k) t, n, k,
        hearth.clamped(r -> 'times' ->> k, bound) AS time, r -> 'fields' -> k AS value
      FROM wanted, jsonb_object_keys(coalesce(r -> 'times', '{}')) k
      ORDER BY t, n, k, hearth.clamped(r -> 'times' ->> k, bound) COLLATE "C" DESC),
    lives AS (
      SELECT t, n, max(hearth.clamped(r ->> 'created', bound) COLLATE "C") AS created,
        max(hearth.clamped(r ->> 'deleted', bound) COLLATE "C") AS deleted, max(seq) AS seq
      FROM wanted GROUP BY t, n)
    SELECT l.t, l.n,
      coalesce(jsonb_object_agg(c.k, coalesce(c.value, 'null')) FILTER (WHERE c.k IS NOT NULL),
        '{}'),
      coalesce(jsonb_object_agg(c.k, c.time) FILTER (WHERE c.k IS NOT NULL), '{}'),
      l.created, l.deleted, l.seq
    FROM lives l LEFT JOIN columns c ON c.t = l.t AND c.n = l.n
    GROUP BY l.t, l.n, l.created, l.deleted, l.seq $$;

  -- What people read of the records (as before version 5): each zone they may read,
  -- merged, and the stubs of records moved to a share. The view reads as its owner, so it
  -- checks who reads itself.
  CREATE VIEW hearth.records AS
    SELECT z.zone, r.record_type, r.record_name, r.fields, r.times, r.created, r.deleted,
      r.seq, NULL::text COLLATE "C" AS moved_to
    FROM hearth.zones z CROSS JOIN LATERAL hearth.merged(z.zone) r
    WHERE hearth.can_read(z.zone)
    UNION ALL
    SELECT m.zone, m.record_type, m.record_name, '{}'::jsonb, '{}'::jsonb, NULL, NULL, m.seq,
      m.moved_to
    FROM hearth.moved m WHERE hearth.can_read(m.zone);
  GRANT SELECT ON hearth.records TO PUBLIC;

  -- One push, in one transaction: its records appended as a chunk of zone p_zone (those of
  -- records moved to a share as a chunk of the share), numbered from the clock row (whose
  -- lock orders the pushers, so numbers commit in order), the doorbell rung at commit.
  -- Returns the number and the bound its times are read under.
  CREATE FUNCTION hearth.push(p_zone text, p_hub text, p_records jsonb, OUT seq bigint,
    OUT bound bigint)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  #variable_conflict use_variable
  DECLARE v_target text;
  BEGIN
    PERFORM hearth.writable(p_zone);
    UPDATE hearth.clock c SET seq = c.seq + 1 WHERE id = 1 RETURNING c.seq INTO seq;
    bound := (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      + (SELECT value::bigint FROM hearth.meta WHERE key = 'maximumDrift');
    IF NOT EXISTS (SELECT 1 FROM hearth.moved m WHERE m.zone = p_zone) THEN
      INSERT INTO hearth.chunks
      VALUES (p_zone, seq, p_hub, bound, jsonb_array_length(p_records), p_records);
    ELSE
      FOR v_target IN
        SELECT DISTINCT m.moved_to FROM jsonb_array_elements(p_records) x(r)
        JOIN hearth.moved m ON m.zone = p_zone AND m.record_type = x.r ->> 'type'
          AND m.record_name = x.r ->> 'name'
      LOOP
        PERFORM hearth.writable(v_target);
      END LOOP;
      INSERT INTO hearth.chunks
      SELECT coalesce(m.moved_to, p_zone), push.seq, p_hub, push.bound, count(*),
        jsonb_agg(x.r ORDER BY x.n)
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

  -- The chunks of zone p_zone after chunk p_seq, in order, until they hold p_limit records:
  -- their number, bound, number of records and records (JSON text; NULL for hub p_hub's
  -- own pushes numbered at most p_pushed, its last acknowledged push: it has those);
  -- `complete`, whether the page reached the end (it holds fewer records than p_limit). A hub whose cursor is at or before
  -- tombstones the zone collected is refused (HR001: pull the zone again from the start).
  -- `cursors.pulled` says the hub has every chunk numbered below it.
  CREATE FUNCTION hearth.pull(p_zone text, p_hub text, p_seq bigint, p_limit int,
    p_pushed bigint)
  RETURNS TABLE (seq bigint, bound bigint, size int, records text, complete boolean)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE
    v_top bigint; v_had bigint; v_collected bigint; v_last bigint; v_count bigint;
    v_pulled bigint;
  BEGIN
    IF NOT hearth.can_read(p_zone) THEN
      -- The person's own private zone before its first push: nothing in it yet.
      IF p_zone = session_user || '/' || substr(p_zone, length(session_user) + 2)
        AND strpos(substr(p_zone, length(session_user) + 2), '/') = 0
        AND NOT EXISTS (SELECT 1 FROM hearth.zones z WHERE z.zone = p_zone) THEN
        RETURN;
      END IF;
      PERFORM hearth.refuse(format('%s may not read zone %s', session_user, p_zone));
    END IF;
    SELECT z.collected_to INTO v_collected FROM hearth.zones z WHERE z.zone = p_zone;
    IF p_seq > 0 AND v_collected > 0 THEN
      SELECT c.pulled INTO v_had FROM hearth.cursors c WHERE c.hub = p_hub AND c.zone = p_zone;
      IF coalesce(v_had, 0) <= v_collected THEN
        RAISE EXCEPTION 'hearth: zone % collected deleted records this hub had not pulled',
          p_zone USING ERRCODE = 'HR001';
      END IF;
    END IF;
    -- Read before the page: every chunk numbered up to it committed before the page's
    -- snapshot was taken.
    SELECT c.seq INTO v_top FROM hearth.clock c WHERE id = 1;
    SELECT max(p.seq), coalesce(sum(p.size), 0) INTO v_last, v_count FROM (
      SELECT c.seq, c.size, sum(c.size) OVER (ORDER BY c.seq) AS total
      FROM hearth.chunks c WHERE c.zone = p_zone AND c.seq > p_seq) AS p
    WHERE p.total - p.size < p_limit;
    v_pulled := greatest(CASE WHEN v_count < p_limit THEN v_top + 1 ELSE p_seq END,
      CASE WHEN p_seq = 0 THEN v_collected + 1 ELSE 0 END);
    -- The cursor is a hint for collect: one lost to a crash is an older one, which holds
    -- back more, so it is not waited for on disk (collect's own commit, which is, flushes
    -- the log up to it first).
    PERFORM set_config('synchronous_commit', 'off', true);
    INSERT INTO hearth.cursors AS c (hub, zone, role, pulled, pulled_at)
    VALUES (p_hub, p_zone, session_user, v_pulled, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pulled = greatest(c.pulled, v_pulled), pulled_at = now()
      WHERE c.pulled IS DISTINCT FROM greatest(c.pulled, v_pulled)
        OR c.pulled_at < now() - interval '1 hour';
    RETURN QUERY
    SELECT c.seq, c.bound, c.size,
      CASE WHEN c.origin = p_hub AND c.seq <= p_pushed THEN NULL ELSE c.records::text END,
      v_count < p_limit
    FROM hearth.chunks c WHERE c.zone = p_zone AND c.seq > p_seq AND c.seq <= v_last
    ORDER BY c.seq;
  END $$;

  -- Every record name of zone p_zone, live or not (for a hub pulling it again from the start).
  CREATE FUNCTION hearth.names(p_zone text) RETURNS TABLE (record_type text, record_name text)
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT record_type, record_name FROM hearth.merged(p_zone) $$;

  -- Compacts zone p_zone (a writer of it may ask): its chunks that every hub of the zone seen
  -- within tombstoneHubDays has pulled past become one, of their records merged, less
  -- those of deleted rows (the tombstones), once the chunks after the first of them hold
  -- a quarter as many records as it does (so a large zone is not merged again for every
  -- few edits). Returns how many tombstones went.
  CREATE OR REPLACE FUNCTION hearth.collect(p_zone text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_horizon bigint; v_last bigint; v_bound bigint; v_chunks bigint; v_gone bigint;
    v_gone_last bigint; v_first int; v_since bigint;
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone) THEN RETURN 0; END IF;
    IF NOT hearth.can_write(p_zone) THEN
      PERFORM hearth.refuse(format('%s may not write to zone %s', session_user, p_zone));
    END IF;
    PERFORM pg_advisory_xact_lock(7419, hashtext(p_zone));
    SELECT min(coalesce(pulled, 0)) INTO v_horizon FROM hearth.cursors
    WHERE zone = p_zone AND greatest(pulled_at, pushed_at) > now()
      - make_interval(days => (SELECT value::int FROM hearth.meta WHERE key = 'tombstoneHubDays'));
    IF coalesce(v_horizon, 0) = 0 THEN RETURN 0; END IF;
    SELECT max(seq), max(bound), count(*), (array_agg(size ORDER BY seq))[1], sum(size)
    INTO v_last, v_bound, v_chunks, v_first, v_since FROM hearth.chunks
    WHERE zone = p_zone AND seq < v_horizon;
    IF v_chunks < 2 OR (v_since - v_first) * 4 < v_first THEN RETURN 0; END IF;
    CREATE TEMPORARY TABLE merged ON COMMIT DROP AS
    SELECT * FROM hearth.merged(p_zone, v_horizon);
    SELECT count(*), max(seq) INTO v_gone, v_gone_last FROM merged
    WHERE deleted IS NOT NULL AND (created IS NULL OR deleted COLLATE "C" >= created COLLATE "C");
    DELETE FROM hearth.chunks WHERE zone = p_zone AND seq < v_horizon;
    INSERT INTO hearth.chunks
    SELECT p_zone, v_last, 'collect', v_bound, count(*),
      jsonb_agg(hearth.record_json(record_type, record_name, fields, times, created, deleted)
        ORDER BY record_type, record_name)
    FROM merged
    WHERE deleted IS NULL OR (created IS NOT NULL AND created COLLATE "C" > deleted COLLATE "C")
    HAVING count(*) > 0;
    DROP TABLE merged;
    IF v_gone > 0 THEN
      UPDATE hearth.zones SET collected_to = greatest(collected_to, v_gone_last)
      WHERE zone = p_zone;
    END IF;
    RETURN v_gone;
  END $$;

  -- As version 2's, over chunks: the records p_names not moved yet, as the home zone has
  -- them merged, are appended to the share, and stubs to the home zone.
  CREATE OR REPLACE FUNCTION hearth.share(p_home text, p_type text, p_name text, p_names jsonb,
    p_permission text, p_secret text, p_title text, p_expires_in interval) RETURNS text
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_zone text; v_seq bigint;
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM hearth.zones
      WHERE zone = p_home AND owner = session_user AND root_type IS NULL) THEN
      PERFORM hearth.refuse(format('%s is not a private zone of yours', p_home));
    END IF;
    SELECT zone INTO v_zone FROM hearth.zones
    WHERE home = p_home AND root_type = p_type AND root_name = p_name;
    IF v_zone IS NULL THEN
      v_zone := session_user || '/share-' || gen_random_uuid();
      INSERT INTO hearth.zones (zone, owner, root_type, root_name, home, title, permission)
      VALUES (v_zone, session_user, p_type, p_name, p_home, p_title, p_permission);
    ELSE
      UPDATE hearth.zones SET permission = p_permission, title = coalesce(p_title, title)
      WHERE zone = v_zone;
      UPDATE hearth.members SET permission = p_permission WHERE zone = v_zone;
    END IF;
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    CREATE TEMPORARY TABLE moving ON COMMIT DROP AS
    SELECT * FROM hearth.merged(p_home, p_names => p_names);
    INSERT INTO hearth.chunks
    SELECT v_zone, v_seq, 'share', hearth.unbounded(), count(*),
      jsonb_agg(hearth.record_json(record_type, record_name, fields, times, created, deleted)
        ORDER BY record_type, record_name)
    FROM moving HAVING count(*) > 0;
    INSERT INTO hearth.chunks
    SELECT p_home, v_seq, 'share', hearth.unbounded(), count(*),
      jsonb_agg(jsonb_build_object('type', record_type, 'name', record_name,
        'movedTo', v_zone) ORDER BY record_type, record_name)
    FROM moving HAVING count(*) > 0;
    INSERT INTO hearth.moved (zone, record_type, record_name, moved_to, seq)
    SELECT p_home, record_type, record_name, v_zone, v_seq FROM moving;
    DROP TABLE moving;
    IF p_secret IS NOT NULL THEN
      INSERT INTO hearth.invitations (secret_hash, zone, permission, expires)
      VALUES (sha256(decode(p_secret, 'hex')), v_zone, p_permission, now() + p_expires_in);
    END IF;
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_zone;
  END $$;

  -- As version 2's, over chunks: the share's records, merged, are appended to the home zone
  -- (those members made too); the stubs go.
  CREATE OR REPLACE FUNCTION hearth.unshare(p_zone text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_home text; v_seq bigint;
  BEGIN
    SELECT home INTO v_home FROM hearth.zones
    WHERE zone = p_zone AND owner = session_user AND root_type IS NOT NULL FOR UPDATE;
    IF v_home IS NULL THEN
      PERFORM hearth.refuse(format('%s is not a share of yours', p_zone));
    END IF;
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    DELETE FROM hearth.moved WHERE moved_to = p_zone;
    INSERT INTO hearth.chunks
    SELECT v_home, v_seq, 'unshare', hearth.unbounded(), count(*),
      jsonb_agg(hearth.record_json(record_type, record_name, fields, times, created, deleted)
        ORDER BY record_type, record_name)
    FROM hearth.merged(p_zone) HAVING count(*) > 0;
    INSERT INTO hearth.asset_zones (sha256, zone)
    SELECT sha256, v_home FROM hearth.asset_zones WHERE zone = p_zone ON CONFLICT DO NOTHING;
    DELETE FROM hearth.zones WHERE zone = p_zone;
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_seq;
  END $$;
  """
