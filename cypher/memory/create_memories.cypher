// Create version 1 of many memories at once (a batch's items without a key), each with all its properties.
// mode: write
// returns: many
// :param rows => [{label: 'Fact', props: {uid: randomUUID(), namespace: 'default', memory_id: randomUUID(), version: 1, kind: 'fact', content: 'Alice lives in District 1', content_norm: 'alice lives in district 1', valid_from: datetime(), system_from: datetime(), created_by_origin: 'user', created_by_actor: 'browser', last_modified_by_origin: 'user', last_modified_by_actor: 'browser'}}]
UNWIND $rows AS row
CREATE (m:Memory:$(row.label))
SET m = row.props
RETURN m {.*, embedding: null} AS memory
