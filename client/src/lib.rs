//! The noughts terminal client: the `noughts` binary's implementation.
//!
//! - [`app`]: the state and [`app::App::update`], driven by [`app::Event`]s; no terminal, no socket.
//!   Beside it, [`welcome`] (what a welcome does) and [`arena`] (an arena followed, its pairings).
//! - [`screen`]: one module per screen (lobby, leaderboard, history, arena, game, replay, the boxes
//!   over them, help), each with its keys (turned into [`screen::action::Action`]s) and its drawing.
//! - [`view`]: `impl Widget for &App`: the title bar, the screen that is up, the footer.
//! - [`game`], [`form`], [`replay`]: the state of one game on screen, of the lobby's forms, and of
//!   a stored game being replayed.
//! - [`interactive`], [`terminal`]: the interactive loop and the terminal it owns (restored on panic).
//! - [`net`]: the WebSocket task: hello with the saved token, reconnect with backoff.
//! - [`tls`]: whom `wss://` trusts: the system's root certificates and `--ca`.
//! - [`config`]: where the token is kept. [`embedded`]: a server inside the process.
//! - [`watch`], [`bot`] (with [`external`], an engine program of its own), [`analyse`],
//!   [`replay`], [`history`], [`plain`]: the scriptable modes.
//! - [`account`], [`password`]: the account commands, and the passwords they read without echo.

pub mod account;
pub mod analyse;
pub mod analysis;
pub mod app;
pub mod arena;
pub mod bot;
pub mod clean;
pub mod cli;
pub mod config;
pub mod embedded;
pub mod evaluation;
pub mod event;
pub mod external;
pub mod follow;
pub mod form;
pub mod game;
pub mod history;
pub mod interactive;
pub mod logout;
pub mod moderation;
pub mod mouse;
pub mod names;
pub mod net;
pub mod notation;
pub mod password;
pub mod plain;
pub mod replay;
pub mod screen;
pub mod standalone;
pub mod terminal;
pub mod tls;
pub mod verdict;
pub mod view;
pub mod war_watch;
pub mod watch;
pub mod welcome;

use std::time::{Duration, Instant};

/// How long `noughts replay` waits for the server to finish analysing a finished game (qubic is
/// judged in the background; what is known by then is shown).
const ANALYSIS_WAIT: Duration = Duration::from_secs(15);

use anyhow::{Context as _, bail};
use noughts_engine::Budget;
use noughts_protocol::{ClientMessage, GameId, PlayerId, Watch, validate_name};

use cli::{Cli, Command};

