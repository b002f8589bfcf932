// @ts-check
/**
 * The account view (`#account`): a guest signs up (the guest becomes the account, keeping its
 * games and ratings) or signs in; an account lists its sessions and ends one, changes its
 * password, closes itself, and logs out. The server's errors are shown beside the field they
 * concern, in words, with their code kept in `data-code`.
 */

import { deviceLabel, storeDeviceCookie, storedUsername, storeUsername } from "./net.js";
import { el } from "./views.js";

/**
 * The page's account state.
 * @typedef {{form: string, field: string | null, text: string, code: string}} Refusal
 */
export const account = {
  /** The account this page is signed in to; null for a guest. */ username: storedUsername(),
  /** The account's sessions, once listed. @type {any[] | null} */ sessions: null,
  /** The last refusal, shown beside its field (or atop its form). @type {Refusal | null} */ refusal: null,
  /** What each request waiting for its answer was, by request id. @type {Map<number, string>} */ waiting: new Map(),
  /** A sign-in is being tried. */ signingIn: false,
  /** Closing the account waits for its confirmation. */ confirmClose: false,
  /** What was done last, said at the top of the view. */ done: "",
  /** What to say once the server has closed the connection of an account just closed. */ farewell: "",
};

/**
 * What the account view needs from the page.
 * @typedef {{send: (request: any) => number, render: () => void, player: number | null,
 *   signIn: (username: string, password: string) => void, logout: () => void,
 *   closed: (username: string) => void}} AccountActions
 */

/**
 * The account view's actions on the page's connection.
 * @param {import("./net.js").Connection} net
 * @param {() => void} render
 * @param {() => number | null} player
 * @returns {AccountActions}
 */
export function accountActionsFor(net, render, player) {
  return {
    send: (request) => net.send(request),
    render,
    get player() { return player(); },
    // Signs in on a connection of its own; a refusal is shown beside the form.
    signIn: (username, password) => net.signIn(username, password, (error) => {
      account.signingIn = false;
      account.refusal = refusal("signin", error);
      render();
    }),
    // The server closes every connection of the player, and the page starts as a guest.
    logout: () => {
      net.loggedOut = true;
      account.waiting.set(net.send({ type: "logout" }), "logout");
    },
    // The account is closed: the server closes the connection next.
    closed: (username) => {
      net.loggedOut = true;
      account.farewell = `The account ${username} is closed: you play as a new guest now.`;
    },
  };
}

/** The value typed into the field `id` ("" when there is none). */
function value(/** @type {string} */ id) {
  return /** @type {HTMLInputElement | null} */ (document.getElementById(id))?.value ?? "";
}

/** Empties the password fields, once they have been sent. */
function clearPasswords() {
  for (const input of document.querySelectorAll("#main input[type=password]")) {
    /** @type {HTMLInputElement} */ (input).value = "";
  }
}

/** Sends `request` for the form `form`, and remembers what its answer is for. */
function ask(/** @type {AccountActions} */ actions, /** @type {string} */ form, /** @type {any} */ request) {
  account.refusal = null;
  account.done = "";
  account.waiting.set(actions.send(request), form);
  actions.render();
}

/** How often the sessions shown are asked for again (the server does not push them). */
const SESSIONS_EVERY_MS = 5000;
/** @type {ReturnType<typeof setInterval> | null} */
let polling = null;

/** Asks for the account's sessions (on showing the view, after each change, and every few seconds while shown). */
export function listSessions(/** @type {AccountActions} */ actions) {
  if (account.username) account.waiting.set(actions.send({ type: "sessions" }), "sessions");
  polling ??= setInterval(() => {
    if (!document.querySelector("[data-key=\"sessions\"]")) {
      if (polling) clearInterval(polling);
      polling = null;
      return;
    }
    if (account.username && ![...account.waiting.values()].includes("sessions")) {
      account.waiting.set(actions.send({ type: "sessions" }), "sessions");
    }
  }, SESSIONS_EVERY_MS);
}

/**
 * Takes in a server message about the account: `registered`, `session_list`, or the `ok` or
 * `error` answering one of the view's requests. Says whether it was one.
 * @param {any} message
 * @param {AccountActions} actions
 */
