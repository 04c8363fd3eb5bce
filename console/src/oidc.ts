/**
 * A person's sign-in with the company's OpenID Connect provider (ADR 0063): authorization code with PKCE
 * (S256). The verifier, `state` and nonce are made here and kept in this tab's sessionStorage only; the
 * provider's answer is accepted only when its `state` is the one this tab sent (RFC 6749 §10.12), and the
 * API redeems the code (with the client secret, if any) and verifies the ID token against the nonce. What
 * comes back is an API key of the spec's shape, held in the tab like a pasted one.
 */
import { createApi } from "./api.ts";
import { h } from "./dom.ts";

const PENDING = "mailroom.oidc.pending";
const PERSON = "mailroom.person";
const ACCOUNTS = "mailroom.person.accounts";

export interface OidcSettings {
  enabled: boolean;
  authorizationEndpoint?: string;
  clientId?: string;
  redirectUri?: string;
  scopes?: string[];
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const random = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Whether this install offers sign-in with a provider (`GET /auth/oidc`, no key needed). */
export async function oidcSettings(): Promise<OidcSettings> {
  const response = await fetch("/auth/oidc", { credentials: "omit", cache: "no-store" }).catch(() => null);
  if (!response?.ok) return { enabled: false };
  return (await response.json()) as OidcSettings;
}

/** Sends the tab to the provider, remembering what the answer must carry. */
export async function startOidcSignIn(settings: OidcSettings, account?: string): Promise<void> {
  if (!settings.authorizationEndpoint || !settings.clientId || !settings.redirectUri) return;
  const pending = { state: random(), nonce: random(), verifier: random(), account };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(pending.verifier));
  const url = new URL(settings.authorizationEndpoint);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    scope: (settings.scopes ?? ["openid"]).join(" "),
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
  }).toString();
  location.assign(url.toString());
}

/**
 * When the page is the provider's answer (`?code=…&state=…` or `?error=…`), trades it for a key; undefined
 * when it is not. Throws, with a message for the person, a forged or stale `state` and a refusal.
 */
export async function finishOidcSignIn(): Promise<string | undefined> {
  const params = new URLSearchParams(location.search);
  if (!params.has("state") && !params.has("code") && !params.has("error")) return undefined;
  // The code must not linger in the address bar or history.
  history.replaceState(null, "", `${location.pathname}${location.hash}`);
  const raw = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = raw
    ? (JSON.parse(raw) as { state: string; nonce: string; verifier: string; account?: string })
    : null;
  if (!pending || params.get("state") !== pending.state) {
    throw new Error(
      "This sign-in answer was not started from this tab (its state does not match), so it was refused. " +
        "Nothing was signed in: start the sign-in again.",
    );
  }
  const error = params.get("error");
  if (error)
    throw new Error(`The provider refused the sign-in: ${params.get("error_description") ?? error}.`);
  const response = await fetch("/auth/oidc/session", {
    method: "POST",
    credentials: "omit",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      code: params.get("code") ?? "",
      codeVerifier: pending.verifier,
      nonce: pending.nonce,
      ...(pending.account ? { account: pending.account } : {}),
    }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    key?: string;
    message?: string;
    person?: { email: string | null; subject: string };
    accounts?: string[];
  };
  if (!response.ok || !body.key) throw new Error(body.message ?? `The sign-in answered ${response.status}.`);
  sessionStorage.setItem(PERSON, body.person?.email ?? body.person?.subject ?? "");
  sessionStorage.setItem(ACCOUNTS, JSON.stringify(body.accounts ?? []));
  return body.key;
}

/** The signed-in person's name (email), when the tab's key is a person's. */
export function signedInPerson(): string | null {
  return sessionStorage.getItem(PERSON);
}

/** A person's sign-out revokes their key (a machine's key is only forgotten by the tab). */
export async function signOutPerson(secret: string | undefined): Promise<void> {
  if (signedInPerson() === null) return;
  sessionStorage.removeItem(PERSON);
  sessionStorage.removeItem(ACCOUNTS);
  if (secret)
    await createApi(secret)
      .post("/auth/oidc/sign-out")
      .catch(() => undefined);
}

/**
 * For a person with roles in several accounts: a choice of account. Choosing one signs the person out of this
 * key and through the provider again (its session makes that a redirect), for a key in the account chosen.
 */
export function accountSwitcher(current: string, secret: string): HTMLElement | null {
  const accounts = JSON.parse(sessionStorage.getItem(ACCOUNTS) ?? "[]") as string[];
  if (signedInPerson() === null || accounts.length < 2) return null;
  const select = h(
    "select",
    { id: "person-account", "aria-label": "Account" },
    accounts.map((account) => h("option", { value: account, selected: account === current }, account)),
  ) as HTMLSelectElement;
  select.addEventListener("change", async () => {
    const settings = await oidcSettings();
    await signOutPerson(secret);
    sessionStorage.removeItem("mailroom.apiKey");
    await startOidcSignIn(settings, select.value);
  });
  return select;
}
