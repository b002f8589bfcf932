//! The command line: `noughts [play]`, `watch`, `bot`, `analyse`, `replay`, `history`, the
//! account commands (`register`, `login`, `sessions`, `password`) and `logout`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use noughts_protocol::{Level, Variant};

/// Noughts and crosses over the network: play people or the AI, watch the war games.
#[derive(Debug, Parser)]
#[command(name = "noughts", version)]
pub struct Cli {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// How the screens look: normal, high-contrast, or no-colour (NO_COLOR also asks for it).
    #[arg(
        long,
        env = "NOUGHTS_THEME",
        value_enum,
        default_value = "normal",
        global = true
    )]
    pub theme: crate::screen::theme::Palette,
    /// How many games a page of the all-games tab lists (1 to 100).
    #[arg(long, env = "NOUGHTS_PAGE_SIZE", default_value_t = crate::screen::browse::BROWSE_PAGE,
        value_parser = clap::value_parser!(u32).range(1..=100), global = true)]
    pub page_size: u32,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Where to connect and as whom: given before the subcommand or after it (the commands that
/// never connect, `analyse` and `replay --moves`, have none of these).
#[derive(Debug, Clone, Default, Args)]
pub struct ConnectArgs {
    /// The server to connect to (ws://host:port, or wss://host:port over TLS). Without it, a
    /// server starts inside this process.
    #[arg(long, env = "NOUGHTS_SERVER")]
    pub server: Option<String>,
    /// For wss://: also trust the PEM certificates in FILE (a private CA, or a self-signed
    /// server's own certificate), beside the system's root certificates.
    #[arg(long, env = "NOUGHTS_CA", value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// Your display name (defaults to your user name).
    #[arg(long, env = "NOUGHTS_NAME")]
    pub name: Option<String>,
}

impl Cli {
    /// Where to connect: what follows the subcommand, else what precedes it.
    pub fn connect(&self) -> ConnectArgs {
        let inner = match &self.command {
            Some(Command::Watch(args)) => Some(&args.connect),
            Some(Command::Bot(args)) => Some(&args.connect),
            Some(Command::Replay(args)) => Some(&args.connect),
            Some(Command::History(args)) => Some(&args.connect),
            Some(Command::Profile(args)) => Some(&args.connect),
            Some(Command::Logout(connect) | Command::Password(connect)) => Some(connect),
            Some(Command::Register(args) | Command::Login(args)) => Some(&args.connect),
            Some(Command::Sessions(args)) => Some(&args.connect),
            Some(Command::Play | Command::Analyse(_)) | None => None,
        };
        let outer = &self.connect;
        match inner {
            None => outer.clone(),
            Some(inner) => ConnectArgs {
                server: inner.server.clone().or_else(|| outer.server.clone()),
                ca: inner.ca.clone().or_else(|| outer.ca.clone()),
                name: inner.name.clone().or_else(|| outer.name.clone()),
            },
        }
    }
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open the lobby and play (the default).
    Play,
    /// Watch a game: by id, or the war games of a variant.
    Watch(WatchArgs),
    /// Seek and play games with the engine, as a player (for demos and load).
    Bot(BotArgs),
    /// The value of a position and of every move, computed offline by the engine.
    #[command(alias = "analyze")]
    Analyse(AnalyseArgs),
    /// Step through a finished game move by move with ←/→ (or print every position).
    Replay(ReplayArgs),
    /// Your finished games (or another player's), newest first, with your ratings.
    History(HistoryArgs),
    /// An account's profile by its username: its ratings and results, then its latest games.
    Profile(ProfileArgs),
    /// Claim a username and a password for the identity this client keeps for the server: it
    /// becomes an account, with its games and ratings, that can sign in from any machine.
    ///
    /// The username is asked for unless given, the password twice, without echo. When standard
    /// input is not a terminal, they are read from it instead, one line each: the username
    /// (unless given), then the password once.
    Register(AccountArgs),
    /// Sign in to an account: this client plays as it from now on (the identity it kept for the
    /// server before is forgotten here; an account's stays its own).
    ///
    /// The username is asked for unless given, the password without echo. When standard input
    /// is not a terminal, they are read from it instead, one line each: the username (unless
    /// given), then the password.
    Login(AccountArgs),
    /// The account's signed-in sessions, one per device (this one marked), or end one with
    /// --revoke.
    Sessions(SessionsArgs),
    /// Change the account's password; every other session of the account ends.
    ///
    /// The current password is asked for, then the new one twice, without echo. When standard
    /// input is not a terminal, they are read from it instead, one line each: the current
    /// password, then the new one once.
    Password(ConnectArgs),
    /// End this identity on the server: its tokens stop working on every machine that shares
    /// them (for an account, every signed-in session), its live games are resigned, and the next
    /// start is a new player.
    Logout(ConnectArgs),
}

/// `noughts register` and `noughts login`.
#[derive(Debug, Args)]
pub struct AccountArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The account's username (2 to 20 ASCII letters, digits, `_` and `-`); asked for when not
    /// given.
    pub username: Option<String>,
}

