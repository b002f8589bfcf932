//! The mouse in the terminal client: what a click or a turn of the wheel does on each screen
//! (a tab chosen, a row selected then opened, a mark placed on the board, a replay stepped).

use ratatui::crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use crate::app::{App, Effect, Screen};
use crate::screen::board::Geometry;
use crate::screen::tab::Tab;
use crate::screen::{game, lobby};

impl App {
    /// What a click or a turn of the wheel does on the screen that is up.
    pub(crate) fn on_mouse(&mut self, mouse: MouseEvent, effects: &mut Vec<Effect>) {
        if self.modal.is_some() || self.help {
            return;
        }
        let area = ratatui::layout::Rect::new(0, 0, self.size.0, self.size.1);
        if self.screen == Screen::Arena {
            match mouse.kind {
                MouseEventKind::ScrollDown => self.on_key(KeyEvent::from(KeyCode::Down), effects),
                MouseEventKind::ScrollUp => self.on_key(KeyEvent::from(KeyCode::Up), effects),
                _ => {}
            }
            return;
        }
        if self.screen == Screen::Replay {
            match mouse.kind {
                MouseEventKind::ScrollDown => self.on_key(KeyEvent::from(KeyCode::Right), effects),
                MouseEventKind::ScrollUp => self.on_key(KeyEvent::from(KeyCode::Left), effects),
                _ => {}
            }
            return;
        }
        if self.screen == Screen::Lobby
            && mouse.kind == MouseEventKind::Down(MouseButton::Left)
            && let Some(tab) = lobby::tab_at(area, mouse.column, mouse.row)
        {
            if tab != self.tab {
                self.show_tab(tab, effects);
            }
            return;
        }
        if self.screen == Screen::Lobby && self.tab != Tab::Games {
            match mouse.kind {
                MouseEventKind::ScrollDown => self.on_key(KeyEvent::from(KeyCode::Down), effects),
                MouseEventKind::ScrollUp => self.on_key(KeyEvent::from(KeyCode::Up), effects),
                MouseEventKind::Down(MouseButton::Left) => {
                    // As in the games list: a click selects a row, a second click opens it.
                    let Some(row) =
                        lobby::tab_row_at(&self.lobby_view(), area, mouse.column, mouse.row)
                    else {
                        return;
                    };
                    let selected = match self.tab {
                        Tab::Leaderboard => &mut self.leaderboard.selected,
                        Tab::Browse => &mut self.browse.selected,
                        _ => &mut self.history.selected,
                    };
                    if *selected == row {
                        self.on_key(KeyEvent::from(KeyCode::Enter), effects);
                    } else {
                        *selected = row;
                    }
                }
                _ => {}
            }
            return;
        }
        if self.screen == Screen::Lobby {
            match mouse.kind {
                MouseEventKind::ScrollDown => self.on_key(KeyEvent::from(KeyCode::Down), effects),
                MouseEventKind::ScrollUp => self.on_key(KeyEvent::from(KeyCode::Up), effects),
                MouseEventKind::Down(MouseButton::Left) => {
                    // A click selects a row; a click on the selected row opens it.
                    if let Some(entry) =
                        lobby::entry_at(&self.lobby_view(), area, mouse.column, mouse.row)
                    {
                        if entry == self.lobby.selected {
                            self.on_key(KeyEvent::from(KeyCode::Enter), effects);
                        } else {
                            self.lobby.selected = entry;
                        }
                    }
                }
                _ => {}
            }
            return;
        }
        if mouse.kind != MouseEventKind::Down(MouseButton::Left) {
            return;
        }
        let Some(game) = self.game.as_mut() else {
            return;
        };
        let geometry = Geometry::new(game.state.variant, game::board_area(area));
        if let Some(cell) = geometry.cell_at(mouse.column, mouse.row) {
            game.cursor = cell;
            self.place(cell, effects);
        }
    }
}
