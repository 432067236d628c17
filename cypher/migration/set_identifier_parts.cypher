// Give memories their identifier parts as `identifier_parts` now reads them: `search_parts`, and the parts at the end of the lexical field (its layout: context, content, parts) in place of those it held ($rows' `old`, '' for none; a memory changed since it was read is left alone); `parts` null removes them.
// mode: write
// returns: one
// :param rows => [{uid: 'uid-of-a-memory-version', old: '', parts: 'test upload'}]
UNWIND $rows AS row
MATCH (m:Memory {uid: row.uid})
WHERE m.search_text IS NOT NULL AND coalesce(m.search_parts, '') = row.old
WITH m, row, CASE WHEN m.search_parts IS NULL THEN m.search_text
                  ELSE left(m.search_text, size(m.search_text) - size(m.search_parts) - 1) END AS base
SET m.search_parts = row.parts, m.search_text = base + coalesce('\n' + row.parts, '')
RETURN count(m) AS changed