export function accountMessage(message, actions) {
  if (message.type === "registered") {
    account.username = message.username;
    storeUsername(message.username);
    storeDeviceCookie(message.username, message.device_cookie);
    account.waiting.delete(message.id);
    account.done = `You are now ${message.username}: the same player, with your games and ratings. Sign in with this username and password on any device.`;
    clearPasswords();
    listSessions(actions);
    return true;
  }
  if (message.type === "session_list") {
    account.waiting.delete(message.id);
    account.sessions = message.sessions;
    return true;
  }
  const form = account.waiting.get(message.id);
  if (form === undefined) return false;
  account.waiting.delete(message.id);
  if (message.type === "error") {
    account.refusal = refusal(form, message);
    if (message.code === "not_an_account" && form !== "register") forget();
    return true;
  }
  if (message.type !== "ok") return false;
  if (form === "revoke") {
    account.done = "That session has ended: its device is signed out.";
    listSessions(actions);
  } else if (form === "password") {
    account.done = "Your password is changed. Every other device is signed out.";
    clearPasswords();
    listSessions(actions);
  } else if (form === "close") {
    clearPasswords();
    actions.closed(account.username ?? "");
  }
  return true;
}

/** The page is a guest from now on (logged out, signed out elsewhere, closed). */
export function forget() {
  account.username = null;
  account.sessions = null;
  account.confirmClose = false;
  // Nothing said about the account that was stays behind (a remote sign-out, a closed account).
  account.done = "";
  account.refusal = null;
  storeUsername(null);
}

/**
 * Where a refusal goes and what it says: the field it concerns (null for the whole form) and
 * words that say what to do.
 * @param {string} form
 * @param {any} error `{code, message}`
 * @returns {Refusal}
 */
export function refusal(form, error) {
  const code = String(error.code);
  const current = form === "password" ? "password-current" : form === "close" ? "close-password" : null;
  /** @type {[string | null, string]} */
  const [field, text] = ({
    bad_username: [`${form}-username`, "A username has 2 to 20 characters: ASCII letters, digits, _ and -."],
    username_taken: [`${form}-username`, "That username is taken (whatever its capitals); choose another."],
    weak_password: [form === "password" ? "password-new" : `${form}-password`, "That password is too easy to guess: use at least 8 characters, not a common word, name, date or keyboard pattern."],
    bad_credentials: current ? [current, "That is not your password."] : [null, "That username and password do not match an account."],
    too_many_attempts: [null, `Too many wrong passwords: ${retryText(String(error.message))}`],
    insecure_transport: [null, "Passwords are taken only over an encrypted (https) connection, and this one is not."],
    not_an_account: [null, form === "register" ? "This player has an account already." : "This page is not signed in to an account any more."],
    no_such_session: [null, "That session has ended already."],
    offline: [null, "The server cannot be reached just now; try again."],
  }[code] ?? [null, `The server refused that: ${error.message}`]);
  return { form, field, text, code };
}

/** "try again in 4 seconds (at 10:42:07)." from a message ending "retry after 4000 ms". */
export function retryText(/** @type {string} */ message) {
  const match = /retry after (\d+) ms/.exec(message);
  if (!match) return "wait a while and try again.";
  const ms = Number(match[1]);
  const at = new Date(Date.now() + ms).toLocaleTimeString();
  const seconds = Math.ceil(ms / 1000);
  const span = seconds < 120 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minutes`;
  return `try again in ${span} (at ${at}).`;
}

/**
 * A labelled input, its hint, and the refusal that concerns it (announced, and linked to the
 * input as its description).
 * @param {string} id
 * @param {string} label
 * @param {Record<string, string | boolean>} attrs
 * @param {string} [hint]
 */
function field(id, label, attrs, hint) {
  const error = account.refusal?.field === id ? account.refusal : null;
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return el("div", { class: "field", "data-key": `field-${id}` },
    el("label", { for: id }, label),
    el("input", { id, name: id, required: true, ...attrs, "aria-invalid": error ? "true" : "false", "aria-describedby": described || false }),
    hint ? el("small", { id: `${id}-hint`, class: "dim" }, hint) : null,
    error ? el("small", { id: `${id}-error`, class: "field-error", role: "alert", "data-code": error.code }, error.text) : null);
}

/** The refusal of `form` that concerns no one field, atop its button. */
function formError(/** @type {string} */ form) {
  const error = account.refusal?.form === form && account.refusal.field === null ? account.refusal : null;
  return error ? el("p", { id: `${form}-error`, class: "field-error", role: "alert", "data-code": error.code }, error.text) : null;
}

/**
 * A form whose submission (a button, or Enter in a field) runs `submit`.
 * @param {string} id
 * @param {string} title
 * @param {() => void} submit
 * @param {...(Node | string | null)} children
 */
function form(id, title, submit, ...children) {
  return el("form", {
    id: `${id}-form`, class: "account-form", "aria-labelledby": `${id}-title`, novalidate: true,
    onsubmit: (event) => {
      event.preventDefault();
      const empty = /** @type {HTMLInputElement | null} */ (document.querySelector(`#${id}-form input:invalid`));
      if (empty) {
        empty.focus();
        return;
      }
      submit();
    },
  }, el("h3", { id: `${id}-title` }, title), ...children);
}

