//! The arena screen: an arena's standings as its `arena` frames push them (the leaders, your own
//! line even below them, the totals, the best game, the time left and, once over, the podium),
//! further places a page at a time by `arena_page`; its keys (join, withdraw, watch the best
//! game, back to your game, pages) and its drawing.

use std::time::Instant;

use noughts_protocol::{
    ARENA_PAGE, ARENA_TOP, ArenaId, ArenaInfo, ArenaLine, ArenaStatus, ArenaView, ClientMessage,
    GameId, Watch,
};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::action::Action;
use super::theme::Theme;
use super::widgets::{fit, person, truncate};

/// The arena on screen, as the client holds it.
#[derive(Debug, Clone)]
pub struct Arena {
    /// The arena followed.
    pub id: ArenaId,
    /// Its last `arena` frame (names sanitised); `None` until the server answers.
    pub view: Option<ArenaView>,
    /// Where the places shown start: 0 for the live leaders, else after this many places (a page
    /// asked for with `arena_page`).
    pub offset: u32,
    /// The page of places after `offset`, as the server sent it (empty for the leaders).
    pub page: Vec<ArenaLine>,
    /// How many lines the standings are scrolled down.
    pub scroll: usize,
    /// Our game in the arena being played: the frame's `my_game`, or the game that came while we
    /// were in it.
    pub game: Option<GameId>,
    /// When our finished arena game gives way to the standings again.
    pub back_at: Option<Instant>,
}

impl Arena {
    /// An arena asked for, before its first frame.
    pub fn new(id: ArenaId) -> Arena {
        Arena {
            id,
            view: None,
            offset: 0,
            page: Vec::new(),
            scroll: 0,
            game: None,
            back_at: None,
        }
    }

    /// The arena's name, or its number before the first frame.
    pub fn name(&self) -> String {
        self.view
            .as_ref()
            .map_or_else(|| format!("arena {}", self.id), |v| v.info.name.clone())
    }

    /// Our own line, when we have joined.
    pub fn me(&self) -> Option<&ArenaLine> {
        self.view.as_ref()?.me.as_ref()
    }

    /// Whether we are in the arena now: joined, not withdrawn, and it is not over.
    pub fn playing_in(&self) -> bool {
        let open = self
            .view
            .as_ref()
            .is_some_and(|v| matches!(v.info.status, ArenaStatus::Upcoming | ArenaStatus::Running));
        open && self.me().is_some_and(|me| !me.withdrawn)
    }

    /// Takes a frame: the standings, and our game in play if the server names one.
    pub fn receive(&mut self, view: ArenaView) {
        if view.my_game.is_some() {
            self.game = view.my_game;
        }
        self.view = Some(view);
    }

    /// Takes a page of places, if it is the one asked for.
    pub fn receive_page(&mut self, offset: u32, lines: Vec<ArenaLine>) {
        if offset == self.offset && offset > 0 {
            self.page = lines;
            self.scroll = 0;
        }
    }

    /// The lines listed now: the leaders, or the page asked for.
    fn lines(&self) -> &[ArenaLine] {
        match (&self.view, self.offset) {
            (Some(view), 0) => &view.top,
            (_, 0) => &[],
            _ => &self.page,
        }
    }

    /// How many players the arena has.
    fn players(&self) -> u32 {
        self.view.as_ref().map_or(0, |v| v.totals.players)
    }

    /// The offset of the next page, if there are places after those listed.
    fn next_offset(&self) -> Option<u32> {
        let next = if self.offset == 0 {
            ARENA_TOP as u32
        } else {
            self.offset + ARENA_PAGE as u32
        };
        (self.players() > next).then_some(next)
    }

    /// Turns to the next (`forward`) or previous page; the request for it, if any (none for the
    /// leaders, which the frames carry).
    fn turn(&mut self, forward: bool) -> Option<ClientMessage> {
        let offset = match (forward, self.offset) {
            (true, _) => self.next_offset()?,
            (false, 0) => return None,
            (false, at) if at <= ARENA_TOP as u32 => 0,
            (false, at) => at - ARENA_PAGE as u32,
        };
        self.offset = offset;
        self.page.clear();
        self.scroll = 0;
        (offset > 0).then_some(ClientMessage::ArenaPage {
            arena: self.id,
            offset,
        })
    }
}