/// `noughts sessions`.
#[derive(Debug, Args)]
pub struct SessionsArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// End this session (an id from the list): its device is signed out at once.
    #[arg(long, value_name = "ID")]
    pub revoke: Option<u64>,
}

/// `noughts history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Whose games, by player id (default: yours, the identity this client keeps for the server).
    #[arg(long, value_name = "ID")]
    pub player: Option<u64>,
    /// Only games older than this one (to page back).
    #[arg(long, value_name = "GAME")]
    pub before: Option<u64>,
    /// How many games to list (at most 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
}

/// `noughts profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The account's username (any case).
    #[arg(value_name = "USERNAME")]
    pub username: String,
    /// How many of its latest games to list (at most 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
}

/// `noughts replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The id of a game the server has kept (`noughts history` lists them).
    #[arg(required_unless_present = "moves", conflicts_with = "moves")]
    pub game: Option<u64>,
    /// Replay these cells instead, in the order played, without a server: `5,1,9,3` on classic
    /// (cells 1 to 9), `b2,c3` on four, `2b2,1a1` on the cubes (layer, column, row).
    #[arg(long, value_delimiter = ',', value_name = "CELLS")]
    pub moves: Option<Vec<String>>,
    /// The variant of `--moves`: classic, four, cube or qubic.
    #[arg(long, default_value = "classic")]
    pub variant: Variant,
    /// Print every position as text instead of opening the screen.
    #[arg(long)]
    pub plain: bool,
    /// With --plain: the pause between moves, in milliseconds.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub delay_ms: u64,
}

/// `noughts watch`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["game", "war"])))]
pub struct WatchArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// The id of the game to watch (or --war VARIANT for the war games).
    #[arg(conflicts_with = "war")]
    pub game: Option<u64>,
    /// Watch a war game (AI against AI) of this variant: classic, four, cube or qubic.
    #[arg(long, value_name = "VARIANT")]
    pub war: Option<Variant>,
    /// The invite code of the room a private game was played from (its players need none).
    #[arg(long, value_name = "CODE", requires = "game")]
    pub code: Option<String>,
    /// Print positions as text lines instead of opening the screen; exit when the game ends.
    #[arg(long)]
    pub plain: bool,
}

/// `noughts bot`.
#[derive(Debug, Args)]
#[command(after_long_help = ENGINE_PROTOCOL)]
pub struct BotArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// How strongly to play: easy, medium, hard or perfect.
    #[arg(long, default_value = "perfect")]
    pub level: Level,
    /// Let a program of your own choose the moves instead of the engine: started once with
    /// `sh -c CMD`, it reads one position a line and answers each with a move (see below).
    #[arg(long, value_name = "CMD", conflicts_with = "level")]
    pub engine: Option<String>,
    /// The longest the program may take over a move, in milliseconds (less when the game's
    /// clock has less left); a program that takes longer, exits or answers what is not a free
    /// cell resigns that game, and is started again for the next.
    #[arg(long, default_value_t = 10_000, value_name = "MS", requires = "engine")]
    pub engine_timeout_ms: u64,
    /// Sign in to this account to play as it. The password is read from NOUGHTS_PASSWORD, else
    /// asked for (read as a line from standard input when it is not a terminal). Without it, the
    /// bot plays as the identity this client keeps for the server.
    #[arg(long, value_name = "USERNAME")]
    pub username: Option<String>,
    /// Turn the account into a bot account first, for good (refused for a guest and for an
    /// account that has played rated games): it is marked BOT, and quick match pairs it only
    /// with people who chose to play bots.
    #[arg(long)]
    pub become_bot: bool,
    /// Which game to seek: classic, four, cube or qubic.
    #[arg(long, default_value = "classic")]
    pub variant: Variant,
    /// How many games to play before leaving.
    #[arg(long, default_value_t = 1)]
    pub games: u32,
    /// The least time to take over each move, in milliseconds.
    #[arg(long, default_value_t = 300, value_name = "MS")]
    pub think_ms: u64,
    /// Seek rated games (they count for ratings) instead of casual ones.
    #[arg(long)]
    pub rated: bool,
    /// Join this arena instead of seeking (a bot account: an arena for bots), and play the
    /// games it pairs until --games are played or the arena finishes.
    #[arg(long, value_name = "ID", conflicts_with = "league")]
    pub arena: Option<u64>,
    /// Enter the engines' league of --variant instead of seeking (a bot account), and play the
    /// league games it pairs until --games are played.
    #[arg(long)]
    pub league: bool,
}

