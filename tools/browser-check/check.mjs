// Drives Neo4j Browser in Debian's headless Chromium as a newcomer would (scripts/browser-check):
// connect, follow the guide (:play), apply rationale.grass by dropping the file and by `:style`
// paste, run every cypher/browser/ query (its `:params` header line first), fail on any Browser
// error, and write one screenshot per result to tools/browser-check/screenshots/.
import { chromium } from 'playwright-core';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seed, drop } from './seed.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const browserDir = join(root, 'cypher', 'browser');
const shots = join(here, 'screenshots');
const env = process.env;
const namespace = env.CHECK_NAMESPACE;
const api = { url: env.CHECK_SERVICE_URL, key: env.CHECK_API_KEY };
const neo = { http: `http://127.0.0.1:${env.NEO4J_HTTP_PORT}`, database: env.NEO4J_DATABASE,
  user: env.NEO4J_USERNAME, password: env.NEO4J_PASSWORD };
const BAD = /TypeError|can't recover|Could not parse|not allowed|Neo\.ClientError|Neo\.DatabaseError|Something went wrong|Expected parameter|Unknown command|Invalid input/i;

// What each query's result must show (whitespace ignored): the story's nodes, as the style captions them.
const EXPECT = {
  namespaces: [namespace],
  latest_decisions: ['DECISION v3 challenged 0.81', 'user trace', 'maintenance trace'],
  latest_decisions_table: ['challenged', '0.81', 'job:evidence-drift'],
  challenged_decisions: ['DECISION v3 challenged', 'observation v1', 'observation v2'],
  challenged_decisions_table: ['log re-read', 'now v2'],
  decision_story: ['DECISION v3 challenged 0.81', '1 thought rejected', '2 thought rejected', 'REJECTS', 'user trace', 'maintenance trace', 'observation v1'],
  decision_story_table: ['rejected', 'no longer valid', 'still valid'],
  maintenance_changes: ['maintenance trace', 'DECISION v3'],
  maintenance_changes_table: ['confidence 0.9 -> 0.81'],
  hidden_by_origin: ['robot', 'The backup job runs at 03:00'],
  evidence_dependents: ['observation v1', 'observation v2', 'DECISION v3'],
  evidence_dependents_table: ['CI log', 'false', 'true'],
};
const squash = (s) => s.replace(/\s+/g, '');
const failures = [];
const fail = (what) => { failures.push(what); console.log(`FAIL ${what}`); };

async function newestFrame(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="frame"]').length > n, count, { timeout: 30000 });
  return page.locator('[data-testid="frame"]').first();
}

/** Types (pastes) `text` into the editor and runs it; returns the frame it made, once settled. */
async function run(page, text, { paste = true } = {}) {
  const editor = page.locator('[data-testid="activeEditor"]');
  if (await page.locator('[data-testid="frame"]').count() >= 15) {  // Browser keeps 30 frames at most
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(':clear');
    await page.locator('[data-testid="editor-Run"]').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="frame"]').length === 0);
  }
  const count = await page.locator('[data-testid="frame"]').count();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  if (paste) {
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await page.keyboard.press('Control+V');
  } else {
    await page.keyboard.insertText(text);
  }
  await page.locator('[data-testid="editor-Run"]').click();
  return settle(page, await newestFrame(page, count));
}

/** Waits for a frame's result (status bar, error or command output) and the graph layout. */
async function settle(page, frame) {
  await frame.locator('[data-testid="frameStatusbar"], [data-testid="cypherFrameErrorMessage"], .frame-contents, [data-testid="frameContents"]').first()
    .waitFor({ timeout: 30000 }).catch(() => {});
  await page.waitForTimeout(2500);
  return frame;
}

async function check(frame, name, expect = []) {
  const text = (await frame.textContent()) || '';
  const bad = text.match(BAD);
  if (bad) fail(`${name}: Browser says "${text.slice(Math.max(0, bad.index - 80), bad.index + 160)}"`);
  for (const want of expect) if (!squash(text).includes(squash(want))) fail(`${name}: result lacks "${want}"`);
  await frame.screenshot({ path: join(shots, `${name}.png`) });
  console.log(`ok   ${name}${bad ? ' (with error)' : ''} -> screenshots/${name}.png`);
}

function header(name) {
  const line = readFileSync(join(browserDir, `${name}.cypher`), 'utf8').split('\n').find((l) => l.startsWith('// :params'));
  return line.slice(3).replace("namespace: 'default'", `namespace: '${namespace}'`);
}

