//! A player's own moderation: `mute`, `unmute`, `block`, `unblock`, `moderation_list` and
//! `report`, each a fact appended to the moderation log (see `crate::moderation`) and folded in
//! at once on this node; and the checks the other handlers make of it (blocks between two
//! players, an operator's chat mute, bans and reserved names at `hello`).

use std::sync::Arc;

use noughts_protocol::{
    ErrorCode, MAX_MODERATED_PLAYERS, MAX_REPORT_CHARS, ModeratedPlayer, PlayerId, Report,
    RequestId, ServerMessage, sanitize,
};
use tracing::{error, info};

use super::client::{Client, Reply, refuse};
use crate::handler::enforce;
use crate::session::Session;
use crate::store::{ModerationEntry, now_ms};

/// A player's own moderation request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Relation {
    Mute,
    Unmute,
    Block,
    Unblock,
}

impl Relation {
    fn kind(self) -> &'static str {
        match self {
            Relation::Mute => "mute",
            Relation::Unmute => "unmute",
            Relation::Block => "block",
            Relation::Unblock => "unblock",
        }
    }
}

/// A player's fact about `target`.
fn players_fact(actor: PlayerId, kind: &str, target: PlayerId) -> ModerationEntry {
    ModerationEntry {
        id: 0,
        at_ms: now_ms(),
        kind: kind.to_owned(),
        actor: Some(actor),
        operator: None,
        target: Some(target),
        game: None,
        detail: String::new(),
        reason: String::new(),
        until_ms: None,
    }
}

impl Client {
    /// `mute`, `unmute`, `block` or `unblock` of `target`.
    pub(super) async fn relate(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        relation: Relation,
        target: PlayerId,
    ) -> Reply {
        self.check_other_player(session, target).await?;
        let moderation = &self.shared.accounts.moderation;
        let (muted, blocked) = moderation.state().lists(session.player);
        let full = match relation {
            Relation::Mute => muted.len() >= MAX_MODERATED_PLAYERS && !muted.contains(&target),
            Relation::Block => blocked.len() >= MAX_MODERATED_PLAYERS && !blocked.contains(&target),
            Relation::Unmute | Relation::Unblock => false,
        };
        if full {
            return refuse(
                ErrorCode::LimitReached,
                format!("at most {MAX_MODERATED_PLAYERS} players may be muted, or blocked"),
            );
        }
        self.append(players_fact(session.player, relation.kind(), target))
            .await?;
        self.ok(id);
        Ok(())
    }

    /// `moderation_list`.
    pub(super) async fn moderation_list(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
    ) -> Reply {
        let moderation = &self.shared.accounts.moderation;
        let (muted, blocked) = moderation.state().lists(session.player);
        let mut named = Vec::with_capacity(muted.len() + blocked.len());
        for player in muted.iter().chain(blocked.iter()) {
            let name = match self.shared.store.player_name(*player).await {
                Ok(name) => name.unwrap_or_default(),
                Err(err) => {
                    error!(cause = %err, "cannot look a player up");
                    String::new()
                }
            };
            named.push(ModeratedPlayer {
                player: *player,
                name,
            });
        }
        let blocked = named.split_off(muted.len());
        self.out.reply(
            id,
            ServerMessage::ModerationList {
                muted: named,
                blocked,
            },
        );
        Ok(())
    }

