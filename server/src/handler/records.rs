//! Questions for the store: leaderboards, history, game records, the engine's verdicts on a
//! finished game's moves, and profiles. Each is answered by a task of its own, so a slow query
//! (or analysis) never holds up the connection's other requests.

use std::future::Future;
use std::time::Duration;

use noughts_protocol::{
    ErrorCode, GameId, GameRecord, History, Leaderboard, PlayerId, RequestId, ServerMessage,
    Variant,
};
use tracing::error;

use super::client::Client;
use super::record_view;
use crate::analysis;
use crate::net::outbound::Outbound;
use crate::store::{Store, StoreError};

/// Entries a list holds when the request does not say.
const DEFAULT_LIMIT: u32 = 20;
/// The most entries one reply lists.
const MAX_LIMIT: u32 = 100;

fn limit(asked: Option<u32>) -> u32 {
    asked.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT)
}

/// Runs `query` on its own task and sends its answer, or the error for it, to `out`.
fn answer<F>(out: Outbound, id: Option<RequestId>, query: F)
where
    F: Future<Output = Result<Result<ServerMessage, (ErrorCode, String)>, StoreError>>
        + Send
        + 'static,
{
    tokio::spawn(async move {
        match query.await {
            Ok(Ok(message)) => {
                out.reply(id, message);
            }
            Ok(Err((code, message))) => {
                out.error(id, code, message);
            }
            Err(err) => {
                error!(cause = %err, "a query failed");
                out.error(
                    id,
                    ErrorCode::Internal,
                    "the server could not read its records",
                );
            }
        }
    });
}

impl Client {
    pub(super) fn leaderboard(&self, id: Option<RequestId>, request: Leaderboard) {
        let Leaderboard {
            variant,
            offset,
            limit: asked,
        } = request;
        let store = self.shared.store.clone();
        let offset = offset.unwrap_or_default();
        answer(self.out.clone(), id, async move {
            let standings = store.leaderboard(variant, offset, limit(asked)).await?;
            let players = record_view::leaderboard(offset, standings);
            Ok(Ok(ServerMessage::Leaderboard {
                variant,
                offset,
                players,
            }))
        });
    }

    /// `history`: `request.player`'s finished games (the viewer's own when none is named), as
    /// `viewer` may see them.
    pub(super) fn history(&self, id: Option<RequestId>, request: History, viewer: PlayerId) {
        let History {
            player,
            before,
            limit: asked,
        } = request;
        let player = player.unwrap_or(viewer);
        let store = self.shared.store.clone();
        answer(self.out.clone(), id, async move {
            Ok(
                match store.history(player, before, limit(asked), viewer).await? {
                    Some((games, more)) => Ok(ServerMessage::History {
                        player,
                        games: games.into_iter().filter_map(record_view::summary).collect(),
                        more,
                    }),
                    None => Err(no_such_player(player)),
                },
            )
        });
    }

    pub(super) fn record(&self, id: Option<RequestId>, game: GameId, viewer: PlayerId) {
        let store = self.shared.store.clone();
        answer(self.out.clone(), id, async move {
            Ok(game_record(&store, game, viewer)
                .await?
                .map(|record| ServerMessage::GameRecord(Box::new(record))))
        });
    }

    /// `analyse_game`: the engine's judgement on each move of a finished game the viewer may
    /// see. Answered at once with what is known (exact variants once judged); while the
    /// analysis fills in, each change is pushed to this connection, which follows one game at a
    /// time (asking again, for this or another game, replaces the earlier follow).
    pub(super) fn analyse(&mut self, id: Option<RequestId>, game: GameId, viewer: PlayerId) {
        let shared = self.shared.clone();
        let out = self.out.clone();
        self.following = None;
        let task = tokio::spawn(async move {
            let record = match game_record(&shared.store, game, viewer).await {
                Ok(Ok(record)) => record,
                Ok(Err((code, message))) => return out.error(id, code, message),
                Err(err) => {
                    error!(cause = %err, "a query failed");
                    return out.error(
                        id,
                        ErrorCode::Internal,
                        "the server could not read its records",
                    );
                }
            };
            if record.result.is_none() {
                return out.error(
                    id,
                    ErrorCode::GameNotOver,
                    format!("game {game} is still being played"),
                );
            }
            let cells = record.moves.iter().map(|m| m.cell).collect();
            let progress = shared.engine.analyses.start(game, record.variant, cells);
            follow(out, id, game, record.variant, progress).await;
        });
        self.following = Some(analysis::Following(task.abort_handle()));
    }

    pub(super) fn profile(&self, id: Option<RequestId>, player: PlayerId) {
        let store = self.shared.store.clone();
        answer(self.out.clone(), id, async move {
            Ok(match store.profile(player).await? {
                Some(profile) => Ok(ServerMessage::Profile(Box::new(record_view::profile(
                    profile,
                )))),
                None => Err(no_such_player(player)),
            })
        });
    }

    /// The profile of the account named `username` (any case); `no_such_player` if none is.
    pub(super) fn profile_named(&self, id: Option<RequestId>, username: String) {
        let store = self.shared.store.clone();
        answer(self.out.clone(), id, async move {
            let key = noughts_protocol::username_key(username.trim());
            let profile = match store.account_by_key(key).await? {
                Some(account) => store.profile(account.player).await?,
                None => None,
            };
            Ok(match profile {
                Some(profile) => Ok(ServerMessage::Profile(Box::new(record_view::profile(
                    profile,
                )))),
                None => Err((
                    ErrorCode::NoSuchPlayer,
                    format!("no account has the username {:?}", username.trim()),
                )),
            })
        });
    }
}

/// The record of `game` as `viewer` may see it, or the refusal to give it.
async fn game_record(
    store: &Store,
    game: GameId,
    viewer: PlayerId,
) -> Result<Result<GameRecord, (ErrorCode, String)>, StoreError> {
    Ok(match store.record(game, viewer).await? {
        Some((stored, moves)) => record_view::record(stored, moves).map_err(|why| {
            error!(%why, "a stored game does not replay");
            (
                ErrorCode::Internal,
                "that game's record is damaged".to_owned(),
            )
        }),
        None => Err((
            ErrorCode::NoSuchGame,
            format!("the server has kept no game {game}"),
        )),
    })
}

fn no_such_player(player: PlayerId) -> (ErrorCode, String) {
    (
        ErrorCode::NoSuchPlayer,
        format!("no player has id {player}"),
    )
}

/// The shortest time between two pushes of the same game's analysis.
const PUSH_GAP: Duration = Duration::from_millis(500);

/// Answers request `id` with the analysis of `game` as `progress` has it (for an exactly judged
/// variant, once complete), then pushes each change until it is complete or `out` closes.
async fn follow(
    out: Outbound,
    id: Option<RequestId>,
    game: GameId,
    variant: Variant,
    mut progress: analysis::Watch,
) {
    if variant != Variant::Qubic {
        // Exact and quick; a closed channel leaves the last state, which is complete.
        let _ = progress.wait_for(|p| p.complete).await;
    }
    let mut now = progress.borrow_and_update().clone();
    if !out.reply(id, now.message(game)) {
        return;
    }
    while !now.complete {
        tokio::time::sleep(PUSH_GAP).await;
        // An error: the judging has ended, and its last state stands.
        let ended = progress.changed().await.is_err();
        now = progress.borrow_and_update().clone();
        if !out.reply(None, now.message(game)) || ended {
            return;
        }
    }
}
