/// Version 2 of the server's schema: people and sharing, over version 1.
///
/// - Each person is a PostgreSQL login role; who connects is `session_user` (inside the
///   SECURITY DEFINER functions too, where `current_user` is the schema's owner).
/// - A zone is named `role/name`: a person's private zone (`alice/default`, made by her
///   first push), or a share (`alice/share-<uuid>`: one shared root record and its
///   single-parent descendants, made by `hearth.share`). Version 1's zones are renamed
///   `owner/zone`.
/// - `hearth.members`: who else may read a share, and whether they may write it
///   (`read`, `readWrite`); `hearth.invitations`: the share's invitations, by the SHA-256
///   of their secret (the secret itself is never stored), each accepted once, before it
///   expires.
/// - A record shared moves from its owner's private zone to the share, leaving a stub that
///   says where it went (`moved_to`), so the owner's other hubs follow it; a push of the stub
///   merges into the share. Stopping a share (`hearth.unshare`) moves its records back home.
/// - Row-level security, forced (the owner of the tables is not exempt): a person reads and
///   writes only the records of zones they own or are a member of. People may SELECT
///   `hearth.records` (under that policy) and run the functions, nothing else; the
///   functions check membership themselves as well.
let serverSchemaV2 = """
  ALTER TABLE hearth.records DROP CONSTRAINT records_zone_fkey;
  ALTER TABLE hearth.records ADD CONSTRAINT records_zone_fkey FOREIGN KEY (zone)
    REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE;
  CREATE TABLE hearth.cursors (
    hub text NOT NULL, zone text COLLATE "C" NOT NULL, role name NOT NULL DEFAULT session_user,
    pushed bigint, pulled bigint, pushed_at timestamptz, pulled_at timestamptz,
    PRIMARY KEY (hub, zone));
  INSERT INTO hearth.cursors (hub, zone, role, pushed, pulled, pushed_at, pulled_at)
    SELECT h.hub, coalesce(z.owner, h.role) || '/' || coalesce(h.zone, 'default'), h.role,
      h.pushed, h.pulled, h.pushed_at, h.pulled_at
    FROM hearth.hubs h LEFT JOIN hearth.zones z ON z.zone = h.zone;
  DROP TABLE hearth.hubs;
  UPDATE hearth.zones SET zone = owner || '/' || zone;
  ALTER TABLE hearth.zones ALTER COLUMN owner SET DEFAULT session_user,
    ADD COLUMN root_type text COLLATE "C", ADD COLUMN root_name text COLLATE "C",
    ADD COLUMN home text COLLATE "C", ADD COLUMN title text,
    ADD COLUMN permission text CHECK (permission IN ('read', 'readWrite'));
  CREATE UNIQUE INDEX zones_by_root ON hearth.zones (home, root_type, root_name)
    WHERE root_type IS NOT NULL;
  ALTER TABLE hearth.records ADD COLUMN moved_to text COLLATE "C";
  CREATE TABLE hearth.members (
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    role name NOT NULL,
    permission text NOT NULL CHECK (permission IN ('read', 'readWrite')),
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (zone, role));
  CREATE TABLE hearth.invitations (
    secret_hash bytea PRIMARY KEY,
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    permission text NOT NULL CHECK (permission IN ('read', 'readWrite')),
    expires timestamptz NOT NULL, accepted_by name, accepted_at timestamptz);
  CREATE TABLE hearth.assets (
    sha256 text COLLATE "C" PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    bytes bytea NOT NULL, size bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE hearth.asset_zones (
    sha256 text COLLATE "C" NOT NULL REFERENCES hearth.assets ON DELETE CASCADE,
    zone text COLLATE "C" NOT NULL REFERENCES hearth.zones ON DELETE CASCADE ON UPDATE CASCADE,
    PRIMARY KEY (sha256, zone));
  UPDATE hearth.meta SET value = '2' WHERE key = 'schema';

  -- Whether the person connected may read (owns, or is a member of) zone z; may write it.
  CREATE FUNCTION hearth.can_read(z text) RETURNS boolean LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = z AND owner = session_user)
      OR EXISTS (SELECT 1 FROM hearth.members WHERE zone = z AND role = session_user) $$;
  CREATE FUNCTION hearth.can_write(z text) RETURNS boolean LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = z AND owner = session_user)
      OR EXISTS (SELECT 1 FROM hearth.members
        WHERE zone = z AND role = session_user AND permission = 'readWrite') $$;

  ALTER TABLE hearth.records ENABLE ROW LEVEL SECURITY;
  ALTER TABLE hearth.records FORCE ROW LEVEL SECURITY;
  CREATE POLICY readable ON hearth.records FOR SELECT USING (hearth.can_read(zone));
  CREATE POLICY added ON hearth.records FOR INSERT WITH CHECK (hearth.can_write(zone));
  CREATE POLICY changed ON hearth.records FOR UPDATE
    USING (hearth.can_write(zone)) WITH CHECK (hearth.can_write(zone));
  CREATE POLICY removed ON hearth.records FOR DELETE USING (hearth.can_write(zone));
  REVOKE ALL ON ALL TABLES IN SCHEMA hearth FROM PUBLIC;
  GRANT USAGE ON SCHEMA hearth TO PUBLIC;
  GRANT SELECT ON hearth.meta, hearth.records TO PUBLIC;

  -- Refuses what the person connected may not do.
  CREATE FUNCTION hearth.refuse(message text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'hearth: %', message USING ERRCODE = '42501'; END $$;

  -- Whether the person's zone z is there (someone may have deleted it: its records went).
  CREATE FUNCTION hearth.zone_exists(z text) RETURNS boolean LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$ SELECT hearth.can_read(z) $$;

  -- Refuses unless the person may write zone z; makes z when it is their own private zone
  -- (its first push, or its first file).
  CREATE FUNCTION hearth.writable(z text) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_own text := session_user || '/';
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = z) THEN
      IF left(z, length(v_own)) IS DISTINCT FROM v_own
        OR strpos(substr(z, length(v_own) + 1), '/') > 0
        OR substr(z, length(v_own) + 1) LIKE 'share-%' THEN
        PERFORM hearth.refuse(format('there is no zone %s of yours', z));
      END IF;
      INSERT INTO hearth.zones (zone, owner) VALUES (z, session_user) ON CONFLICT DO NOTHING;
    ELSIF NOT hearth.can_write(z) THEN
      PERFORM hearth.refuse(format('%s may not write to zone %s', session_user, z));
    END IF;
  END $$;

  -- One batch into zone p_zone, in one transaction: a private zone of the person's own is
  -- made by its first push; any other zone must be one the person may write. A record that
  -- moved to a share (a stub here) merges there.
  DROP FUNCTION hearth.push(text, text, jsonb);
  CREATE FUNCTION hearth.push(p_zone text, p_hub text, p_records jsonb) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE
    v_seq bigint;
    v_bound bigint := (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      + (SELECT value::bigint FROM hearth.meta WHERE key = 'maximumDrift');
  BEGIN
    PERFORM hearth.writable(p_zone);
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    INSERT INTO hearth.records AS r (zone, record_type, record_name, fields, times, created,
      deleted, seq, origin)
    SELECT coalesce(stub.moved_to, p_zone), x.type, x.name, coalesce(x.fields, '{}'),
      hearth.clamped_times(coalesce(x.times, '{}'), v_bound),
      hearth.clamped(x.created, v_bound), hearth.clamped(x.deleted, v_bound), v_seq, p_hub
    FROM jsonb_to_recordset(p_records)
      AS x(type text, name text, fields jsonb, times jsonb, created text, deleted text)
    LEFT JOIN hearth.records stub ON stub.zone = p_zone AND stub.record_type = x.type
      AND stub.record_name = x.name AND stub.moved_to IS NOT NULL
    ON CONFLICT (zone, record_type, record_name) DO UPDATE SET
      fields = hearth.merge_fields(r.fields, r.times, excluded.fields, excluded.times),
      times = hearth.merge_times(r.times, excluded.times),
      created = hearth.later(r.created, excluded.created),
      deleted = hearth.later(r.deleted, excluded.deleted),
      seq = v_seq, origin = p_hub;
    INSERT INTO hearth.cursors AS c (hub, zone, role, pushed, pushed_at)
    VALUES (p_hub, p_zone, session_user, v_seq, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pushed = v_seq, pushed_at = now();
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_seq;
  END $$;

  -- The records of zone p_zone after the cursor (seq, type, name), in that order.
  DROP FUNCTION hearth.pull(text, text, bigint, text, text, int);
  CREATE FUNCTION hearth.pull(p_zone text, p_hub text, p_seq bigint, p_type text,
    p_name text, p_limit int) RETURNS json
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_page json;
  BEGIN
    IF NOT hearth.can_read(p_zone) THEN
      -- The person's own private zone before its first push: nothing in it yet.
      IF p_zone = session_user || '/' || substr(p_zone, length(session_user) + 2)
        AND strpos(substr(p_zone, length(session_user) + 2), '/') = 0
        AND NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone) THEN
        RETURN '[]'::json;
      END IF;
      PERFORM hearth.refuse(format('%s may not read zone %s', session_user, p_zone));
    END IF;
    INSERT INTO hearth.cursors AS c (hub, zone, role, pulled, pulled_at)
    VALUES (p_hub, p_zone, session_user, p_seq, now())
    ON CONFLICT (hub, zone) DO UPDATE SET pulled = p_seq, pulled_at = now()
      WHERE c.pulled IS DISTINCT FROM p_seq;
    SELECT coalesce(json_agg(CASE WHEN moved_to IS NULL
      THEN json_build_object('type', record_type, 'name', record_name, 'fields', fields,
        'times', times, 'created', created, 'deleted', deleted, 'seq', seq)
      ELSE json_build_object('type', record_type, 'name', record_name, 'seq', seq,
        'fields', '{}'::json, 'times', '{}'::json, 'movedTo', moved_to) END
      ORDER BY seq, record_type, record_name), '[]')
    INTO v_page
    FROM (SELECT * FROM hearth.records
      WHERE zone = p_zone AND (seq, record_type, record_name) > (p_seq, p_type COLLATE "C", p_name COLLATE "C")
      ORDER BY seq, record_type, record_name LIMIT p_limit) AS page;
    RETURN v_page;
  END $$;

  -- Shares root record (p_type, p_name) of the person's private zone p_home, with the
  -- records p_names (the root and its descendants, as [{type, name}]): a zone for it the
  -- first time (the records move there), its permission set (for every member), and an
  -- invitation for secret p_secret (hex; only its SHA-256 is kept), if given. Returns the
  -- share's zone.
  CREATE FUNCTION hearth.share(p_home text, p_type text, p_name text, p_names jsonb,
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
    INSERT INTO hearth.records (zone, record_type, record_name, fields, times, created,
      deleted, seq, origin)
    SELECT v_zone, r.record_type, r.record_name, r.fields, r.times, r.created, r.deleted,
      v_seq, 'share'
    FROM hearth.records r
    JOIN jsonb_to_recordset(p_names) AS n(type text, name text)
      ON r.record_type = n.type AND r.record_name = n.name
    WHERE r.zone = p_home AND r.moved_to IS NULL
    ON CONFLICT DO NOTHING;
    UPDATE hearth.records r SET moved_to = v_zone, fields = '{}', times = '{}',
      created = NULL, deleted = NULL, seq = v_seq, origin = 'share'
    FROM jsonb_to_recordset(p_names) AS n(type text, name text)
    WHERE r.zone = p_home AND r.moved_to IS NULL AND r.record_type = n.type
      AND r.record_name = n.name;
    IF p_secret IS NOT NULL THEN
      INSERT INTO hearth.invitations (secret_hash, zone, permission, expires)
      VALUES (sha256(decode(p_secret, 'hex')), v_zone, p_permission, now() + p_expires_in);
    END IF;
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_zone;
  END $$;

  -- Accepts the invitation of secret p_secret (hex): the person becomes a member of its
  -- share, with the share's permission. Returns the share as `hearth.shares` lists it.
  CREATE FUNCTION hearth.accept(p_secret text) RETURNS json
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v hearth.invitations; v_owner name; v_permission text;
  BEGIN
    SELECT * INTO v FROM hearth.invitations
    WHERE secret_hash = sha256(decode(p_secret, 'hex')) FOR UPDATE;
    IF NOT FOUND OR v.expires < now()
      OR (v.accepted_by IS NOT NULL AND v.accepted_by <> session_user) THEN
      PERFORM hearth.refuse('this invitation is unknown, used or expired');
    END IF;
    SELECT owner, permission INTO v_owner, v_permission FROM hearth.zones WHERE zone = v.zone;
    IF v_owner = session_user THEN
      PERFORM hearth.refuse('this share is yours: an invitation is for someone else');
    END IF;
    INSERT INTO hearth.members (zone, role, permission)
    VALUES (v.zone, session_user, v_permission) ON CONFLICT (zone, role) DO NOTHING;
    UPDATE hearth.invitations SET accepted_by = session_user, accepted_at = now()
    WHERE secret_hash = v.secret_hash;
    RETURN (SELECT s FROM json_array_elements(hearth.shares()) AS s WHERE s ->> 'zone' = v.zone);
  END $$;

  -- Stops sharing zone p_zone (its owner only): its records, those members made too, move
  -- back to the owner's private zone; the members lose it.
  CREATE FUNCTION hearth.unshare(p_zone text) RETURNS bigint
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_home text; v_seq bigint;
  BEGIN
    SELECT home INTO v_home FROM hearth.zones
    WHERE zone = p_zone AND owner = session_user AND root_type IS NOT NULL FOR UPDATE;
    IF v_home IS NULL THEN
      PERFORM hearth.refuse(format('%s is not a share of yours', p_zone));
    END IF;
    UPDATE hearth.clock SET seq = seq + 1 WHERE id = 1 RETURNING seq INTO v_seq;
    INSERT INTO hearth.records AS r (zone, record_type, record_name, fields, times, created,
      deleted, seq, origin)
    SELECT v_home, record_type, record_name, fields, times, created, deleted, v_seq, 'unshare'
    FROM hearth.records WHERE zone = p_zone
    ON CONFLICT (zone, record_type, record_name) DO UPDATE SET fields = excluded.fields,
      times = excluded.times, created = excluded.created, deleted = excluded.deleted,
      moved_to = NULL, seq = v_seq, origin = 'unshare';
    INSERT INTO hearth.asset_zones (sha256, zone)
    SELECT sha256, v_home FROM hearth.asset_zones WHERE zone = p_zone ON CONFLICT DO NOTHING;
    DELETE FROM hearth.zones WHERE zone = p_zone;
    PERFORM pg_notify('hearth', v_seq::text);
    RETURN v_seq;
  END $$;

  -- Takes zone p_zone from member p_role (the owner only): the member's hubs drop it.
  CREATE FUNCTION hearth.revoke(p_zone text, p_role name) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM hearth.zones WHERE zone = p_zone AND owner = session_user) THEN
      PERFORM hearth.refuse(format('%s is not a share of yours', p_zone));
    END IF;
    DELETE FROM hearth.members WHERE zone = p_zone AND role = p_role;
    DELETE FROM hearth.invitations WHERE zone = p_zone AND accepted_by = p_role;
  END $$;

  -- The shares the person owns or is a member of, with their members.
  CREATE FUNCTION hearth.shares() RETURNS json LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT coalesce(json_agg(json_build_object('zone', z.zone, 'owner', z.owner,
      'rootType', z.root_type, 'rootName', z.root_name, 'title', z.title,
      'permission', coalesce(m.permission, z.permission), 'isOwner', z.owner = session_user,
      'members', (SELECT coalesce(json_agg(json_build_object('role', x.role,
        'permission', x.permission) ORDER BY x.role), '[]')
        FROM hearth.members x WHERE x.zone = z.zone)) ORDER BY z.zone), '[]')
    FROM hearth.zones z LEFT JOIN hearth.members m ON m.zone = z.zone AND m.role = session_user
    WHERE z.root_type IS NOT NULL AND (z.owner = session_user OR m.role IS NOT NULL) $$;

  -- Files (attachments' images): stored once per SHA-256 whatever the zones that use them;
  -- a person reads a file linked to a zone they may read.
  CREATE FUNCTION hearth.can_read_asset(h text) RETURNS boolean LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT EXISTS (SELECT 1 FROM hearth.asset_zones WHERE sha256 = h AND hearth.can_read(zone)) $$;
  -- Links file h, which the person may read already, to zone z; false when the server has
  -- no such file for them (then `put_asset` sends its bytes).
  CREATE FUNCTION hearth.link_asset(z text, h text) RETURNS boolean
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  BEGIN
    PERFORM hearth.writable(z);
    IF NOT hearth.can_read_asset(h) THEN RETURN false; END IF;
    INSERT INTO hearth.asset_zones VALUES (h, z) ON CONFLICT DO NOTHING;
    RETURN true;
  END $$;
  -- Stores file h (its bytes in hex, checked against h) for zone z: once, however often sent.
  CREATE FUNCTION hearth.put_asset(z text, h text, p_hex text) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
  DECLARE v_bytes bytea := decode(p_hex, 'hex');
  BEGIN
    PERFORM hearth.writable(z);
    IF encode(sha256(v_bytes), 'hex') <> h THEN
      PERFORM hearth.refuse(format('the bytes sent are not file %s', h));
    END IF;
    INSERT INTO hearth.assets (sha256, bytes, size) VALUES (h, v_bytes, length(v_bytes))
    ON CONFLICT DO NOTHING;
    INSERT INTO hearth.asset_zones VALUES (h, z) ON CONFLICT DO NOTHING;
  END $$;
  -- File h's bytes in hex, for a person who may read it; NULL otherwise (none, or not
  -- theirs: the answer says nothing of other people's files).
  CREATE FUNCTION hearth.get_asset(h text) RETURNS text LANGUAGE sql STABLE
  SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT encode(bytes, 'hex') FROM hearth.assets WHERE sha256 = h AND hearth.can_read_asset(h) $$;
  """
