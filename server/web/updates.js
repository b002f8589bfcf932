// @ts-check
/**
 * Applies the server's updates of a game (`moved`, `game_over`, `presence`, `chat`, offers,
 * takebacks) to the game the page holds, announcing to screen readers what changed on screen.
 */

import { cellName } from "./board.js";
import { headline, howText } from "./game.js";
import { chime } from "./sound.js";

/** An update to a game held: applied if newer than what is held; true if it is on screen. */
export function applyUpdate(/** @type {any} */ state, /** @type {any} */ message, /** @type {(text: string) => void} */ announce) {
  const game = state.games.get(message.game);
  if (!game || message.seq === undefined || message.seq <= game.seq) return false;
  game.seq = message.seq;
  // A note (an offer declined) belongs to the moment: the next move or the end takes it away.
  if (["moved", "game_over", "taken_back"].includes(message.type)) game.note = null;
  const shown = state.view === "game" && state.current === message.game;
  switch (message.type) {
    case "moved":
      game.board = message.board;
      game.moves.push(message.cell);
      game.to_move = message.to_move ?? null;
      game.offer = null;
      setClocks(game, message.clocks);
      if (game.you && game.to_move === game.you) chime("move");
      if (shown) {
        const yours = game.you && game.to_move === game.you ? " Your move." : "";
        announce(`${message.mark.toUpperCase()} ${cellName(game.variant, message.cell)}.${yours}`);
      }
      break;
    case "game_over":
      game.board = message.board;
      game.result = message.result;
      game.ratings = message.ratings ?? null;
      game.to_move = null;
      game.offer = null;
      setClocks(game, message.clocks ?? (game.clocks ? { ...game.clocks, running: null } : null));
      if (shown) {
        const mine = game.you && game.ratings ? ` Your rating ${game.ratings[game.you].rating}.` : "";
        announce(`${headline(game)}, ${howText(game.result, game.variant)}.${mine}`);
      }
      break;
    case "presence":
      game[message.mark].connected = message.connected;
      game.away ??= {};
      if (message.connected || message.grace_ms === undefined) delete game.away[message.mark];
      else game.away[message.mark] = { grace_ms: message.grace_ms, claim_ms: message.claim_ms ?? message.grace_ms, at: performance.now() };
      game.claimReady = false;
      break;
    case "watchers": game.watchers = message.count; break;
    case "chat":
      state.chatSent.delete(message.id);
      game.chat.push({ from: message.from, player: message.player, mark: message.mark, text: message.text, guest: message.guest, bot: message.bot });
      break;
    case "rematch_offered": game.rematchBy = message.by; game.rematchNote = null; break;
    case "offered": game.offer = { by: message.by, offer: message.offer }; game.note = null; break;
    case "declined": case "withdrawn": {
      const note = offerNote(game, message);
      if (message.offer === "rematch") {
        game.rematchBy = null;
        game.rematchNote = note;
      } else {
        game.offer = null;
        game.note = note;
      }
      if (shown) announce(note);
      break;
    }
    case "taken_back":
      game.board = message.board;
      game.moves = message.moves;
      game.to_move = message.to_move;
      game.offer = null;
      setClocks(game, message.clocks);
      game.note = !game.you ? "A move was taken back."
        : message.by === game.you ? "Takeback accepted: your move was taken back."
          : `You let ${game[game.you === "x" ? "o" : "x"]?.name ?? "your opponent"} take back their move.`;
      if (shown) announce(game.note);
      break;
  }
  return shown;
}

/** What became of an offer (`declined` or `withdrawn`), in the first person where it is ours. */
function offerNote(/** @type {any} */ game, /** @type {any} */ message) {
  const what = { draw: "draw offer", takeback: "takeback request", rematch: "rematch offer" }[/** @type {string} */ (message.offer)] ?? "offer";
  const maker = game[message.by]?.name ?? message.by.toUpperCase();
  const other = game[message.by === "x" ? "o" : "x"]?.name ?? "Your opponent";
  if (message.type === "withdrawn") {
    return message.by === game.you ? `You withdrew your ${what}.` : `${maker} withdrew their ${what}.`;
  }
  if (message.by === game.you) return `${other} declined your ${what}.`;
  return game.you ? `You declined ${maker}'s ${what}.` : `${other} declined ${maker}'s ${what}.`;
}

/** Takes an update's clocks, if it carries them, as of now. */
function setClocks(/** @type {any} */ game, /** @type {any} */ clocks) {
  if (clocks) {
    game.clocks = clocks;
    game.receivedAt = performance.now();
  }
}