/// What a key does on the arena screen.
pub fn on_key(arena: &mut Arena, key: KeyEvent) -> Vec<Action> {
    let send = |message| vec![Action::Send(message)];
    let say = |text: &str| vec![Action::Say(text.to_owned())];
    let status = arena.view.as_ref().map(|v| v.info.status);
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => vec![Action::LeaveArena],
        KeyCode::Char('j') => match status {
            Some(ArenaStatus::Ending | ArenaStatus::Finished) => say("This arena is over."),
            _ if arena.playing_in() => say("You are in this arena already."),
            _ => send(ClientMessage::JoinArena {
                arena: arena.id,
                code: None,
            }),
        },
        KeyCode::Char('x') if arena.me().is_some_and(|me| !me.withdrawn) => {
            send(ClientMessage::WithdrawArena { arena: arena.id })
        }
        KeyCode::Char('x') => say("You are not in this arena."),
        KeyCode::Char('w') => match arena.view.as_ref().and_then(|v| v.best_game) {
            Some(game) => send(ClientMessage::Watch(Watch { game, code: None })),
            None => say("No game of this arena is being played."),
        },
        KeyCode::Enter => match arena.view.as_ref().and_then(|v| v.my_game) {
            Some(game) => send(ClientMessage::Watch(Watch { game, code: None })),
            None => Vec::new(),
        },
        KeyCode::Char('n') | KeyCode::PageDown => arena.turn(true).map_or_else(Vec::new, send),
        KeyCode::Char('p') | KeyCode::PageUp => arena.turn(false).map_or_else(Vec::new, send),
        KeyCode::Down => {
            arena.scroll += 1;
            Vec::new()
        }
        KeyCode::Up => {
            arena.scroll = arena.scroll.saturating_sub(1);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Milliseconds since the Unix epoch, for "ends in".
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// "ends in 42m", "starts in 75s", "finished".
pub fn when(info: &ArenaInfo, now_ms: u64) -> String {
    let left = |at: u64| {
        let secs = at.saturating_sub(now_ms).div_ceil(1000);
        if secs >= 120 {
            format!("{}m", secs.div_ceil(60))
        } else {
            format!("{secs}s")
        }
    };
    match info.status {
        ArenaStatus::Upcoming => format!("starts in {}", left(info.start_ms)),
        ArenaStatus::Running => format!("ends in {}", left(info.end_ms)),
        ArenaStatus::Ending => "time is up: the last games finish".to_owned(),
        ArenaStatus::Finished => "finished".to_owned(),
    }
}

/// A clock as the arena lists write it: `3+2`, `45s+0`.
pub fn clock(info: &ArenaInfo) -> String {
    let (initial, increment) = (info.clock.initial_ms, info.clock.increment_ms / 1000);
    if initial % 60_000 == 0 {
        format!("{}+{increment}", initial / 60_000)
    } else {
        format!("{}s+{increment}", initial / 1000)
    }
}

/// "1 point", "6 points".
fn points(score: u32) -> String {
    if score == 1 {
        "1 point".to_owned()
    } else {
        format!("{score} points")
    }
}

/// One line of the standings: rank, name (marked `BOT` in an arena for bots, whose players all
/// are), rating, score (with the fire), games, wins, and whether they play or have withdrawn.
fn standing(line: &ArenaLine, bots: bool) -> String {
    let fire = if line.fire { " fire" } else { "" };
    let state = if line.playing {
        "playing"
    } else if line.withdrawn {
        "withdrawn"
    } else {
        ""
    };
    format!(
        "{:>4}  {} {:>6} {:>5}{:<5} {:>5} {:>5}  {state}",
        line.rank,
        fit(&person(&line.name, false, bots, 20), 20),
        line.rating,
        line.score,
        fire,
        line.games,
        line.wins,
    )
}

/// Our own state in the arena, in a line.
fn you(arena: &Arena, info: &ArenaInfo) -> String {
    let over = matches!(info.status, ArenaStatus::Ending | ArenaStatus::Finished);
    let Some(me) = arena.me() else {
        return if over {
            "You did not play in this arena.".to_owned()
        } else {
            "You have not joined: j joins.".to_owned()
        };
    };
    let place = format!("#{} · {}", me.rank, points(me.score));
    let fire = if me.fire { " · on fire" } else { "" };
    let my_game = arena.view.as_ref().and_then(|v| v.my_game);
    match (my_game, me.withdrawn, info.status) {
        (Some(game), _, _) => format!("You: {place}{fire} · playing game #{game} (⏎)"),
        (None, _, ArenaStatus::Ending | ArenaStatus::Finished) => format!("You: {place}"),
        (None, true, _) => format!("You withdrew ({place}): j joins again."),
        (None, false, ArenaStatus::Upcoming) => {
            format!("You: {place} · you are paired once it starts")
        }
        (None, false, _) => format!("You: {place}{fire} · waiting for an opponent"),
    }
}

/// The lines above the standings: the arena, its totals, you, the best game, the podium.
fn header(arena: &Arena, view: &ArenaView, now_ms: u64, theme: Theme) -> Vec<Line<'static>> {
    let info = &view.info;
    let totals = view.totals;
    let mut lines = vec![
        Line::styled(
            format!(
                " {} · {} · {}",
                info.variant.name(),
                clock(info),
                when(info, now_ms)
            ),
            theme.title(),
        ),
        Line::styled(
            format!(
                " {} players · {} games counted · {} in play",
                totals.players, totals.games, totals.playing
            ),
            theme.dim(),
        ),
        Line::styled(format!(" {}", you(arena, info)), theme.key()),
    ];
    if let Some(game) = view.best_game {
        lines.push(Line::styled(
            format!(" Best game: #{game} (w watches)"),
            theme.text(),
        ));
    }
    if !view.podium.is_empty() {
        lines.push(Line::styled(" Podium", theme.title()));
        for (line, place) in view.podium.iter().zip(["1st", "2nd", "3rd"]) {
            lines.push(Line::styled(
                format!(
                    "   {place}  {} · {}",
                    person(&line.name, false, info.bots_only, 20),
                    points(line.score)
                ),
                theme.good(),
            ));
        }
    }
    lines
}

/// A line of the standings, marked when it is ours.
fn line_of(line: &ArenaLine, mine: bool, bots: bool, width: usize, theme: Theme) -> Line<'static> {
    let (pointer, style): (&str, Style) = if mine {
        ("▸", theme.selected())
    } else {
        (" ", theme.text())
    };
    let text = truncate(&format!("{pointer}{}", standing(line, bots)), width);
    Line::styled(fit(&text, width), style)
}

