// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// End-to-end test of the live browser view (issue 7): starts `rtmb serve MODEL --view 0`, opens
// the page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core from
// web/node_modules), and checks that
//   1. the page connects (its WebSocket status says "connected") and receives frames,
//   2. the drawn mechanism moves: body positions the page applied to the three.js scene change
//      between two moments, and the simulated time advances,
//   3. the WebGL canvas shows something: enough pixels differ from the background colour,
// then saves a screenshot. Any failure exits non-zero with the reason; nothing is skipped (a
// missing Chromium or playwright-core is a failure that says how to install it).
//
// Usage: node view_e2e.mjs --rtmb BIN --model FILE --node-modules DIR --screenshot PNG
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  console.error(`view_e2e: missing --${name}`);
  process.exit(2);
}

const rtmb = arg('rtmb');
const model = arg('model');
const nodeModules = arg('node-modules');
const screenshot = arg('screenshot');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

function fail(message) {
  console.error(`view_e2e: FAIL: ${message}`);
  process.exitCode = 1;
  throw new Error(message);
}

const playwrightEntry = path.join(nodeModules, 'playwright-core', 'index.mjs');
if (!existsSync(playwrightEntry)) {
  console.error(`view_e2e: FAIL: ${playwrightEntry} not found (scripts/install-deps.sh runs 'npm ci' in web/)`);
  process.exit(1);
}
if (!existsSync(chromiumPath)) {
  console.error(`view_e2e: FAIL: ${chromiumPath} not found (Debian package 'chromium'; scripts/install-deps.sh installs it)`);
  process.exit(1);
}
const { chromium } = await import(pathToFileURL(playwrightEntry).href);

// ---- the server -------------------------------------------------------------------------------
const server = spawn(rtmb, ['serve', model, '--view', '0', '--duration', '60', '--priority', '0'],
                     { stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no "live view at" line in 60 s:\n${serverErr}`)), 60000);
  server.stderr.on('data', (chunk) => {
    serverErr += chunk.toString();
    const m = serverErr.match(/live view at (http:\/\/[0-9.]+:[0-9]+\/)/);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
  server.on('exit', (code) => reject(new Error(`rtmb serve exited (${code}) before the view started:\n${serverErr}`)));
});
console.log(`view_e2e: server up, view at ${url}`);

let browser;
try {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // root in CI needs --no-sandbox; SwiftShader gives WebGL without a GPU
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 650 } });
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
  await page.goto(url);

  // 1. connected and receiving frames
  try {
    await page.waitForFunction(() => window.rtmbView && window.rtmbView.status === 'connected' &&
                               window.rtmbView.frames >= 5 && window.rtmbView.scene !== null,
                               null, { timeout: 60000 });
  } catch (e) {
    const state = await page.evaluate(() => window.rtmbView &&
      { status: window.rtmbView.status, frames: window.rtmbView.frames }).catch(() => null);
    fail(`page did not connect and receive 5 frames in 60 s: ${JSON.stringify(state)}; page errors: ${pageErrors.join(' | ')}`);
  }
  const a = await page.evaluate(() => ({
    t: window.rtmbView.lastFrame.t, bodies: window.rtmbView.bodyPositions,
    frames: window.rtmbView.frames, n: window.rtmbView.scene.bodies.length,
  }));
  if (a.n < 1) fail(`the scene has no bodies (model ${model})`);
  console.log(`view_e2e: connected; ${a.frames} frames, ${a.n} bodies, t = ${a.t}`);

  // 2. the drawn state moves
  await page.waitForTimeout(1500);
  const b = await page.evaluate(() => ({
    t: window.rtmbView.lastFrame.t, bodies: window.rtmbView.bodyPositions,
    frames: window.rtmbView.frames, rendered: window.rtmbView.renderedFrames,
  }));
  let moved = 0;
  for (let i = 0; i < a.n; ++i) {
    moved = Math.max(moved, Math.hypot(b.bodies[i][0] - a.bodies[i][0], b.bodies[i][1] - a.bodies[i][1],
                                       b.bodies[i][2] - a.bodies[i][2]));
  }
  console.log(`view_e2e: after 1.5 s: t = ${b.t}, frames ${b.frames}, rendered ${b.rendered}, largest body displacement ${moved.toExponential(3)} m`);
  if (!(b.t > a.t)) fail(`simulation time did not advance in the page (${a.t} -> ${b.t})`);
  if (!(b.frames > a.frames)) fail('no new frames in 1.5 s');
  if (!(moved > 1e-4)) fail(`the drawn bodies did not move (largest displacement ${moved})`);
  if (!(b.rendered > 0)) fail('three.js rendered no frame');

  // 3. the canvas shows the mechanism: pixels that are not the background colour
  const drawn = await page.evaluate(() => {
    const gl = document.querySelector('#scene canvas');
    const c = document.createElement('canvas');
    c.width = gl.width;
    c.height = gl.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(gl, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let other = 0;
    for (let i = 0; i < px.length; i += 4) {
      // background #f4f5f7
      if (Math.abs(px[i] - 0xf4) + Math.abs(px[i + 1] - 0xf5) + Math.abs(px[i + 2] - 0xf7) > 24) ++other;
    }
    return { other, total: px.length / 4 };
  });
  const share = drawn.other / drawn.total;
  console.log(`view_e2e: ${(100 * share).toFixed(2)} % of the canvas differs from the background`);
  if (!(share > 0.005)) fail(`the 3-D canvas looks empty (${(100 * share).toFixed(3)} % drawn pixels)`);
  if (pageErrors.length > 0) fail(`page errors: ${pageErrors.join(' | ')}`);

  // The screenshot is a record for a person, taken after every assertion above. It goes through
  // the DevTools protocol directly: Playwright's page.screenshot first waits for web fonts, and on
  // a loaded 2-core machine that wait alone once ran past its 30 s limit (CI, 2026-11-26).
  const cdp = await page.context().newCDPSession(page);
  const shot = await cdp.send('Page.captureScreenshot', { format: 'png' });
  writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));
  console.log(`view_e2e: screenshot saved to ${screenshot}`);
  console.log('view_e2e: PASS');
} catch (e) {
  if (!process.exitCode) {
    console.error(`view_e2e: FAIL: ${e.message}`);
    process.exitCode = 1;
  }
} finally {
  if (browser) await browser.close();
  server.kill('SIGINT');
}
