// @ts-check
/**
 * The connection to the server: says hello with the name and the token kept in localStorage,
 * stores the new token every welcome brings (tokens rotate), and comes back after a drop, reading
 * the stored token again (another tab may have traded it meanwhile). Signing in to an account
 * tries the username and password on a connection of its own, which takes over once welcomed,
 * so that a refused try leaves the page as it was; it presents the device cookie the account gave
 * this browser before, and keeps the one each welcome brings.
 */

const TOKEN = "noughts.token";
const NAME = "noughts.name";
const USERNAME = "noughts.username";
const DEVICE_COOKIES = "noughts.deviceCookies";

/** The name to play under: the one chosen before, else a generated one. */
export function storedName() {
  let name = localStorage.getItem(NAME);
  if (!name) {
    name = "guest-" + Math.floor(1000 + Math.random() * 9000);
    localStorage.setItem(NAME, name);
  }
  return name;
}

/** Keeps a new name for the next hello. */
export function storeName(/** @type {string} */ name) {
  localStorage.setItem(NAME, name);
}

/** The account this page is signed in to (as the last `welcome` said), or null for a guest. */
export function storedUsername() {
  return localStorage.getItem(USERNAME);
}

/**
 * Keeps the account's username (null forgets it, as a guest). A guest's name that is the
 * account's username goes with it, so that the guest the page becomes is not shown under it.
 */
export function storeUsername(/** @type {string | null} */ username) {
  const before = localStorage.getItem(USERNAME);
  if (username) localStorage.setItem(USERNAME, username);
  else localStorage.removeItem(USERNAME);
  if (before && before !== username && localStorage.getItem(NAME) === before) localStorage.removeItem(NAME);
}

/** The device cookies this browser was given, by username in lower case. */
function deviceCookies() {
  try {
    const cookies = JSON.parse(localStorage.getItem(DEVICE_COOKIES) || "{}");
    return cookies && typeof cookies === "object" ? cookies : {};
  } catch {
    return {};
  }
}

/**
 * The device cookie the account `username` gave this browser, if any: signing in with it shows
 * the server that this browser signed in before, so strangers' wrong passwords do not make it wait.
 */
export function storedDeviceCookie(/** @type {string} */ username) {
  const cookie = deviceCookies()[username.toLowerCase()];
  return typeof cookie === "string" ? cookie : null;
}

/** Keeps the device cookie a `welcome` or `registered` for `username` brought, if any. */
export function storeDeviceCookie(/** @type {string} */ username, /** @type {any} */ cookie) {
  if (typeof cookie !== "string") return;
  const cookies = deviceCookies();
  cookies[username.toLowerCase()] = cookie;
  localStorage.setItem(DEVICE_COOKIES, JSON.stringify(cookies));
}

/** What this browser calls itself in the account's list of sessions: "Chrome on Linux". */
export function deviceLabel() {
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? "Firefox" : /Edg\//.test(ua) ? "Edge"
    : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "A browser";
  const system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS"
    : /Windows/.test(ua) ? "Windows" : /Mac OS X/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : "";
  return system ? `${browser} on ${system}` : browser;
}