/// Runs the command line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    if let Some(Command::Analyse(args)) = &cli.command {
        let report = analyse::report(
            args.variant,
            &args.board,
            args.json,
            Budget::millis(args.budget_ms),
        )?;
        print!("{report}");
        return Ok(());
    }
    if let Some(Command::Replay(
        args @ cli::ReplayArgs {
            moves: Some(moves), ..
        },
    )) = &cli.command
    {
        let cells = moves
            .iter()
            .map(|name| {
                notation::parse_cell(args.variant, name).with_context(|| {
                    format!(
                        "{name:?} is not a cell of {}: give {}",
                        args.variant,
                        notation::cell_hint(args.variant)
                    )
                })
            })
            .collect::<anyhow::Result<Vec<usize>>>()?;
        let view = replay::ReplayView::offline(args.variant, &cells)?;
        return show_replay(view, args, cli.theme).await;
    }
    let connect = cli.connect();
    if matches!(cli.command, Some(Command::Bot(_))) && connect.server.is_none() {
        // A bot on a server of its own would seek forever with nobody to meet.
        bail!(
            "noughts bot plays other people's seeks: give it a server with --server ws://HOST:PORT \
             (or NOUGHTS_SERVER); without one it would wait alone forever"
        );
    }
    let name = display_name(&cli)?;
    // Asked before anything connects, so that no output comes between the prompts.
    let (account_request, credentials) = account_request(&cli.command)?;
    let (url, embedded, tokens) = server_and_identity(&connect, &cli.command).await?;
    // A sign-in presents the device cookie this client was given for the account, if kept.
    let kept = tokens.clone();
    let credentials = credentials.map(|mut credentials| {
        credentials.device_cookie = kept.device_cookie(&credentials.username);
        credentials
    });
    let interactive = !matches!(
        &cli.command,
        Some(
            Command::Bot(_)
                | Command::Replay(_)
                | Command::History(_)
                | Command::Profile(_)
                | Command::Logout(_)
                | Command::Register(_)
                | Command::Login(_)
                | Command::Sessions(_)
                | Command::Password(_)
                | Command::Watch(cli::WatchArgs { plain: true, .. })
        )
    );
    let tls = if url.starts_with("wss://") {
        Some(tls::client_config(connect.ca.as_deref())?)
    } else {
        None
    };
    let link = net::connect(net::Options {
        url,
        tls,
        name: name.clone(),
        tokens,
        reconnect: interactive || matches!(cli.command, Some(Command::Bot(_))),
        credentials,
    });
    let result = match cli.command {
        None | Some(Command::Play) => {
            let app = new_app(name, cli.theme, cli.page_size);
            interactive::run(link, app, Vec::new()).await
        }
        Some(Command::Watch(args)) => {
            let target = match (args.game, args.war) {
                (Some(game), _) => watch::Target::Game(GameId(game), args.code),
                (None, Some(variant)) => watch::Target::War(variant),
                (None, None) => bail!("say which game to watch, or --war VARIANT"),
            };
            if args.plain {
                watch::run(link, target, &mut std::io::stdout().lock()).await
            } else {
                let mut app = new_app(name, cli.theme, cli.page_size);
                let initial = match target {
                    watch::Target::Game(game, code) => {
                        vec![ClientMessage::Watch(Watch { game, code })]
                    }
                    watch::Target::War(variant) => {
                        app.want_war = Some(variant);
                        Vec::new()
                    }
                };
                interactive::run(link, app, initial).await
            }
        }
        Some(Command::Bot(args)) => {
            bot::run(link, bot_plan(args), &mut std::io::stdout().lock()).await
        }
        Some(Command::Replay(args)) => {
            let game = GameId(args.game.context("say which game to replay, or --moves")?);
            async {
                let mut link = link;
                let record = replay::fetch_record(&mut link, game).await?;
                let over = record.result.is_some();
                let mut view = replay::ReplayView::new(record)
                    .with_context(|| format!("game {game} cannot be replayed"))?;
                if over && !args.plain {
                    replay::fetch_analysis(&mut link, &mut view, ANALYSIS_WAIT).await;
                }
                show_replay(view, &args, cli.theme).await
            }
            .await
        }
        Some(Command::History(args)) => history::print(link, history_query(&args)).await,
        Some(Command::Profile(args)) => history::print(link, profile_query(args)).await,
        Some(Command::Logout(_)) => logout::run(link).await,
        Some(
            Command::Register(_) | Command::Login(_) | Command::Sessions(_) | Command::Password(_),
        ) => {
            let request = account_request.context("an account command asks first")?;
            account::run(link, request, &kept, &mut std::io::stdout().lock()).await
        }
        Some(Command::Analyse(_)) => unreachable!("handled above"),
    };
    if let Some(server) = embedded {
        server.stop().await;
    }
    result
}

/// The server's address, the server started here when none was named, and the identity kept for
/// it; refused when the command needs an identity this client does not keep.
async fn server_and_identity(
    connect: &cli::ConnectArgs,
    command: &Option<Command>,
) -> anyhow::Result<(String, Option<standalone::Local>, config::TokenStore)> {
    let (url, embedded, tokens) = match &connect.server {
        Some(server) => {
            let url = if server.contains("://") {
                server.clone()
            } else {
                format!("ws://{server}")
            };
            let tokens = config::TokenStore::open(config::config_dir(), &url);
            (url, None, tokens)
        }
        None => {
            let local = standalone::Local::start_or_join().await?;
            let tokens = local.tokens(config::config_dir());
            (local.url.clone(), Some(local), tokens)
        }
    };
    if matches!(command, Some(Command::Logout(_))) && tokens.token().is_none() {
        // Connecting without a token would only make a new player.
        anyhow::bail!("this client keeps no identity for {url}: there is nothing to log out of");
    }
    if matches!(command, Some(Command::Sessions(_) | Command::Password(_)))
        && tokens.token().is_none()
    {
        anyhow::bail!(
            "this client keeps no identity for {url}: sign in first with `noughts login`"
        );
    }
    Ok((url, embedded, tokens))
}

