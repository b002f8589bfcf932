//! The command line: `noughts [play]`, `watch`, `bot`, `analyse`.

use clap::{Args, Parser, Subcommand};
use noughts_protocol::{Level, Variant};

/// Noughts and crosses over the network: play people or the AI, watch the war games.
#[derive(Debug, Parser)]
#[command(name = "noughts", version)]
pub struct Cli {
    /// The server to connect to (ws://host:port). Without it, a server starts inside this process.
    #[arg(long, env = "NOUGHTS_SERVER", global = true)]
    pub server: Option<String>,
    /// Your display name (defaults to your user name).
    #[arg(long, env = "NOUGHTS_NAME", global = true)]
    pub name: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
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
    /// Step through a game move by move: one the server holds, or a list of cells (offline).
    Replay(ReplayArgs),
}

/// `noughts replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The id of a game the server still holds (live, or finished in the last few minutes).
    #[arg(required_unless_present = "moves", conflicts_with = "moves")]
    pub game: Option<u64>,
    /// Replay these cells instead, in the order played, without a server: `4,0,8,2`.
    #[arg(long, value_delimiter = ',', value_name = "CELLS")]
    pub moves: Option<Vec<usize>>,
    /// The variant of `--moves`: classic, four, cube or qubic.
    #[arg(long, default_value = "classic")]
    pub variant: Variant,
    /// The pause between moves, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS")]
    pub delay_ms: u64,
}

/// `noughts watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The id of the game to watch.
    #[arg(required_unless_present = "war", conflicts_with = "war")]
    pub game: Option<u64>,
    /// Watch a war game (AI against AI) of this variant: classic, four, cube or qubic.
    #[arg(long, value_name = "VARIANT")]
    pub war: Option<Variant>,
    /// Print positions as text lines instead of opening the screen; exit when the game ends.
    #[arg(long)]
    pub plain: bool,
}

/// `noughts bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// How strongly to play: easy, medium, hard or perfect.
    #[arg(long, default_value = "perfect")]
    pub level: Level,
    /// Which game to seek: classic, four, cube or qubic.
    #[arg(long, default_value = "classic")]
    pub variant: Variant,
    /// How many games to play before leaving.
    #[arg(long, default_value_t = 1)]
    pub games: u32,
    /// The least time to take over each move, in milliseconds.
    #[arg(long, default_value_t = 300, value_name = "MS")]
    pub think_ms: u64,
}

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
        assert_eq!(cli.server.as_deref(), Some("ws://h:1"));
        assert!(matches!(
            cli.command,
            Some(Command::Bot(BotArgs {
                level: Level::Easy,
                games: 3,
                ..
            }))
        ));
        assert!(Cli::try_parse_from(["noughts", "watch"]).is_err());
        assert!(Cli::try_parse_from(["noughts", "analyse", "--variant", "hex", "X"]).is_err());
    }
}
