// Seeds one namespace through the service's REST API with the flaky-test story (tests/factories.py),
// then re-reads the log line, challenges the decision and runs the evidence-drift job; adds one
// memory with an unrecognized origin through Neo4j's HTTP API (as if typed into Browser).

/** Calls the service; throws with the answer's text on an unexpected status. */
async function call(api, method, path, body, headers = {}) {
  const r = await fetch(api.url + path, {
    method,
    headers: { authorization: `Bearer ${api.key}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status}: ${text}`);
  return JSON.parse(text);
}

/** Runs one Cypher statement through Neo4j's HTTP API (transactional endpoint). */
export async function cypher(neo, statement, parameters = {}) {
  const r = await fetch(`${neo.http}/db/${neo.database}/tx/commit`, {
    method: 'POST',
    headers: {
      authorization: 'Basic ' + Buffer.from(`${neo.user}:${neo.password}`).toString('base64'),
      'content-type': 'application/json',
    },
    body: JSON.stringify({ statements: [{ statement, parameters }] }),
  });
  const body = await r.json();
  if (body.errors && body.errors.length) throw new Error(JSON.stringify(body.errors));
  return body.results[0];
}

/** Seeds the story; returns the ids the queries are run with. */
export async function seed(api, neo, namespace) {
  const mem = (content, kind = 'observation') => call(api, 'POST', '/v1/memories', { kind, content });
  const log = await mem('CI log: test_upload failed with connection reset during setup');
  const cache = await mem('Cache hit rate was normal (98%) during the failing runs');
  const tz = await mem('Failing runs happened at 09:14, 13:40 and 22:05 UTC, no pattern around midnight or DST');
  const tmpdir = await mem('Worker logs show gw0 and gw1 both creating /tmp/upload-fixture at the same moment');
  const green = await mem('50 consecutive CI runs green after adding the lock');
  const steps = [
    { kind: 'observation', content: 'test_upload failed with connection reset during setup', cites: [log.memory_id] },
    { kind: 'thought', content: 'Maybe it is the cache serving a stale fixture', status: 'hypothesis' },
    { kind: 'thought', content: 'Could be a timezone issue in the fixture dates', status: 'hypothesis' },
    { kind: 'observation', content: 'Cache hit rate was normal during the failures, so the cache is not it', cites: [cache.memory_id], rejects: [1] },
    { kind: 'observation', content: 'Failures are spread over the day with no midnight or DST pattern, so not timezones', cites: [tz.memory_id], rejects: [2] },
    { kind: 'observation', content: 'Two workers create the same temp directory /tmp/upload-fixture in setup at once', cites: [tmpdir.memory_id] },
    { kind: 'action', content: 'Add a file lock around the temp directory creation in the setup code' },
    { kind: 'observation', content: '50 consecutive runs green after the lock', cites: [green.memory_id] },
    { kind: 'conclusion', content: 'The setup code has a race on the temp directory; the lock fixes it' },
  ];
  const trace = await call(api, 'POST', '/v1/reasoning', {
    task: 'Why does test_upload fail intermittently in CI?',
    steps,
    produced: { kind: 'decision', content: 'The setup code has a race; the lock fixes it', confidence: 0.9 },
  });
  const decision = trace.produced[0];
  await call(api, 'PATCH', `/v1/memories/${log.memory_id}`,
    { content: 'CI log: test_upload failed with a timeout during teardown' }, { 'if-match': '1' });
  await call(api, 'POST', `/v1/memories/${decision.memory_id}/challenge`, { reason: 'log re-read', actor: 'reviewer' });
  const drift = await call(api, 'POST', '/v1/maintenance/run', { job: 'evidence-drift' });
  if (drift.trace_ids.length !== 1) throw new Error(`evidence-drift wrote no trace: ${JSON.stringify(drift)}`);
  const robot = await mem('The backup job runs at 03:00 UTC every night', 'fact');
  await cypher(neo, "MATCH (m:Memory {namespace: $ns, memory_id: $id}) SET m.created_by_origin = 'robot'",
    { ns: namespace, id: robot.memory_id });
  return { decision_id: decision.memory_id, trace_id: trace.trace_id, evidence_id: log.memory_id,
    maintenance_trace_id: drift.trace_ids[0], hidden_id: robot.memory_id };
}

/** Deletes every node of the namespace (the check's own, never a user's). */
export async function drop(neo, namespace) {
  await cypher(neo, 'MATCH (n {namespace: $ns}) DETACH DELETE n', { ns: namespace });
}
