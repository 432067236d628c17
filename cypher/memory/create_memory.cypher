// Create version 1 of a memory with all its properties.
// mode: write
// returns: one
// :param label => 'Fact'
// :param props => {uid: randomUUID(), namespace: 'default', memory_id: randomUUID(), version: 1, kind: 'fact', content: 'Alice lives in District 1', content_norm: 'alice lives in district 1', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'browser', last_modified_by_origin: 'user', last_modified_by_actor: 'browser'}
CREATE (m:Memory:$($label))
SET m = $props
SET m.current = m.system_to IS NULL
RETURN m {.*, embedding: null} AS memory