/**
 * The view: sign up and sign in for a guest; sessions, password, closing and logging out for an
 * account.
 * @param {AccountActions} actions
 */
export function accountView(actions) {
  const done = account.done ? el("p", { id: "account-done", role: "status" }, account.done) : null;
  if (!account.username) return el("section", { class: "panel account", "data-key": "account-guest", "aria-labelledby": "account-title" },
    el("h2", { id: "account-title" }, "Account"),
    done,
    el("p", {}, `You play as a guest (player #${actions.player ?? "?"}): your games and ratings live in this browser. Sign up to keep them under a username, or sign in to an account you have.`),
    el("div", { class: "account-forms" }, signUpForm(actions), signInForm(actions)));
  return el("section", { class: "panel account", "data-key": "account-member", "aria-labelledby": "account-title" },
    el("h2", { id: "account-title" }, "Account"),
    done,
    el("p", {}, `Signed in as `, el("strong", { id: "account-username" }, account.username), ` (player #${actions.player ?? "?"}).`),
    sessionsList(actions),
    el("div", { class: "account-forms" }, passwordForm(actions), closeForm(actions)),
    el("div", { class: "row" },
      el("button", { type: "button", id: "logout", onclick: () => actions.logout() }, "Log out"),
      el("span", { class: "dim" }, "This device is signed out; your other devices stay signed in and your games go on.")));
}

/** A new password's field (`id`), and the same again (`FORM-confirm`). */
function newPassword(/** @type {string} */ form, /** @type {string} */ id, /** @type {string} */ label) {
  const attrs = { type: "password", autocomplete: "new-password", maxlength: "128" };
  return [field(id, label, attrs, "At least 8 characters, hard to guess"), field(`${form}-confirm`, `${label} again`, attrs)];
}

/** Whether the new password `id` was typed the same twice; if not, that is said beside the second. */
function agreed(/** @type {string} */ form, /** @type {string} */ id, /** @type {AccountActions} */ actions) {
  if (value(id) === value(`${form}-confirm`)) return true;
  account.refusal = { form, field: `${form}-confirm`, text: "The two passwords differ.", code: "mismatch" };
  actions.render();
  return false;
}

function signUpForm(/** @type {AccountActions} */ actions) {
  const submit = () => {
    if (!agreed("register", "register-password", actions)) return;
    ask(actions, "register", { type: "register", username: value("register-username"), password: value("register-password"), device: deviceLabel() });
  };
  return form("register", "Sign up", submit,
    el("p", { class: "dim" }, "This guest becomes the account: its games and ratings stay."),
    field("register-username", "Username", { autocomplete: "username", maxlength: "20", spellcheck: "false", autocapitalize: "none" }, "2 to 20 letters, digits, _ and -"),
    ...newPassword("register", "register-password", "Password"),
    formError("register"),
    el("button", { type: "submit", id: "register" }, "Sign up"));
}

