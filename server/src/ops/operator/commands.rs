//! The operator's moderation commands (`noughts-server admin …`), straight to the database or
//! through a running server: each writes one fact to the
//! moderation log of the database the server uses, with the operator's name and reason (the
//! audit), or reads the log (reports, the audit). Running nodes read the log every second, so a
//! fact written here holds on every node without a restart.

use std::fmt::Write as _;

use anyhow::bail;
use noughts_protocol::{GameId, PlayerId, ReportCategory};
use serde::{Deserialize, Serialize};

use crate::net::proxy::Cidr;
use crate::store::{ModerationEntry, Store, now_ms};

/// What the operator asks.
#[derive(Debug, Clone, clap::Subcommand, Serialize, Deserialize)]
pub enum AdminAction {
    /// List players' reports, newest last, each with the game it points at.
    Reports {
        /// Only the last N reports.
        #[arg(long, default_value_t = 50)]
        last: usize,
    },
    /// List the operators' actions, newest last: who, when, what and why.
    Audit {
        /// Only the last N actions.
        #[arg(long, default_value_t = 50)]
        last: usize,
    },
    /// Mute a player's chat on every node for a time.
    Mute {
        #[arg(long, value_name = "ID")]
        player: u64,
        /// How long, in minutes.
        #[arg(long, value_name = "MINUTES", value_parser = clap::value_parser!(u64).range(1..=5_256_000))]
        minutes: u64,
        #[arg(long)]
        reason: String,
    },
    /// Lift a chat mute.
    Unmute {
        #[arg(long, value_name = "ID")]
        player: u64,
        #[arg(long)]
        reason: String,
    },
    /// Ban a player (their connections close, their tokens are refused) or an address range
    /// (new connections from it are refused at hello).
    Ban(BanTarget),
    /// Lift a ban of a player or of an address range (given as it was banned).
    Unban(BanTarget),
    /// End a live game: aborted, unrated, both players told.
    EndGame {
        #[arg(long, value_name = "ID")]
        game: u64,
        #[arg(long)]
        reason: String,
    },
    /// Reserve a name: no new player may take it (compared ignoring case, and everything but
    /// letters and digits).
    Reserve {
        #[arg(long)]
        name: String,
        #[arg(long)]
        reason: String,
    },
    /// Give a reserved name back.
    Unreserve {
        #[arg(long)]
        name: String,
        #[arg(long)]
        reason: String,
    },
}

/// Whom a ban or an unban is of: a player or an address range, and why.
#[derive(Debug, Clone, clap::Args, Serialize, Deserialize)]
pub struct BanTarget {
    #[arg(
        long,
        value_name = "ID",
        required_unless_present = "range",
        conflicts_with = "range"
    )]
    player: Option<u64>,
    /// An address or a network as ADDRESS/BITS, as --trusted-proxy takes them.
    #[arg(long, value_name = "CIDR", value_parser = parse_cidr)]
    range: Option<String>,
    #[arg(long)]
    reason: String,
}

/// A range as `--trusted-proxy` reads it, kept in the form it was given.
fn parse_cidr(text: &str) -> Result<String, String> {
    text.parse::<Cidr>()
        .map(|cidr| cidr.to_string())
        .map_err(|err| err.to_string())
}

/// Runs `action` as `operator` on `store`; returns what to print.
pub(crate) async fn execute(
    store: &Store,
    operator: &str,
    action: AdminAction,
) -> anyhow::Result<String> {
    match action {
        AdminAction::Reports { last } => reports(store, last).await,
        AdminAction::Audit { last } => audit(store, last).await,
        action => {
            let fact = fact(operator, action)?;
            stored(store, &fact).await?;
            let what = format!("{} {}", fact.kind, subject(&fact));
            let id = store.add_moderation(fact).await?;
            Ok(format!("done: {what} (audit entry {id})\n"))
        }
    }
}

/// Refuses a fact about a player or a game the database does not hold: the operator mistyped
/// an id, and "done" would say something was.
async fn stored(store: &Store, fact: &ModerationEntry) -> anyhow::Result<()> {
    if let Some(player) = fact.target
        && store.profile(player).await?.is_none()
    {
        bail!("there is no player {}: nothing done", player.0);
    }
    if let Some(game) = fact.game
        && store.game_summary(game).await?.is_none()
    {
        bail!("there is no game {}: nothing done", game.0);
    }
    Ok(())
}

