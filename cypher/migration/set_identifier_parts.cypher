// Give memories their identifier parts: `search_parts`, and the parts at the end of the lexical field (its layout since: context, content, parts), each only once.
// mode: write
// returns: one
// :param rows => [{uid: 'uid-of-a-memory-version', parts: 'test upload'}]
UNWIND $rows AS row
MATCH (m:Memory {uid: row.uid})
WHERE m.search_parts IS NULL AND m.search_text IS NOT NULL
SET m.search_parts = row.parts, m.search_text = m.search_text + '\n' + row.parts
RETURN count(m) AS changed
