//! `noughts logout`: ends this client's identity on a server. Every token of the player stops
//! working at once (on every machine that shared it), its live games are resigned, and the token
//! file forgets it; the next `noughts` there starts as a new player.

use anyhow::bail;
use noughts_protocol::{ClientMessage, ServerMessage};

use crate::net::{LOGGED_OUT, Link};

/// Asks the server to log this player out; done when the server closes the connection for it.
pub async fn run(mut link: Link) -> anyhow::Result<()> {
    loop {
        let message = match link.next_message().await {
            Ok(message) => message,
            Err(ended) if ended.to_string() == LOGGED_OUT => {
                println!("logged out: this identity's tokens no longer work anywhere");
                return Ok(());
            }
            Err(ended) => return Err(ended),
        };
        match message {
            ServerMessage::Welcome { resumed, .. } => {
                if !resumed {
                    // The server knew the token but had no session for it: logging out still
                    // revokes every token of the player.
                    eprintln!("(no game was in progress)");
                }
                link.send(ClientMessage::Logout);
            }
            ServerMessage::Error { code, message } => {
                bail!("the server refused to log out: {message} ({code})")
            }
            _ => {}
        }
    }
}
