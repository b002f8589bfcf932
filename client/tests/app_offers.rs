//! Offers in the app: draws and takebacks offered, answered and shown, in the first person for
//! the one who made them, withdrawn with x, and the claim keys while the opponent is here.

mod common;

use std::time::Instant;

use common::*;
use noughts_client::app::Effect;
use noughts_protocol::{ClientMessage, GameId, Mark, ServerMessage, Variant};
use ratatui::crossterm::event::KeyCode;

#[test]
fn draws_and_takebacks_are_offered_answered_and_shown() {
    let mut app = welcomed(Instant::now());
    frame(
        &mut app,
        ServerMessage::GameState(Box::new(state(Variant::Classic, "X...O....", &[0, 4]))),
    );
    let game = GameId(42);
    assert_eq!(
        key(&mut app, KeyCode::Char('d')),
        vec![Effect::Send(ClientMessage::OfferDraw { game })]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('u')),
        vec![Effect::Send(ClientMessage::Takeback { game })]
    );
    assert_eq!(
        key(&mut app, KeyCode::Char('a')),
        vec![Effect::Send(ClientMessage::Abort { game })]
    );
    frame(
        &mut app,
        ServerMessage::Offered {
            game,
            seq: 50,
            by: Mark::O,
            offer: noughts_protocol::OfferKind::Draw,
        },
    );
    let screen = render(&app);
    assert!(screen.contains("bob offers a draw"), "{screen}");
    assert!(screen.contains("d accept · n decline"), "{screen}");
    assert_eq!(
        key(&mut app, KeyCode::Char('n')),
        vec![Effect::Send(ClientMessage::Decline { game })]
    );
    frame(
        &mut app,
        ServerMessage::TakenBack {
            game,
            seq: 51,
            by: Some(Mark::O),
            board: "X........".into(),
            moves: vec![0],
            to_move: Mark::O,
            clocks: None,
        },
    );
    let view = app.game.as_ref().unwrap();
    assert_eq!((view.state.moves.as_slice(), view.offer), (&[0][..], None));
    // An accepted takeback is said, in the first person for the one who asked.
    let screen = render(&app);
    assert!(screen.contains("bob took back their move"), "{screen}");
    // Our own request reads in the first person and x withdraws it; a decline is said.
    frame(
        &mut app,
        ServerMessage::Offered {
            game,
            seq: 52,
            by: Mark::X,
            offer: noughts_protocol::OfferKind::Takeback,
        },
    );
    let screen = render(&app);
    assert!(screen.contains("You asked to take back"), "{screen}");
    assert!(screen.contains("x cancel it"), "{screen}");
    assert_eq!(
        key(&mut app, KeyCode::Char('x')),
        vec![Effect::Send(ClientMessage::CancelOffer { game })]
    );
    frame(
        &mut app,
        ServerMessage::Declined {
            game,
            seq: 53,
            by: Mark::X,
            offer: noughts_protocol::OfferKind::Takeback,
        },
    );
    let screen = render(&app);
    assert!(screen.contains("bob declined your takeback"), "{screen}");
    // With the opponent here, there is nothing to claim.
    assert!(key(&mut app, KeyCode::Char('w')).is_empty());
    let screen = render(&app);
    assert!(screen.contains("nothing to claim"), "{screen}");
}
