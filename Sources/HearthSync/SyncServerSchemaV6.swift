/// Version 6 of the server's schema, over version 5: a compaction writes the zone's merged
/// records as chunks of at most `chunkRecords` records (5,000 unless the server says), not
/// as one. A pull's page ends after a whole chunk, so a hub pulling a compacted zone from
/// the start still receives one page while it applies the last; and a `jsonb` value holds
/// at most 255 MB, which one chunk of a zone of a million records would pass.
///
/// The parts take the numbers of the last chunks they replace, in order: every hub has
/// pulled past all of those, so no cursor falls between them.
let serverSchemaV6 = """
  INSERT INTO hearth.meta VALUES ('chunkRecords', '5000') ON CONFLICT DO NOTHING;

  -- As version 5's, but the merged records are written as parts of at most chunkRecords
  -- (more when the zone's chunks are too few to number them), and the zone is compacted
  -- again once the chunks after its compacted ones hold a quarter as many records as those
  -- (as many as the first chunk, before any compaction).
  CREATE OR REPLACE FUNCTION hearth.collect(p_zone text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_horizon bigint; v_bound bigint; v_chunks int; v_gone bigint; v_gone_last bigint;
    v_base bigint; v_since bigint; v_seqs bigint[]; v_kept bigint; v_part bigint;
    v_parts int;
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
    SELECT max(bound), count(*), sum(size),
      coalesce(sum(size) FILTER (WHERE origin = 'collect'), (array_agg(size ORDER BY seq))[1]),
      array_agg(seq ORDER BY seq)
    INTO v_bound, v_chunks, v_since, v_base, v_seqs FROM hearth.chunks
    WHERE zone = p_zone AND seq < v_horizon;
    IF v_chunks < 2 OR (v_since - v_base) * 4 < v_base THEN RETURN 0; END IF;
    CREATE TEMPORARY TABLE merged ON COMMIT DROP AS
    SELECT m.*, m.deleted IS NOT NULL
      AND (m.created IS NULL OR m.deleted COLLATE "C" >= m.created COLLATE "C") AS gone
    FROM hearth.merged(p_zone, v_horizon) AS m;
    SELECT count(*) FILTER (WHERE gone), max(seq) FILTER (WHERE gone),
      count(*) FILTER (WHERE NOT gone)
    INTO v_gone, v_gone_last, v_kept FROM merged;
    v_part := greatest(
      (SELECT value::bigint FROM hearth.meta WHERE key = 'chunkRecords'),
      ceil(v_kept::numeric / v_chunks)::bigint, 1);
    v_parts := ceil(v_kept::numeric / v_part)::int;
    DELETE FROM hearth.chunks WHERE zone = p_zone AND seq < v_horizon;
    INSERT INTO hearth.chunks
    SELECT p_zone, v_seqs[v_chunks - v_parts + 1 + part], 'collect', v_bound, count(*),
      jsonb_agg(hearth.record_json(record_type, record_name, fields, times, created, deleted)
        ORDER BY record_type, record_name)
    FROM (SELECT *, (row_number() OVER (ORDER BY record_type, record_name) - 1) / v_part AS part
      FROM merged WHERE NOT gone) AS kept
    GROUP BY part;
    DROP TABLE merged;
    IF v_gone > 0 THEN
      UPDATE hearth.zones SET collected_to = greatest(collected_to, v_gone_last)
      WHERE zone = p_zone;
    END IF;
    RETURN v_gone;
  END $$;

  UPDATE hearth.meta SET value = '6' WHERE key = 'schema';
  """