    /// `report`.
    pub(super) async fn report(
        &mut self,
        session: &Arc<Session>,
        id: Option<RequestId>,
        report: Report,
    ) -> Reply {
        let Report {
            player: target,
            category,
            reason,
            game,
        } = report;
        let reason = sanitize(&reason).trim().to_owned();
        if !reason.chars().any(|c| !c.is_whitespace()) || reason.chars().count() > MAX_REPORT_CHARS
        {
            return refuse(
                ErrorCode::BadReport,
                format!(
                    "a report's reason must say something, in at most {MAX_REPORT_CHARS} characters"
                ),
            );
        }
        self.check_other_player(session, target).await?;
        if let Some(game) = game {
            match self.shared.store.has_game(game).await {
                Ok(true) => {}
                Ok(false) => return refuse(ErrorCode::NoSuchGame, "no game has that id"),
                Err(err) => {
                    error!(cause = %err, "cannot look a game up");
                    return refuse(ErrorCode::Internal, "the server cannot take reports now");
                }
            }
        }
        let quotas = &self.shared.accounts.quotas;
        if let Err(wait) = quotas.report(session.player, self.network) {
            let limits = &self.shared.config.accounts;
            return refuse(
                ErrorCode::RateLimited,
                format!(
                    "at most {} reports an hour from one player, {} from one address; the \
                     operator has yours; retry in {}",
                    limits.reports_per_hour,
                    limits.address_reports_per_hour,
                    crate::account::in_words(wait)
                ),
            );
        }
        let mut fact = players_fact(session.player, "report", target);
        fact.detail = category.as_str().to_owned();
        fact.reason = reason;
        fact.game = game;
        self.append(fact).await?;
        info!(reported = target.0, "a player was reported");
        self.ok(id);
        Ok(())
    }

    /// `target` is another player the server knows.
    async fn check_other_player(&self, session: &Session, target: PlayerId) -> Reply {
        if target == session.player {
            return refuse(ErrorCode::OwnPlayer, "that is you");
        }
        match self.shared.store.player_name(target).await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => refuse(ErrorCode::NoSuchPlayer, "no player has that id"),
            Err(err) => {
                error!(cause = %err, "cannot look a player up");
                refuse(ErrorCode::Internal, "the server cannot look players up now")
            }
        }
    }

    /// Appends `fact` to the log and folds it in here at once.
    async fn append(&self, fact: ModerationEntry) -> Reply {
        if let Err(err) = self.shared.store.add_moderation(fact).await {
            error!(cause = %err, "cannot store a moderation fact");
            return refuse(ErrorCode::Internal, "the server cannot store that now");
        }
        enforce::catch_up(&self.shared).await;
        Ok(())
    }

    /// Refused while the operator mutes `player`'s chat.
    pub(super) fn check_chat_allowed(&self, player: PlayerId) -> Reply {
        let moderation = &self.shared.accounts.moderation;
        let muted = moderation.state().chat_muted(player, now_ms());
        match muted {
            Some((until, reason)) => {
                let minutes = until.saturating_sub(now_ms()).div_ceil(60_000);
                refuse(
                    ErrorCode::Muted,
                    format!(
                        "the server's operator muted your chat ({reason}) for {minutes} more minutes"
                    ),
                )
            }
            None => Ok(()),
        }
    }

    /// Refused when the client's address is in a banned range.
    pub(super) fn check_address_allowed(&self) -> Reply {
        let moderation = &self.shared.accounts.moderation;
        let banned = moderation.state().banned_address(self.network.ip());
        match banned {
            Some(reason) => refuse(ErrorCode::Banned, enforce::banned_message(&reason)),
            None => Ok(()),
        }
    }

    /// Refused when `player` is banned.
    pub(super) fn check_player_allowed(&self, player: PlayerId) -> Reply {
        match self.shared.accounts.moderation.state().banned(player) {
            Some(reason) => refuse(ErrorCode::Banned, enforce::banned_message(&reason)),
            None => Ok(()),
        }
    }

    /// Refused when no new player may take `name`.
    pub(super) fn check_name_free(&self, name: &str) -> Reply {
        if noughts_protocol::looks_closed(name) {
            return refuse(
                ErrorCode::ReservedName,
                format!(
                    "a name may not end with {:?}, which marks a closed account",
                    noughts_protocol::CLOSED_MARK.trim_start()
                ),
            );
        }
        if self.shared.accounts.moderation.state().reserved(name) {
            return refuse(
                ErrorCode::ReservedName,
                format!("the name {name:?} is reserved; choose another"),
            );
        }
        Ok(())
    }
}