/// Draws the arena screen; `me` is our player id, `now_ms` the wall clock.
pub fn render(arena: &Arena, now_ms: u64, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered()
        .title(Span::styled(
            format!(" Arena · {} ", arena.name()),
            theme.title(),
        ))
        .border_style(theme.grid());
    let inner = block.inner(area);
    block.render(area, buf);
    let Some(view) = &arena.view else {
        Line::styled(" Asking the server…", theme.dim()).render(inner, buf);
        return;
    };
    let width = usize::from(inner.width);
    let mut top = header(arena, view, now_ms, theme);
    top.push(Line::raw(""));
    top.push(Line::styled(
        truncate(
            &format!(
                "{:>5}  {:<20} {:>6} {:>5}{:<5} {:>5} {:>5}",
                "#", "player", "rating", "score", "", "games", "wins"
            ),
            width,
        ),
        theme.dim(),
    ));
    let listed = arena.lines();
    let me = view.me.as_ref();
    let mine = |line: &ArenaLine| me.is_some_and(|m| m.player == line.player);
    // Our line stays in sight below the list when the list does not hold it.
    let pinned = me.filter(|m| !listed.iter().any(|l| l.player == m.player));
    let shown = listed.len() as u32;
    let range = if shown == 0 {
        String::new()
    } else {
        format!(
            " Places {}–{} of {}",
            arena.offset + 1,
            arena.offset + shown,
            arena.players()
        )
    };
    let pages = match (arena.offset > 0, arena.next_offset().is_some()) {
        (true, true) => " · n p pages",
        (false, true) => " · n next page",
        (true, false) => " · p previous page",
        (false, false) => "",
    };
    let [head, list, foot] = Layout::vertical([
        Constraint::Length(top.len() as u16),
        Constraint::Min(0),
        Constraint::Length(if pinned.is_some() { 3 } else { 1 }),
    ])
    .areas(inner);
    Paragraph::new(top).render(head, buf);
    let rows: Vec<Line<'static>> = if listed.is_empty() && arena.offset > 0 {
        vec![Line::styled(" Asking the server…", theme.dim())]
    } else if listed.is_empty() {
        vec![Line::styled(" Nobody has joined yet.", theme.dim())]
    } else {
        listed
            .iter()
            .map(|line| line_of(line, mine(line), view.info.bots_only, width, theme))
            .collect()
    };
    let most = rows.len().saturating_sub(usize::from(list.height));
    let scroll = arena.scroll.min(most);
    Paragraph::new(rows)
        .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0))
        .render(list, buf);
    let mut bottom = Vec::new();
    if let Some(me) = pinned {
        bottom.push(Line::styled("     ⋮", theme.dim()));
        bottom.push(line_of(me, true, view.info.bots_only, width, theme));
    }
    bottom.push(Line::styled(
        truncate(&format!("{range}{pages}"), width),
        theme.dim(),
    ));
    Paragraph::new(bottom).render(foot, buf);
}

