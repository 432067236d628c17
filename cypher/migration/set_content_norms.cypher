// Set memories' match form (content_norm) as `normalise_for_match` reads their content now ($rows' `old`: the form read; a memory changed since it was read is left alone).
// mode: write
// returns: one
// :param rows => [{uid: 'uid-of-a-memory-version', old: 'rack\u200b a', norm: 'rack a'}]
UNWIND $rows AS row
MATCH (m:Memory {uid: row.uid})
WHERE m.content_norm = row.old
SET m.content_norm = row.norm
RETURN count(m) AS changed
