import { ApiError, createApi, type KeyInfo, storedKey, storeKey } from "./api.ts";
import type { View, ViewContext } from "./context.ts";
import { errorText, h, show } from "./dom.ts";
import { focusMain, installKeyboard } from "./keyboard.ts";
import { accountSwitcher, finishOidcSignIn, signedInPerson, signOutPerson } from "./oidc.ts";
import { auditView } from "./views/audit.ts";
import { domainDetailView, domainsView } from "./views/domains.ts";
import { emailDetailView } from "./views/email-detail.ts";
import { emailsView } from "./views/emails.ts";
import { inboxMessageView, inboxView } from "./views/inbox.ts";
import { keysView } from "./views/keys.ts";
import { overviewView } from "./views/overview.ts";
import { signInView } from "./views/sign-in.ts";
import { suppressionsView } from "./views/suppressions.ts";
import { templateDetailView, templatesView } from "./views/templates.ts";
import { transitView } from "./views/transit.ts";
import { webhookDetailView } from "./views/webhook-detail.ts";
import { webhooksView } from "./views/webhooks.ts";

/** A section of the console: shown in the navigation only when the key's scopes allow it. */
interface Section {
  path: string;
  label: string;
  allowed: (key: KeyInfo, devInbox: boolean) => boolean;
  list: View;
  detail?: View;
  /** The scope a key lacks when it opens this section without it: said on the page instead of redirecting. */
  needs?: string;
}

const has = (scope: string) => (key: KeyInfo) => key.scopes.includes(scope);
const SECTIONS: Section[] = [
  { path: "overview", label: "Overview", allowed: has("send"), list: overviewView },
  { path: "emails", label: "Emails", allowed: has("send"), list: emailsView, detail: emailDetailView },
  { path: "transit", label: "Transit", allowed: has("send"), list: transitView },
  {
    path: "inbox",
    label: "Dev inbox",
    allowed: (k, dev) => dev && has("send")(k),
    list: inboxView,
    detail: inboxMessageView,
  },
  { path: "domains", label: "Domains", allowed: has("domains"), list: domainsView, detail: domainDetailView },
  {
    path: "templates",
    label: "Templates",
    allowed: has("templates"),
    list: templatesView,
    detail: templateDetailView,
  },
  {
    path: "webhooks",
    label: "Webhooks",
    allowed: has("webhooks"),
    list: webhooksView,
    detail: webhookDetailView,
    needs: "webhooks",
  },
  { path: "suppressions", label: "Suppressions", allowed: has("send"), list: suppressionsView },
  { path: "audit", label: "Audit", allowed: has("audit"), list: auditView },
  { path: "keys", label: "Keys", allowed: has("keys"), list: keysView },
];

const app = document.getElementById("app") as HTMLElement;
const nav = document.getElementById("nav") as HTMLElement;
const who = document.getElementById("who") as HTMLElement;
const banner = document.getElementById("banner") as HTMLElement;

/** What the console shows of the account (GET /v1/account): a paused account gets a banner on every page. */
interface AccountInfo {
  account: string;
  sendingStatus: "active" | "paused";
  paused: { at: string; by: string | null; reason: string | null } | null;
}

let session: { key: KeyInfo; account: AccountInfo; devInbox: boolean; secret: string } | null = null;
let generation = 0;
let timers: number[] = [];

/** Whether the API offers the dev inbox (every install since issue 30; an older API answers 404). */
async function probeDevInbox(secret: string): Promise<boolean> {
  try {
    await createApi(secret).get("/v1/dev-inbox/messages?limit=1");
    return true;
  } catch {
    return false;
  }
}

async function signIn(secret: string): Promise<void> {
  const api = createApi(secret);
  const key = await api.get<KeyInfo>("/v1/key");
  storeKey(secret);
  session = {
    key,
    account: await api.get<AccountInfo>("/v1/account"),
    // Only a `send` key may read the dev inbox: probing with another (an `audit` key) is a 403 in the console.
    devInbox: key.scopes.includes("send") && (await probeDevInbox(secret)),
    secret,
  };
}