/// What an account command asks of the person (from the terminal, or standard input's lines),
/// and, for `login`, the credentials the hello carries; nothing for the other commands.
fn account_request(
    command: &Option<Command>,
) -> anyhow::Result<(
    Option<account::Request>,
    Option<noughts_protocol::Credentials>,
)> {
    let username = |asker: &mut password::Asker, given: &Option<String>| match given {
        Some(username) => Ok(username.clone()),
        None => asker.line("Username: "),
    };
    Ok(match command {
        Some(Command::Register(args)) => {
            let mut asker = password::Asker::new();
            let username = username(&mut asker, &args.username)?;
            let password = asker.new_password("Password: ")?;
            (
                Some(account::Request::Register { username, password }),
                None,
            )
        }
        Some(Command::Login(args)) => {
            let mut asker = password::Asker::new();
            let username = username(&mut asker, &args.username)?;
            let password = asker.password("Password: ")?;
            let credentials = account::credentials(username.clone(), password);
            (
                Some(account::Request::Login { username }),
                Some(credentials),
            )
        }
        Some(Command::Sessions(args)) => {
            let revoke = args.revoke;
            (Some(account::Request::Sessions { revoke }), None)
        }
        Some(Command::Bot(cli::BotArgs {
            username: Some(username),
            ..
        })) => {
            let password = match std::env::var("NOUGHTS_PASSWORD") {
                Ok(password) => password,
                Err(_) => password::Asker::new().password("Password: ")?,
            };
            (None, Some(account::credentials(username.clone(), password)))
        }
        Some(Command::Password(_)) => {
            let mut asker = password::Asker::new();
            let old = asker.password("Current password: ")?;
            let new = asker.new_password("New password: ")?;
            (Some(account::Request::Password { old, new }), None)
        }
        _ => (None, None),
    })
}

/// What `noughts bot` is asked to do.
fn bot_plan(args: cli::BotArgs) -> bot::BotPlan {
    let mover = match args.engine {
        Some(command) => bot::Mover::Program {
            command,
            limit: std::time::Duration::from_millis(args.engine_timeout_ms),
        },
        None => bot::Mover::Level(args.level),
    };
    bot::BotPlan {
        mover,
        variant: args.variant,
        games: args.games,
        think: std::time::Duration::from_millis(args.think_ms),
        rated: args.rated,
        become_bot: args.become_bot,
        entry: match (args.arena, args.league) {
            (Some(arena), _) => bot::Entry::Arena(noughts_protocol::ArenaId(arena)),
            (None, true) => bot::Entry::League,
            (None, false) => bot::Entry::Seek,
        },
    }
}

/// Shows a replay: every position as text with `--plain`, else the replay screen.
async fn show_replay(
    view: replay::ReplayView,
    args: &cli::ReplayArgs,
    theme: screen::theme::Palette,
) -> anyhow::Result<()> {
    if args.plain {
        let delay = std::time::Duration::from_millis(args.delay_ms);
        replay::print_record(&view, delay, &mut std::io::stdout().lock()).await
    } else {
        let app = themed(
            app::App::replaying(view, Instant::now(), color_wanted()),
            theme,
        );
        interactive::run_offline(app).await
    }
}

/// The name to play under: `--name`, else the user's login name, else "player".
fn display_name(cli: &Cli) -> anyhow::Result<String> {
    let name = match (&cli.connect().name, &cli.command) {
        (Some(name), _) => name.clone(),
        (None, Some(Command::Bot(args))) => match (&args.username, &args.engine) {
            (Some(username), _) => username.clone(),
            (None, Some(_)) => "engine bot".to_owned(),
            (None, None) => format!("{} bot", args.level),
        },
        (None, _) => std::env::var("USER")
            .or_else(|_| std::env::var("USERNAME"))
            .ok()
            .filter(|n| validate_name(n).is_ok())
            .unwrap_or_else(|| "player".to_owned()),
    };
    let valid = validate_name(&name).with_context(|| format!("cannot play as {name:?}"))?;
    Ok(valid.to_owned())
}

/// `app` drawn with `palette`; NO_COLOR wins over any colours asked for.
/// The interactive app for `name`, in `palette`, its all-games pages `page_size` long.
fn new_app(name: String, palette: screen::theme::Palette, page_size: u32) -> app::App {
    let mut app = themed(app::App::new(name, Instant::now(), color_wanted()), palette);
    app.browse.limit = page_size;
    app
}

fn themed(mut app: app::App, palette: screen::theme::Palette) -> app::App {
    let theme = palette.theme();
    app.color = app.color && theme.color;
    app.contrast = theme.contrast;
    app
}

/// Whether to draw in colour: not when NO_COLOR is set to anything non-empty.
pub fn color_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// What `noughts history` asks for.
fn history_query(args: &cli::HistoryArgs) -> history::Query {
    history::Query {
        player: args.player.map(PlayerId),
        before: args.before.map(GameId),
        limit: args.limit,
        username: None,
    }
}

/// What `noughts profile` asks for: the account named so, with its latest games.
fn profile_query(args: cli::ProfileArgs) -> history::Query {
    history::Query {
        player: None,
        before: None,
        limit: args.limit,
        username: Some(args.username),
    }
}
