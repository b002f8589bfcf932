//! The interactive client: one loop that merges terminal input, ticks and the network into
//! [`Event`]s, feeds them to the [`App`], carries out its effects and redraws.

use std::time::{Duration, Instant};

use anyhow::bail;
use futures_util::StreamExt;
use noughts_protocol::{ClientMessage, ServerMessage};
use ratatui::crossterm::event::{Event as TermEvent, EventStream};

use crate::app::{App, Effect, Event};
use crate::net::Link;
use crate::net::NetEvent;
use crate::terminal;

/// How often clocks and countdowns are redrawn.
const TICK: Duration = Duration::from_millis(200);

/// Runs the interactive client until the user quits. Waits for the server's welcome before taking
/// over the terminal, so an unreachable server is a plain error message.
pub async fn run(mut link: Link, mut app: App, initial: Vec<ClientMessage>) -> anyhow::Result<()> {
    loop {
        let Some(event) = link.next().await else {
            bail!("the connection task ended before the server answered");
        };
        if let NetEvent::Closed(reason) = &event {
            bail!("{reason}");
        }
        let welcome = matches!(
            &event,
            NetEvent::Frame(frame) if matches!(frame.message, ServerMessage::Welcome { .. })
        );
        carry_out(app.update(Event::Net(event)), Some(&link));
        if welcome {
            break;
        }
    }
    for message in initial {
        link.send(message);
    }
    let mut terminal = terminal::init()?;
    let result = event_loop(&mut terminal, Some(&mut link), &mut app).await;
    terminal::restore();
    result
}

/// Runs the client with no connection (a replay of a game already fetched) until the user quits.
pub async fn run_offline(mut app: App) -> anyhow::Result<()> {
    let mut terminal = terminal::init()?;
    let result = event_loop(&mut terminal, None, &mut app).await;
    terminal::restore();
    result
}

/// The next event from the connection; never, if there is none.
async fn next_net(link: &mut Option<&mut Link>) -> Option<NetEvent> {
    match link {
        Some(link) => link.next().await,
        None => std::future::pending().await,
    }
}

async fn event_loop(
    terminal: &mut terminal::Tui,
    mut link: Option<&mut Link>,
    app: &mut App,
) -> anyhow::Result<()> {
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    let size = terminal.size()?;
    app.update(Event::Resize(size.width, size.height));
    let mut net_open = true;
    let terminated = terminated();
    tokio::pin!(terminated);
    loop {
        terminal.draw(|frame| frame.render_widget(&*app, frame.area()))?;
        let event = tokio::select! {
            input = input.next() => match input {
                Some(Ok(TermEvent::Key(key))) => Event::Key(key),
                Some(Ok(TermEvent::Mouse(mouse))) => Event::Mouse(mouse),
                Some(Ok(TermEvent::Resize(w, h))) => Event::Resize(w, h),
                Some(Ok(_)) => continue,
                Some(Err(err)) => return Err(err.into()),
                None => return Ok(()),
            },
            net = next_net(&mut link), if net_open => match net {
                Some(net) => Event::Net(net),
                None => {
                    net_open = false;
                    continue;
                }
            },
            _ = tick.tick() => Event::Tick(Instant::now()),
            () = &mut terminated => return Ok(()),
        };
        // The app's clock is what its ticks said; brought up to now before anything else
        // happens, so that what a message starts (a claim's countdown, say) starts when it came.
        if !matches!(event, Event::Tick(_))
            && carry_out(app.update(Event::Tick(Instant::now())), link.as_deref())
        {
            return Ok(());
        }
        if carry_out(app.update(event), link.as_deref()) {
            return Ok(());
        }
    }
}

/// Does what the app asked; true if it asked to quit.
fn carry_out(effects: Vec<Effect>, link: Option<&Link>) -> bool {
    let mut quit = false;
    for effect in effects {
        match effect {
            Effect::Send(message) => {
                if let Some(link) = link {
                    link.send(message);
                }
            }
            Effect::Request(frame) => {
                if let Some(link) = link {
                    link.send_frame(frame);
                }
            }
            Effect::Copy(text) => {
                use std::io::Write as _;
                let mut out = std::io::stdout();
                let _ = out.write_all(osc52(&text).as_bytes());
                let _ = out.flush();
            }
            Effect::Quit => quit = true,
        }
    }
    quit
}

/// The escape sequence that asks the terminal to put `text` on the clipboard (OSC 52); terminals
/// that do not allow it ignore it.
pub fn osc52(text: &str) -> String {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{encoded}\x07")
}

/// Completes on SIGINT or SIGTERM (ctrl-c in raw mode arrives as a key instead).
async fn terminated() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