/// The fact `action` writes.
fn fact(operator: &str, action: AdminAction) -> anyhow::Result<ModerationEntry> {
    let mut fact = ModerationEntry {
        id: 0,
        at_ms: now_ms(),
        kind: String::new(),
        actor: None,
        operator: Some(operator.to_owned()),
        target: None,
        game: None,
        detail: String::new(),
        reason: String::new(),
        until_ms: None,
    };
    let (kind, reason) = match action {
        AdminAction::Mute {
            player,
            minutes,
            reason,
        } => {
            fact.target = Some(PlayerId(player));
            fact.until_ms = Some(fact.at_ms.saturating_add(minutes.saturating_mul(60_000)));
            ("chat_mute", reason)
        }
        AdminAction::Unmute { player, reason } => {
            fact.target = Some(PlayerId(player));
            ("chat_unmute", reason)
        }
        AdminAction::Ban(target) => ban(&mut fact, target, false),
        AdminAction::Unban(target) => ban(&mut fact, target, true),
        AdminAction::EndGame { game, reason } => {
            fact.game = Some(GameId(game));
            ("end_game", reason)
        }
        AdminAction::Reserve { name, reason } => {
            fact.detail = name;
            ("reserve", reason)
        }
        AdminAction::Unreserve { name, reason } => {
            fact.detail = name;
            ("unreserve", reason)
        }
        AdminAction::Reports { .. } | AdminAction::Audit { .. } => bail!("not a change"),
    };
    if reason.trim().is_empty() {
        bail!("--reason must say why");
    }
    fact.kind = kind.to_owned();
    fact.reason = reason.trim().to_owned();
    Ok(fact)
}

/// A ban of a player or an address range, or with `lifted` its end: the fact's target, and the
/// kind and reason to record.
fn ban(
    fact: &mut ModerationEntry,
    BanTarget {
        player,
        range,
        reason,
    }: BanTarget,
    lifted: bool,
) -> (&'static str, String) {
    let (of_player, of_range) = if lifted {
        ("unban", "unban_range")
    } else {
        ("ban", "ban_range")
    };
    match (player, range) {
        (Some(player), _) => {
            fact.target = Some(PlayerId(player));
            (of_player, reason)
        }
        (None, range) => {
            fact.detail = range.unwrap_or_default();
            (of_range, reason)
        }
    }
}

/// What a fact is about, in words.
fn subject(fact: &ModerationEntry) -> String {
    match (fact.target, fact.game) {
        (Some(player), _) => format!("player {}", player.0),
        (None, Some(game)) => format!("game {}", game.0),
        (None, None) => fact.detail.clone(),
    }
}

/// The whole log, oldest first.
async fn whole_log(store: &Store) -> anyhow::Result<Vec<ModerationEntry>> {
    let mut log: Vec<ModerationEntry> = Vec::new();
    loop {
        let after = log.last().map_or(0, |fact| fact.id);
        let page = store.moderation_since(after).await?;
        if page.is_empty() {
            return Ok(log);
        }
        log.extend(page);
    }
}

async fn reports(store: &Store, last: usize) -> anyhow::Result<String> {
    let log = whole_log(store).await?;
    let reports: Vec<_> = log.iter().filter(|fact| fact.kind == "report").collect();
    let mut out = String::new();
    for report in &reports[reports.len().saturating_sub(last)..] {
        let category = ReportCategory::from_name(&report.detail).map_or("?", |c| c.as_str());
        let by = report.actor.map_or(0, |p| p.0);
        let about = report.target.map_or(0, |p| p.0);
        let _ = write!(
            out,
            "report {} at {}: player {by} reports player {about} for {category}: {}",
            report.id,
            when(report.at_ms),
            report.reason
        );
        if let Some(game) = report.game {
            let summary = store.game_summary(game).await?;
            let summary = summary.unwrap_or_else(|| "not kept".to_owned());
            let _ = write!(out, "\n    in game {}: {summary}", game.0);
        }
        out.push('\n');
    }
    if reports.is_empty() {
        out.push_str("no reports\n");
    }
    Ok(out)
}

async fn audit(store: &Store, last: usize) -> anyhow::Result<String> {
    let log = whole_log(store).await?;
    let actions: Vec<_> = log.iter().filter(|fact| fact.operator.is_some()).collect();
    let mut out = String::new();
    for action in &actions[actions.len().saturating_sub(last)..] {
        let until = action
            .until_ms
            .map(|until| format!(" until {}", when(until)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{} at {} by {}: {} {}{until}: {}",
            action.id,
            when(action.at_ms),
            action.operator.as_deref().unwrap_or("?"),
            action.kind,
            subject(action),
            action.reason
        );
    }
    if actions.is_empty() {
        out.push_str("no operator actions\n");
    }
    Ok(out)
}

/// A time as a reader and a script both take it: UTC in ISO 8601 (RFC 3339), to the second, as
/// `2026-01-01T12:00:00Z`.
fn when(ms: u64) -> String {
    let seconds = i64::try_from(ms / 1000).unwrap_or(i64::MAX);
    time::OffsetDateTime::from_unix_timestamp(seconds)
        .ok()
        .and_then(|at| {
            at.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| format!("@{seconds}"))
}

/// The header that carries a request through the operator's socket.
pub(super) const HEADER: &str = "x-noughts-admin";

/// One admin request as it crosses to the server.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Request {
    pub(super) operator: String,
    pub(super) action: AdminAction,
}