/// The key hints for the footer on the arena screen.
pub fn hints(arena: &Arena) -> Vec<(&'static str, &'static str)> {
    let mut hints = Vec::new();
    let view = arena.view.as_ref();
    let over =
        view.is_some_and(|v| matches!(v.info.status, ArenaStatus::Ending | ArenaStatus::Finished));
    if view.and_then(|v| v.my_game).is_some() {
        hints.push(("⏎", "your game"));
    }
    if arena.playing_in() {
        hints.push(("x", "withdraw"));
    } else if !over {
        hints.push(("j", "join"));
    }
    if view.and_then(|v| v.best_game).is_some() {
        hints.push(("w", "best game"));
    }
    if arena.offset > 0 || arena.next_offset().is_some() {
        hints.push(("n p", "pages"));
    }
    hints.extend([("↑↓", "scroll"), ("?", "help"), ("q", "lobby")]);
    hints
}

#[cfg(test)]
mod tests {
    use super::*;
    use noughts_engine::Variant;
    use noughts_protocol::ClockSpec;

    fn info(status: ArenaStatus, initial_ms: u64) -> ArenaInfo {
        ArenaInfo {
            arena: ArenaId(1),
            name: "Test".into(),
            variant: Variant::Classic,
            clock: ClockSpec {
                initial_ms,
                increment_ms: 2_000,
            },
            start_ms: 1_000_000,
            end_ms: 4_000_000,
            status,
            players: 0,
            creator: None,
            private: false,
            bots_only: false,
        }
    }

    #[test]
    fn time_left_reads_in_minutes_then_seconds_and_clocks_as_listed() {
        let upcoming = info(ArenaStatus::Upcoming, 180_000);
        assert_eq!(when(&upcoming, 1_000_000 - 75_000), "starts in 75s");
        assert_eq!(when(&upcoming, 1_000_000 - 120_000), "starts in 2m");
        let running = info(ArenaStatus::Running, 45_000);
        assert_eq!(when(&running, 4_000_000 - 41 * 60_000 - 1), "ends in 42m");
        assert_eq!(when(&running, 4_000_000 + 5), "ends in 0s");
        assert_eq!(when(&info(ArenaStatus::Finished, 0), 0), "finished");
        assert_eq!(clock(&upcoming), "3+2");
        assert_eq!(clock(&running), "45s+2");
    }
}