async function main() {
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  const ids = await seed(api, neo, namespace);
  const profile = mkdtempSync(join(tmpdir(), 'browser-check-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1500, height: 1100 }, deviceScaleFactor: 2,
    permissions: ['clipboard-read', 'clipboard-write'],
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  try {
    page.on('pageerror', (e) => fail(`page error: ${e.message}`));
    await page.goto(`${neo.http}/browser/`);
    await page.locator('[data-testid="boltaddress"]').fill(`127.0.0.1:${env.NEO4J_BOLT_PORT}`);
    await page.locator('[data-testid="username"]').fill(neo.user);
    await page.locator('[data-testid="password"]').fill(neo.password);
    await page.locator('[data-testid="connect"]').click();
    await page.getByText('You are connected', { exact: false }).first().waitFor({ timeout: 30000 });
    console.log('connected');

    // The newcomer's path: 1 :play the guide, 2 ▶ style, 3 ▶ params, 4 ▶ the decision's story.
    let frame = await run(page, `:play ${api.url}/browser/guide?namespace=${namespace}`);
    // Browser shows a remote guide in a frame of the stream (or, in other versions, its guides drawer).
    const drawer = page.locator('[data-testid="guidesDrawer"]:has(pre.runnable), [data-testid="frame"]:has(pre.runnable)').first();
    await drawer.waitFor({ timeout: 30000 });
    const drawerText = (await drawer.textContent()) || '';
    if (drawerText.match(BAD) || !drawerText.includes('Rationale: start here')) fail(`guide: ${drawerText.slice(0, 300)}`);
    await drawer.screenshot({ path: join(shots, '00_guide.png') });
    const blocks = drawer.locator('pre.runnable');
    for (const [i, name] of [[0, 'guide_style'], [1, 'guide_params'], [2, 'guide_story']]) {
      const count = await page.locator('[data-testid="frame"]').count();
      await blocks.nth(i).locator('i.fa-play-circle-o').click();
      frame = await settle(page, await newestFrame(page, count));
      await check(frame, `0${i + 1}_${name}`, name === 'guide_story' ? EXPECT.decision_story : []);
    }
    console.log('guide: a decision\'s story in 4 actions after connecting (:play, style, params, story)');

    // The style by drop: the Browser's own drop handler, with the file as a File object.
    await run(page, ':style reset');
    const grass = readFileSync(join(browserDir, 'rationale.grass'), 'utf8');
    const dt = await page.evaluateHandle((content) => {
      const d = new DataTransfer();
      d.items.add(new File([content], 'rationale.grass', { type: 'text/plain' }));
      return d;
    }, grass);
    let count = await page.locator('[data-testid="frame"]').count();
    await page.dispatchEvent('.filedrop', 'drop', { dataTransfer: dt });
    frame = await settle(page, await newestFrame(page, count));
    await check(frame, '10_style_dropped', []);
    await check(await run(page, header('decision_story')), '11_params_after_drop');
    await check(await run(page, readFileSync(join(browserDir, 'decision_story.cypher'), 'utf8')), '12_story_after_drop', EXPECT.decision_story);

    // The style by `:style` and a paste of the file, then reload: the style persists and renders.
    await run(page, ':style reset');
    await check(await run(page, `:style ${grass}`), '20_style_pasted');
    await page.reload();
    await page.locator('[data-testid="activeEditor"]').waitFor({ timeout: 30000 });
    await page.waitForTimeout(3000);

    // Every query, as a person would: its `:params` header line, then the whole file.
    const names = readdirSync(browserDir).filter((f) => f.endsWith('.cypher')).map((f) => f.slice(0, -7)).sort();
    for (const name of names) {
      const params = header(name);
      if (params !== ':params {}') await check(await run(page, params), `p_${name}`);
      const text = readFileSync(join(browserDir, `${name}.cypher`), 'utf8')
        .replace(":params {namespace: 'default'", `:params {namespace: '${namespace}'`);
      await check(await run(page, text), name, EXPECT[name] || []);
    }
    // A picked decision and a picked piece of evidence, by words and by id.
    await run(page, ":param decision => 'race'");
    await check(await run(page, readFileSync(join(browserDir, 'decision_story_table.cypher'), 'utf8')), 'story_by_words', EXPECT.decision_story_table);
    await run(page, `:param evidence_id => '${ids.evidence_id}'`);
    await check(await run(page, readFileSync(join(browserDir, 'evidence_dependents.cypher'), 'utf8')), 'evidence_by_id', EXPECT.evidence_dependents);
  } catch (e) {
    await page.screenshot({ path: join(shots, 'failure.png') }).catch(() => {});
    throw e;
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await drop(neo, namespace);
  }
  if (failures.length) {
    console.log(`\n${failures.length} failure(s)`);
    process.exit(1);
  }
  console.log(`\nbrowser check passed; screenshots in ${shots}`);
}

main().catch(async (e) => { console.error(e); await drop(neo, namespace).catch(() => {}); process.exit(1); });
