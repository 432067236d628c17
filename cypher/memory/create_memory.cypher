// Create version 1 of a memory with all its properties; its lexical field gets the memory at position - 1 of the same episode (the previous turn) as context, read in this transaction; the content's identifier parts ($props.search_parts) end it.
// mode: write
// returns: one
// :param label => 'Fact'
// :param props => {uid: randomUUID(), namespace: 'default', memory_id: randomUUID(), version: 1, kind: 'fact', content: 'Alice lives in District 1', content_norm: 'alice lives in district 1', search_text: 'Alice lives in District 1', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'browser', last_modified_by_origin: 'user', last_modified_by_actor: 'browser'}
CREATE (m:Memory:$($label))
SET m = $props
SET m.current = m.system_to IS NULL
WITH m
CALL (m) {
  OPTIONAL MATCH (prev:Memory {namespace: m.namespace, episode: m.episode, position: m.position - 1})
  WHERE prev.current = true
  WITH prev ORDER BY prev.system_from DESC LIMIT 1
  RETURN prev.content AS previous
}
// A previous turn equal to the given context (sent as `context` by the client) counts once.
WITH m, [x IN [m.search_context, CASE WHEN previous = m.search_context THEN null ELSE previous END]
         WHERE x IS NOT NULL] AS context
SET m.search_context = CASE WHEN size(context) = 0 THEN null
                            ELSE reduce(s = head(context), x IN tail(context) | s + '\n' + x) END
SET m.search_text = CASE WHEN m.search_context IS NULL THEN m.content
                         ELSE m.search_context + '\n' + m.content END + coalesce('\n' + m.search_parts, '')
RETURN m {.*, embedding: null} AS memory