/// What `noughts bot --help` says of the program `--engine` runs.
const ENGINE_PROTOCOL: &str = "\
The engine's protocol (--engine CMD):
  The program gets one line per position on its standard input, when it is to move:
    VARIANT BOARD
  VARIANT is classic, four, cube or qubic; BOARD has one character a cell (X, O or .) in cell
  order, rows separated by /, a cube's rows layer after layer, e.g.
    classic X.O/.X./..O
  X moves first, so whose turn it is follows from the counts. The program answers one line: the
  cell's number, 0-based, row by row and layer by layer (4 is classic's centre), or on the bigger
  boards its name as the client writes it (b3 on four, 2b3 on the cubes). What it writes on
  standard error reaches the terminal.";

/// `noughts analyse`.
#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// classic, four, cube or qubic.
    #[arg(long, default_value = "classic")]
    pub variant: Variant,
    /// The position: one character per cell (X, O or .), rows may be separated by `/`, e.g.
    /// `X.O/.X./..O`.
    pub board: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The search budget in milliseconds (matters on qubic only).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub budget_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn parses_the_scriptable_modes() {
        let cli = Cli::try_parse_from(["noughts", "watch", "--war", "cube", "--plain"]).unwrap();
        match cli.command {
            Some(Command::Watch(args)) => {
                assert_eq!(args.war, Some(Variant::Cube));
                assert!(args.plain);
            }
            other => panic!("unexpected {other:?}"),
        }
        let cli = Cli::try_parse_from([
            "noughts", "--server", "ws://h:1", "bot", "--level", "easy", "--games", "3",
        ])
        .unwrap();
        assert_eq!(cli.connect().server.as_deref(), Some("ws://h:1"));
        assert!(matches!(
            cli.command,
            Some(Command::Bot(BotArgs {
                level: Level::Easy,
                games: 3,
                ..
            }))
        ));
        assert!(Cli::try_parse_from(["noughts", "watch"]).is_err());
        let cli = Cli::try_parse_from(["noughts", "replay", "9", "--plain"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Replay(ReplayArgs {
                game: Some(9),
                plain: true,
                ..
            }))
        ));
        let cli = Cli::try_parse_from([
            "noughts",
            "history",
            "--server",
            "wss://h:1",
            "--ca",
            "ca.pem",
        ])
        .unwrap();
        assert_eq!(cli.connect().ca, Some(PathBuf::from("ca.pem")));
        assert_eq!(cli.connect().server.as_deref(), Some("wss://h:1"));
        let cli = Cli::try_parse_from(["noughts", "history", "--player", "4"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::History(HistoryArgs {
                player: Some(4),
                limit: 20,
                ..
            }))
        ));
        let cli = Cli::try_parse_from(["noughts", "sessions", "--revoke", "42"]).unwrap();
        assert!(matches!(
            cli.command,
            Some(Command::Sessions(SessionsArgs {
                revoke: Some(42),
                ..
            }))
        ));
        let cli =
            Cli::try_parse_from(["noughts", "login", "ada_1815", "--server", "ws://h:1"]).unwrap();
        assert_eq!(cli.connect().server.as_deref(), Some("ws://h:1"));
        assert!(matches!(
            cli.command,
            Some(Command::Login(AccountArgs { username: Some(ref name), .. })) if name == "ada_1815"
        ));
        // Each account command says how to give the password from a script.
        for command in ["register", "login", "password"] {
            let help = Cli::command()
                .find_subcommand_mut(command)
                .unwrap()
                .render_long_help()
                .to_string();
            assert!(help.contains("standard input is not a terminal"), "{help}");
        }
        assert!(Cli::try_parse_from(["noughts", "analyse", "--variant", "hex", "X"]).is_err());
        // analyse never connects, so it takes no server options.
        assert!(Cli::try_parse_from(["noughts", "analyse", "--server", "ws://h:1", "X"]).is_err());
        let help = Cli::command()
            .find_subcommand_mut("analyse")
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(
            !help.contains("--server") && !help.contains("--name"),
            "{help}"
        );
    }
}
