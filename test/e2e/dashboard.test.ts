// The dashboard in a real browser (Debian's chromium, driven by playwright-core; scripts/ensure-chromium.ts
// installs it on a fresh root machine): sign in with the admin key (an HttpOnly session), find a
// generation made just before with the OpenAI SDK and its exact cost in the drill-down, make a key in
// the page and use it with the SDK, revoke it and see the next call refused. Nothing is fetched from
// outside the gateway. Screenshots go to $SWITCHYARD_SCREENSHOTS (default: a temporary directory).

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { type Browser, chromium, type Page } from "playwright-core";
import { ensureChromium } from "../../scripts/ensure-chromium.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { usd } from "../support/money.ts";

const ADMIN_KEY = "sk-admin-browser-0123456789abcdef";
const SHOTS = process.env.SWITCHYARD_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "switchyard-dashboard-"));

let gw: RunningGateway;
let browser: Browser;

before(async () => {
  const executablePath = ensureChromium();
  const dir = mkdtempSync(join(tmpdir(), "switchyard-browser-"));
  gw = await startGateway(baseConfig(dir, { admin: { keys: [ADMIN_KEY] } }), { dir });
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-gpu"],
  });
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await gw?.stop();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

test("sign in, find a generation and its exact cost, make a key, use it, revoke it", {
  timeout: 120_000,
}, async () => {
  const sdk = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const made = await sdk(PAYG_KEY).chat.completions.create({
    model: "local/echo-1",
    messages: [{ role: "user", content: "a generation the dashboard should show" }],
  });
  const model = (await (await fetch(`${gw.url}/v1/models/local/echo-1`)).json()) as any;
  const expectedCost = usd.add(
    usd.perMillion(made.usage!.prompt_tokens, String(model.pricings.prompt[0].value)),
    usd.perMillion(made.usage!.completion_tokens, String(model.pricings.completion[0].value)),
  );

  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const elsewhere: string[] = [];
  page.on("request", (req) => {
    if (!req.url().startsWith(gw.url)) elsewhere.push(req.url());
  });
  const pageErrors: string[] = [];
  page.on("pageerror", (err) => pageErrors.push(err.message));
  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  const adminCalls: string[] = [];
  page.on("request", (req) => {
    if (req.url().includes("/api/v1/admin/")) adminCalls.push(req.url());
  });
  const failedLoads: string[] = [];
  page.on("response", (res) => {
    if (res.status() >= 400) failedLoads.push(`${res.status()} ${res.url()}`);
  });

  await page.goto(`${gw.url}/dashboard`);
  await page.locator("#admin-key").waitFor();
  // Signed out, the page asks the session endpoint, not the admin API: no 401 in the console.
  await page.waitForLoadState("networkidle");
  assert.deepEqual(adminCalls, [], "the signed-out page calls no admin route");
  assert.deepEqual(failedLoads, [], "every request of the signed-out page succeeds");
  assert.deepEqual(consoleErrors, [], "the signed-out page logs no error");
  await page.fill("#admin-key", "sk-admin-wrong-key-00000000");
  await page.click("#login-form button");
  await page.locator("#login-error", { hasText: "not an admin key" }).waitFor();
  await page.fill("#admin-key", ADMIN_KEY);
  await page.click("#login-form button");
  await page.locator("#totals b").first().waitFor();
  const session = (await context.cookies()).find((c) => c.name === "switchyard_session");
  assert.ok(session?.httpOnly, "the session cookie is HttpOnly");
  assert.equal(session?.sameSite, "Strict");
  // The page's script cannot read the session.
  assert.ok(!String(await page.evaluate("document.cookie")).includes("switchyard_session"));
  await page.locator("#chart-spend canvas").waitFor();
  assert.equal(await page.locator("#totals b").first().textContent(), `$${expectedCost}`);
  await shot(page, "1-overview");

  await page.goto(`${gw.url}/dashboard#generations`);
  const row = page.locator(`#generations tr[data-id="${made.id}"]`);
  await row.waitFor();
  assert.equal(await row.locator(".cost").textContent(), `$${expectedCost}`);
  await row.click();
  await page.locator("#drilldown-cost").waitFor();
  assert.equal(await page.locator("#drilldown-cost").textContent(), `$${expectedCost}`);
  assert.equal(await page.locator("#rating-details tbody tr").count(), 2);
  await shot(page, "2-generation");

  await page.goto(`${gw.url}/dashboard#keys`);
  await page.locator("#keys tbody tr").first().waitFor();
  await page.fill('#new-key input[name="account"]', "browser-team");
  await page.fill('#new-key input[name="name"]', "made in the browser");
  await page.fill('#new-key input[name="credits"]', "1");
  await page.fill('#new-key input[name="rpm"]', "1");
  await page.fill('#new-key input[name="budget_usd"]', "0.5");
  await page.selectOption('#new-key select[name="budget_period"]', "total");
  await page.click("#new-key button");
  const secret = (await page.locator("#new-key-value").textContent())!;
  assert.match(secret, /^sk-/);
  const answer = await sdk(secret).chat.completions.create({
    model: "local/echo-1",
    messages: [{ role: "user", content: "from the new key" }],
  });
  assert.equal(answer.choices[0].message.content, "You said: from the new key");
  // The limits set in the form hold: a second request within the minute is over rpm 1.
  await assert.rejects(
    sdk(secret).chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "a second one this minute" }],
    }),
    (err: any) => err.status === 429,
  );
  const keyRow = page.locator("#keys tbody tr", { hasText: "made in the browser" });
  await page.reload();
  await keyRow.locator("td", { hasText: /rpm 1, \$0\.0+\d+ of \$0\.5 in total/ }).waitFor();
  await shot(page, "3-key-made");
  await keyRow.locator("button.revoke").click();
  await keyRow.locator("td", { hasText: "revoked" }).waitFor();
  await assert.rejects(
    sdk(secret).chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "again" }],
    }),
    (err: any) => err.status === 401,
  );
  await shot(page, "4-key-revoked");

  await page.goto(`${gw.url}/dashboard#models`);
  await page.locator("#models li", { hasText: "prompt: 2 perMTokens (prompt > 200k)" }).waitFor();
  await shot(page, "5-models");
  await page.goto(`${gw.url}/dashboard#providers`);
  await page.locator("#providers .state-closed").first().waitFor();
  await shot(page, "6-providers");

  await page.click("#logout");
  await page.locator("#admin-key").waitFor();
  assert.equal((await fetch(`${gw.url}/api/v1/admin/keys`)).status, 401);
  assert.deepEqual(elsewhere, [], "the dashboard fetched nothing outside the gateway");
  assert.deepEqual(pageErrors, []);
  await context.close();
});
