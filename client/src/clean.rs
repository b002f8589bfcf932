//! Text from the server, cleaned once as it arrives: every name, invite code, chat line and
//! message in a server's frame passes through [`noughts_protocol::sanitize`] here, before any
//! mode or screen sees it, so nothing drawn or printed later needs to think about it again.

use noughts_protocol::{
    ArenaInfo, ArenaLine, ChatLine, GameInfo, GameState, RecordSeat, RoomInfo, SeatInfo,
    ServerMessage, sanitize,
};

/// Cleans every piece of text in `message` that came from other people or from the server.
pub fn clean(message: &mut ServerMessage) {
    match message {
        ServerMessage::Welcome { name, .. } | ServerMessage::Renamed { name } => clean_text(name),
        ServerMessage::Error { message, .. }
        | ServerMessage::Shutdown { message }
        | ServerMessage::GamePaused { message, .. } => clean_text(message),
        ServerMessage::Lobby {
            rooms,
            games,
            seeks,
            ..
        } => {
            seeks.iter_mut().for_each(|s| clean_text(&mut s.name));
            rooms.iter_mut().for_each(room);
            games.iter_mut().for_each(game);
        }
        ServerMessage::LobbyUpdate(update) => {
            update
                .seeks
                .iter_mut()
                .for_each(|s| clean_text(&mut s.name));
            update.rooms.iter_mut().for_each(room);
            update.rooms_removed.iter_mut().for_each(clean_text);
            update.games.iter_mut().for_each(game);
        }
        ServerMessage::GameList { games, .. } => games.iter_mut().for_each(game),
        ServerMessage::RoomCreated { code, .. } => clean_text(code),
        ServerMessage::GameState(state) => snapshot(state),
        ServerMessage::Chat { line: said, .. } => line(said),
        ServerMessage::Leaderboard { players, .. } => {
            players.iter_mut().for_each(|p| clean_text(&mut p.name));
        }
        ServerMessage::History { games, .. } => games.iter_mut().for_each(|g| {
            record_seat(&mut g.x);
            record_seat(&mut g.o);
        }),
        ServerMessage::GameRecord(record) => {
            record_seat(&mut record.x);
            record_seat(&mut record.o);
        }
        ServerMessage::Profile(profile) => {
            clean_text(&mut profile.name);
            profile
                .podiums
                .iter_mut()
                .for_each(|p| clean_text(&mut p.name));
        }
        ServerMessage::ArenaList { arenas, .. } => arenas.iter_mut().for_each(arena_info),
        ServerMessage::ArenaCreated { info, code } => {
            arena_info(info);
            code.iter_mut().for_each(clean_text);
        }
        ServerMessage::Arena(view) => {
            arena_info(&mut view.info);
            let lines = view.top.iter_mut().chain(view.me.iter_mut());
            lines.chain(view.podium.iter_mut()).for_each(arena_line);
        }
        ServerMessage::ArenaPage { lines, .. } => lines.iter_mut().for_each(arena_line),
        ServerMessage::LeagueTable(table) => table
            .standings
            .iter_mut()
            .for_each(|s| clean_text(&mut s.name)),
        ServerMessage::ModerationList { muted, blocked } => muted
            .iter_mut()
            .chain(blocked.iter_mut())
            .for_each(|p| clean_text(&mut p.name)),
        ServerMessage::Registered { username, .. } => clean_text(username),
        ServerMessage::SessionList { sessions } => sessions
            .iter_mut()
            .filter_map(|s| s.device.as_mut())
            .for_each(clean_text),
        ServerMessage::Ok
        | ServerMessage::Pong
        | ServerMessage::Seeking { .. }
        | ServerMessage::Moved { .. }
        | ServerMessage::GameOver { .. }
        | ServerMessage::Presence { .. }
        | ServerMessage::Watchers { .. }
        | ServerMessage::RematchOffered { .. }
        | ServerMessage::Offered { .. }
        | ServerMessage::Declined { .. }
        | ServerMessage::Withdrawn { .. }
        | ServerMessage::TakenBack { .. }
        | ServerMessage::GameAnalysis { .. }
        | ServerMessage::ArenaJoined { .. } => {}
    }
}

fn arena_info(info: &mut ArenaInfo) {
    clean_text(&mut info.name);
    info.creator.iter_mut().for_each(clean_text);
}

fn arena_line(line: &mut ArenaLine) {
    clean_text(&mut line.name);
}

/// Cleans a reason the server gave in words (a close frame's, say).
pub fn clean_text(text: &mut String) {
    *text = sanitize(text);
}

fn snapshot(state: &mut GameState) {
    seat(&mut state.x);
    seat(&mut state.o);
    state.chat.iter_mut().for_each(line);
}

fn game(game: &mut GameInfo) {
    seat(&mut game.x);
    seat(&mut game.o);
}

fn room(room: &mut RoomInfo) {
    clean_text(&mut room.host);
    clean_text(&mut room.code);
}

fn seat(seat: &mut SeatInfo) {
    clean_text(&mut seat.name);
}

fn record_seat(seat: &mut RecordSeat) {
    clean_text(&mut seat.name);
}

fn line(line: &mut ChatLine) {
    clean_text(&mut line.from);
    clean_text(&mut line.text);
}

#[cfg(test)]
mod tests {
    use noughts_protocol::{GameId, ServerFrame};

    use super::*;

    #[test]
    fn every_name_and_line_of_a_snapshot_is_cleaned() {
        let json = r#"{"type":"game_state","game":1,"variant":"classic","kind":"human",
            "x":{"name":"\u001b[31mada","player":1,"connected":true},
            "o":{"name":"bob\u202e","player":2,"connected":true},
            "board":".........","moves":[],"to_move":"x","seq":1,"watchers":0,"rated":false,
            "chat":[{"from":"\u001b]0;evil\u0007x","text":"hi\u001b[2J"}]}"#;
        let mut frame: ServerFrame = serde_json::from_str(json).expect("a snapshot");
        clean(&mut frame.message);
        let ServerMessage::GameState(state) = frame.message else {
            unreachable!()
        };
        for text in [
            &state.x.name,
            &state.o.name,
            &state.chat[0].from,
            &state.chat[0].text,
        ] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{202e}'),
                "{text:?}"
            );
        }
        assert_eq!(state.game, GameId(1));
    }
}
