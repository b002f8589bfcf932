//! What a screen asks of the app when a key is pressed: send a request, open a box, switch a tab,
//! open a replay, leave, quit. The app applies them; no screen reaches into the app.

use noughts_protocol::{ArenaId, ClientMessage, GameId, PlayerId};

use super::modal::Modal;
use super::tab::Tab;

/// One thing a screen wants done.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Send this request to the server.
    Send(ClientMessage),
    /// Show a line in the footer.
    Say(String),
    /// Put up a box over the screen.
    Open(Modal),
    /// Show a lobby tab (asking the server for what it lists).
    ShowTab(Tab),
    /// Show a player's history (`None`: our own) on the history tab.
    ShowHistory {
        player: Option<PlayerId>,
        name: Option<String>,
    },
    /// Ask for a stored game's record and replay it.
    OpenReplay(GameId),
    /// Put our mark on this cell of the game on screen.
    Place(usize),
    /// Back from the game to the lobby.
    LeaveGame,
    /// Back from the replay to where it was opened from.
    LeaveReplay,
    /// Watch the next war game, or start one.
    WatchWarGame,
    /// Open an arena's standings (following them).
    OpenArena(ArenaId),
    /// Back from the arena's standings to the lobby (no longer following them).
    LeaveArena,
    /// Leave the program.
    Quit,
}
