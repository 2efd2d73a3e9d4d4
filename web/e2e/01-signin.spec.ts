import { expect, screenshot, server, test } from "./fixtures";

test("a browser without the cookie gets the sign-in screen, and a pasted token signs it in", async ({
  page,
  allowConsoleErrors,
}) => {
  // The console's first API call is refused: that 401 is the point of this test.
  allowConsoleErrors("status of 401");
  const { url, token } = server();
  await page.goto(`${url}/`);
  await expect(page.getByRole("heading", { name: "Sign in to Berth" })).toBeVisible();
  await expect(page.getByTestId("signin-error")).toContainText("not signed in");

  await page.getByTestId("token-input").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${url}/`);
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  // The suite's server is fresh and this file runs first: the console's empty state.
  await expect(page.getByTestId("empty-state")).toContainText("No sessions yet");
  await screenshot(page, "console-empty");
});

test("a login link with a wrong token says so and never keeps the token in the address bar", async ({
  page,
  allowConsoleErrors,
}) => {
  allowConsoleErrors("status of 401");
  const { url } = server();
  const response = await page.goto(`${url}/login?token=not-the-right-token-${"y".repeat(30)}`);
  expect(response?.status()).toBe(401);
  await expect(page.getByTestId("signin-error")).toContainText("not valid");
  await expect(page).toHaveURL(`${url}/login`);
  await screenshot(page, "sign-in");
});

test("sign out clears the cookie: the next visit gets the sign-in screen", async ({ page, allowConsoleErrors }) => {
  allowConsoleErrors("status of 401");
  const { url, token } = server();
  await page.goto(`${url}/login?token=${token}`);
  await expect(page.getByRole("heading", { name: "Sessions" })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("heading", { name: "Sign in to Berth" })).toBeVisible();
  expect((await page.context().cookies()).filter((c) => c.name === "berth_token" && c.value !== "")).toHaveLength(0);
  await page.goto(`${url}/`);
  await expect(page.getByRole("heading", { name: "Sign in to Berth" })).toBeVisible();
});
