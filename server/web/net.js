// @ts-check
/**
 * The connection to the server: says hello with the name and the token kept in localStorage,
 * stores the new token every welcome brings (tokens rotate), and comes back after a drop, reading
 * the stored token again (another tab may have traded it meanwhile).
 */

const TOKEN = "noughts.token";
const NAME = "noughts.name";

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

export class Connection {
  /**
   * @param {(message: any) => void} onMessage every message from the server
   * @param {(status: string) => void} onStatus "online", "connecting…", "offline"
   */
  constructor(onMessage, onStatus) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.nextId = 1;
    this.welcomed = false;
    this.attempt = 0;
    this.loggedOut = false;
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/`);
    this.ws = ws;
    this.welcomed = false;
    this.onStatus("connecting…");
    ws.onopen = () => this.hello(localStorage.getItem(TOKEN));
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (!this.welcomed) {
        if (message.type === "welcome") {
          localStorage.setItem(TOKEN, message.token);
          this.welcomed = true;
          this.attempt = 0;
          this.onStatus("online");
        } else if (message.type === "error" && message.code === "unknown_token") {
          // The server no longer knows us: start afresh as a new player.
          localStorage.removeItem(TOKEN);
          this.hello(null);
          return;
        }
      }
      this.onMessage(message);
    };
    ws.onclose = (event) => {
      this.welcomed = false;
      if (event.code === 1000 && this.loggedOut) {
        this.onStatus("logged out");
        return;
      }
      this.onStatus("offline");
      this.attempt += 1;
      const wait = Math.min(10000, 500 * 2 ** Math.min(this.attempt, 5));
      setTimeout(() => this.connect(), wait);
    };
  }

  /** @param {string | null} token */
  hello(token) {
    /** @type {any} */
    const hello = { type: "hello", id: this.nextId++, protocol: 2, name: storedName() };
    if (token) hello.token = token;
    this.ws?.send(JSON.stringify(hello));
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
