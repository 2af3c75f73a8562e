// Drives the example page (examples/browser/) in headless Chromium with playwright-core: it
// lists the legal moves of a seat, applies the first one, and also provokes a refusal. Prints
// what the page showed, as JSON, for tests/e2e/test_browser.py.
//
//   npx tsx test/browser.ts --page 'http://127.0.0.1:8000/index.html?gateway=...&name=...'
//       [--chromium /usr/bin/chromium] [--screenshot out.png]

import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      page: { type: "string" },
      chromium: { type: "string", default: "/usr/bin/chromium" },
      screenshot: { type: "string" },
      "bad-credential": { type: "string", default: "cs_notASeatOfThisGame000000000000000" },
    },
  });
  if (!values.page) {
    throw new Error("usage: browser.ts --page URL");
  }
  const browser = await chromium.launch({
    executablePath: values.chromium,
    args: FLAGS,
    headless: true,
    timeout: 60_000,
  });
  try {
    const page = await browser.newPage();
    // Script errors. (Chromium also logs each non-2xx response as a console error: the
    // Connect protocol answers a refused call with an HTTP error status, so those are not.)
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        consoleErrors.push(message.text());
      }
    });
    page.on("pageerror", (error) => consoleErrors.push(String(error)));
    // Generous: the waits below are for states, and a busy machine may take long to reach them.
    page.setDefaultTimeout(60_000);
    await page.goto(values.page);

    const status = page.locator("#status");
    await page.click("#list");
    await page.waitForFunction(() => document.querySelector("#status")?.textContent?.startsWith("seat "));
    const listed = (await status.textContent()) ?? "";
    const moves = await page.locator("#moves li").allTextContents();

    await page.locator("#moves li button").first().click();
    await page.waitForFunction(() => /^(applied|refused|error)/.test(document.querySelector("#status")?.textContent ?? ""));
    const applied = (await status.textContent()) ?? "";
    if (values.screenshot) {
      await page.screenshot({ path: values.screenshot, fullPage: true });
    }

    // A credential that is not one of the game's: the page shows the refusal's reason.
    await page.fill("#credential", values["bad-credential"]);
    await page.click("#list");
    await page.waitForFunction(() => /^(refused|error)/.test(document.querySelector("#status")?.textContent ?? ""));
    const refused = (await status.textContent()) ?? "";

    console.log(JSON.stringify({ listed, moves, applied, refused, consoleErrors }));
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