function signOut(): void {
  void signOutPerson(session?.secret ?? storedKey() ?? undefined);
  storeKey(null);
  session = null;
  location.hash = "#/";
  void route();
}

/** The paused account's banner (issue 31): why, since when, and that accepted mail waits for a resume. */
function renderBanner(account: AccountInfo | undefined): void {
  const paused = account?.sendingStatus === "paused" ? account.paused : null;
  banner.hidden = !paused;
  if (!paused || !account) {
    show(banner);
    return;
  }
  show(
    banner,
    `Sending is paused for ${account.account} since ${new Date(paused.at).toLocaleString()}` +
      `${paused.reason ? ` (${paused.reason})` : ""}. New sends are refused; mail already accepted is held ` +
      "until the account is resumed (POST /v1/account/resume with a key holding the domains scope).",
  );
}

function renderChrome(active: string): void {
  renderBanner(session?.account);
  if (!session) {
    show(nav);
    show(who);
    return;
  }
  const s = session;
  show(
    nav,
    SECTIONS.filter((section) => section.allowed(s.key, s.devInbox)).map((section) =>
      h(
        "a",
        { href: `#/${section.path}`, "aria-current": section.path === active ? "page" : null },
        section.label,
      ),
    ),
  );
  show(
    who,
    h("span", { class: "muted", title: `account ${s.key.account}` }, signedInPerson() || s.key.keyId),
    accountSwitcher(s.key.account, s.secret),
    h("button", { type: "button", class: "link", onclick: signOut }, "Sign out"),
  );
}

async function route(): Promise<void> {
  generation += 1;
  const mine = generation;
  for (const t of timers) clearInterval(t);
  timers = [];
  let notice: string | undefined;
  if (!session) {
    // The provider's answer to a person's sign-in (oidc.ts), if this page load is one.
    await finishOidcSignIn().then(
      (key) => key && storeKey(key),
      (error: unknown) => {
        notice = errorText(error);
      },
    );
    const secret = storedKey();
    if (secret) {
      try {
        await signIn(secret);
      } catch (error) {
        storeKey(null);
        if (signedInPerson() !== null) notice = `You were signed out: ${errorText(error)}`;
        void signOutPerson(undefined);
      }
    }
  }
  if (mine !== generation) return;
  const [path = "", ...params] = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (!session) {
    renderChrome("");
    signInView(
      app,
      async (secret) => {
        await signIn(secret);
        await route();
      },
      notice,
    );
    return;
  }
  const s = session;
  const allowed = SECTIONS.filter((section) => section.allowed(s.key, s.devInbox));
  const section = allowed.find((x) => x.path === path);
  const refused = SECTIONS.find((x) => x.path === path && x.needs);
  if (!section && refused) {
    renderChrome("");
    show(
      app,
      h("h1", {}, refused.label),
      h(
        "p",
        { id: "scope-refused" },
        `${refused.label} needs a key with the ${refused.needs} scope; this key has `,
        `${s.key.scopes.join(", ") || "none"}. Sign in with a key (or a role) that holds it.`,
      ),
    );
    focusMain(app);
    return;
  }
  if (!section) {
    const first = allowed[0];
    if (first) location.hash = `#/${first.path}`;
    else show(app, h("p", {}, "This key has no scope the console can show."));
    renderChrome("");
    return;
  }
  renderChrome(section.path);
  const ctx: ViewContext = {
    api: createApi(s.secret),
    key: s.key,
    current: () => mine === generation,
    every: (ms, fn) => {
      timers.push(window.setInterval(() => mine === generation && void fn(), ms));
    },
  };
  const view = params.length > 0 && section.detail ? section.detail : section.list;
  try {
    show(app, h("p", { class: "muted" }, "Loading…"));
    await view(ctx, app, params);
  } catch (error) {
    if (!ctx.current()) return;
    if (error instanceof ApiError && error.status === 401) return signOut();
    show(app, h("p", { class: "error", role: "alert" }, errorText(error)));
  }
  if (ctx.current()) focusMain(app);
}

installKeyboard(app);
window.addEventListener("hashchange", () => void route());
void route();