export class Connection {
  /**
   * @param {(message: any) => void} onMessage every message from the server
   * @param {(status: string) => void} onStatus "online", "connecting…", "offline", "logged out"
   * @param {(username: string) => void} onSignedOut the account's session here has ended
   *   elsewhere (revoked, a password changed, the account closed): the page is a new guest now
   */
  constructor(onMessage, onStatus, onSignedOut) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onSignedOut = onSignedOut;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.nextId = 1;
    this.welcomed = false;
    this.attempt = 0;
    /** The server is about to close the connection because the player logged out here. */
    this.loggedOut = false;
    /** A sign-in being tried on a connection of its own. @type {WebSocket | null} */
    this.trying = null;
  }

  /** The address of the server's socket. */
  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/`;
  }

  connect() {
    const ws = new WebSocket(this.url());
    this.welcomed = false;
    this.onStatus("connecting…");
    ws.onopen = () => this.hello(ws, localStorage.getItem(TOKEN));
    this.adopt(ws);
  }

  /** Makes `ws` the page's connection: its messages and its end are the page's from now on. */
  adopt(/** @type {WebSocket} */ ws) {
    this.ws = ws;
    ws.onmessage = (event) => {
      const message = parse(event.data);
      if (!message) return;
      if (!this.welcomed) {
        if (message.type === "welcome") {
          this.welcomed = true;
          this.attempt = 0;
          this.welcome(message);
        } else if (message.type === "error" && message.code === "unknown_token") {
          // The server no longer knows us (or this device was signed out): start afresh as a
          // new player.
          localStorage.removeItem(TOKEN);
          const username = storedUsername();
          storeUsername(null);
          if (username) this.onSignedOut(username);
          this.hello(ws, null);
          return;
        }
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      // A connection replaced by a sign-in says nothing.
      if (ws !== this.ws) return;
      this.welcomed = false;
      if (event.code === 1000 && this.loggedOut) {
        // Logged out (or the account closed): the page goes on as a new guest.
        this.loggedOut = false;
        localStorage.removeItem(TOKEN);
        storeUsername(null);
        this.onStatus("logged out");
        this.connect();
        return;
      }
      this.onStatus("offline");
      this.attempt += 1;
      const wait = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5));
      setTimeout(() => this.connect(), wait);
    };
  }

  /** Keeps the welcome's token and says the page is online. */
  welcome(/** @type {any} */ message) {
    localStorage.setItem(TOKEN, message.token);
    this.onStatus("online");
  }

  /**
   * @param {WebSocket} ws
   * @param {string | null} token
   * @param {{username: string, password: string, device: string, device_cookie?: string}} [credentials]
   */
  hello(ws, token, credentials) {
    /** @type {any} */
    const hello = { type: "hello", id: this.nextId++, protocol: 2, name: storedName(), ...credentials };
    if (token) hello.token = token;
    ws.send(JSON.stringify(hello));
  }

  /**
   * Signs in to the account `username` on a connection of its own; once welcomed it becomes the
   * page's connection (the guest's is closed and its token forgotten here). A refusal (or a
   * connection that fails) goes to `onRefused`, and the page stays as it was.
   * @param {string} username
   * @param {string} password
   * @param {(error: any) => void} onRefused the server's error, or `{code: "offline"}`
   */
  signIn(username, password, onRefused) {
    this.trying?.close();
    const ws = new WebSocket(this.url());
    this.trying = ws;
    let answered = false;
    /** @type {{username: string, password: string, device: string, device_cookie?: string}} */
    const credentials = { username, password, device: deviceLabel() };
    const cookie = storedDeviceCookie(username);
    if (cookie) credentials.device_cookie = cookie;
    ws.onopen = () => this.hello(ws, null, credentials);
    ws.onmessage = (event) => {
      const message = parse(event.data);
      if (!message || answered) return;
      answered = true;
      this.trying = null;
      if (message.type !== "welcome") {
        ws.close();
        onRefused(message);
        return;
      }
      storeUsername(username);
      storeDeviceCookie(username, message.device_cookie);
      const old = this.ws;
      this.welcomed = true;
      this.attempt = 0;
      this.adopt(ws);
      if (old) {
        old.onmessage = null;
        old.close();
      }
      this.welcome(message);
      // Marked, so that the page tells it from the welcome of a connection coming back.
      this.onMessage({ ...message, signedIn: username });
    };
    ws.onclose = () => {
      if (answered) return;
      answered = true;
      this.trying = null;
      onRefused({ code: "offline", message: "the connection failed" });
    };
  }

  /**
   * Sends a request (dropped while offline: the state comes back with the snapshots).
   * @param {any} request
   * @returns {number} its id
   */
  send(request) {
    const id = this.nextId++;
    if (this.ws && this.ws.readyState === WebSocket.OPEN && this.welcomed) {
      this.ws.send(JSON.stringify({ ...request, id }));
    }
    return id;
  }

  /** Closes the connection to say hello again (as a new player once the token is forgotten). */
  reconnect() {
    this.ws?.close();
  }
}

/** A frame's message, or null when it is not JSON. */
function parse(/** @type {any} */ data) {
  try {
    return JSON.parse(String(data));
  } catch {
    return null;
  }
}