function signInForm(/** @type {AccountActions} */ actions) {
  const submit = () => {
    account.refusal = null;
    account.done = "";
    account.signingIn = true;
    actions.signIn(value("signin-username"), value("signin-password"));
    actions.render();
  };
  return form("signin", "Sign in", submit,
    el("p", { class: "dim" }, "To an account you have: this page becomes that player (this guest stays behind)."),
    field("signin-username", "Username", { autocomplete: "username", maxlength: "20", spellcheck: "false", autocapitalize: "none" }),
    field("signin-password", "Password", { type: "password", autocomplete: "current-password", maxlength: "128" }),
    formError("signin"),
    el("button", { type: "submit", id: "signin", disabled: account.signingIn }, account.signingIn ? "Signing in…" : "Sign in"));
}

/** The account's sessions, newest first, each with when and from which network it was last seen, and a button to end it. */
function sessionsList(/** @type {AccountActions} */ actions) {
  const rows = (account.sessions ?? []).map((session) => {
    const device = session.device ?? "A device with no name";
    const from = session.network ? ` from ${session.network}` : "";
    const seen = `last seen ${seenText(session.last_seen_ms)}${from}, signed in ${new Date(session.created_ms).toLocaleDateString()}`;
    return el("li", { "data-key": `session-${session.session}`, "data-session": String(session.session), "data-current": String(session.current) },
      el("span", { class: "device" }, device), ` · ${seen}`,
      session.current ? el("strong", { class: "this-device" }, " · this device")
        : el("button", {
          type: "button", class: "revoke", "data-revoke": String(session.session), "aria-label": `Sign out ${device}, ${seen}`,
          onclick: () => ask(actions, "revoke", { type: "revoke_session", session: session.session }),
        }, "Sign out"));
  });
  return el("section", { "aria-labelledby": "sessions-title", "data-key": "sessions" },
    el("h3", { id: "sessions-title" }, "Signed-in devices"),
    account.sessions === null ? el("p", { class: "dim" }, "Listing…") : el("ul", { id: "sessions" }, ...rows),
    formError("revoke"),
    el("p", { class: "hint" }, "The list keeps itself up to date."));
}

/** "just now", "5 min ago", "3 h ago", else the date. */
function seenText(/** @type {number} */ ms) {
  const ago = Math.max(0, Date.now() - ms) / 1000;
  if (ago < 60) return "just now";
  if (ago < 3600) return `${Math.floor(ago / 60)} min ago`;
  if (ago < 86400) return `${Math.floor(ago / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

function passwordForm(/** @type {AccountActions} */ actions) {
  const submit = () => {
    if (!agreed("password", "password-new", actions)) return;
    ask(actions, "password", { type: "change_password", password: value("password-current"), new_password: value("password-new") });
  };
  return form("password", "Change the password", submit,
    el("p", { class: "dim" }, "Every other device is signed out."),
    field("password-current", "Current password", { type: "password", autocomplete: "current-password", maxlength: "128" }),
    ...newPassword("password", "password-new", "New password"),
    formError("password"),
    el("button", { type: "submit", id: "change-password" }, "Change the password"));
}

function closeForm(/** @type {AccountActions} */ actions) {
  const submit = () => {
    if (!account.confirmClose) {
      account.confirmClose = true;
      actions.render();
      return;
    }
    account.confirmClose = false;
    ask(actions, "close", { type: "close_account", password: value("close-password") });
  };
  const confirm = account.confirmClose
    ? el("div", { class: "confirm", role: "group", "aria-label": "Confirm closing the account" },
      el("p", { id: "close-question" }, `Close ${account.username} for good? Every device is signed out, live games are resigned, and nobody can sign in to it again. Its games stay in the records.`),
      el("div", { class: "row" },
        el("button", { type: "submit", id: "close-confirm", class: "danger", "data-autofocus": "true" }, "Yes, close the account"),
        el("button", { type: "button", id: "close-cancel", onclick: () => { account.confirmClose = false; actions.render(); } }, "Keep it")))
    : el("button", { type: "submit", id: "close-account", class: "danger" }, "Close the account…");
  return form("close", "Close the account", submit,
    field("close-password", "Password", { type: "password", autocomplete: "current-password", maxlength: "128" }),
    formError("close"),
    confirm);
}
