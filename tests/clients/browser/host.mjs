// A host for one MCP App, as a chat client embeds it, in a real headless browser: the app's
// HTML goes into a sandboxed frame (scripts only, an opaque origin), the host answers its
// `ui/initialize` over postMessage, then hands it the tool's input and result
// (`ui/notifications/tool-input`, `ui/notifications/tool-result`), and reports what the frame
// rendered: the text of every element matching a selector, as one JSON line.
//
// Usage: node host.mjs <app.html> <tool-call.json> <selector>
//   tool-call.json: {"arguments": {...}, "result": <the CallToolResult>}
// Environment: CHROMIUM, the browser's executable (Debian's `chromium`).

import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [htmlPath, callPath, selector] = process.argv.slice(2);
if (!selector) {
  process.stderr.write('usage: node host.mjs <app.html> <tool-call.json> <selector>\n');
  process.exit(64);
}
const html = readFileSync(htmlPath, 'utf8');
const call = JSON.parse(readFileSync(callPath, 'utf8'));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage();
  const seen = [];
  page.on('console', (message) => seen.push(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
  await page.setContent('<!doctype html><title>host</title><iframe id="app" sandbox="allow-scripts"></iframe>');
  await page.evaluate(
    ({ html, call }) => {
      const frame = document.getElementById('app');
      window.hostLog = [];
      window.addEventListener('message', (event) => {
        if (event.source !== frame.contentWindow) return;
        const message = event.data;
        window.hostLog.push(message.method ?? `response ${message.id}`);
        const reply = (value) => frame.contentWindow.postMessage(value, '*');
        if (message.method === 'ui/initialize') {
          reply({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: message.params?.protocolVersion,
              hostInfo: { name: 'mcp-tests-host', version: '0.0.0' },
              hostCapabilities: {},
              hostContext: { theme: 'light', displayMode: 'inline' },
            },
          });
        } else if (message.method === 'ui/notifications/initialized') {
          reply({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: call.arguments } });
          reply({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: call.result });
        }
      });
      frame.srcdoc = html;
    },
    { html, call },
  );
  const app = await new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const look = () => {
      const found = page.frames().find((frame) => frame !== page.mainFrame());
      if (found) resolve(found);
      else if (Date.now() > deadline) reject(new Error('the app frame never loaded'));
      else setTimeout(look, 20);
    };
    look();
  });
  try {
    await app.waitForSelector(selector, { timeout: 10_000 });
  } catch (e) {
    const log = await page.evaluate(() => window.hostLog);
    throw new Error(`${e.message}\nmessages from the app: ${JSON.stringify(log)}\n${seen.join('\n')}`);
  }
  const texts = await app.$$eval(selector, (elements) => elements.map((element) => element.textContent.trim()));
  const messages = await page.evaluate(() => window.hostLog);
  process.stdout.write(`${JSON.stringify({ texts, messages, console: seen })}\n`);
} finally {
  await browser.close();
}
