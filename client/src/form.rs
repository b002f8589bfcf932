//! The lobby's small forms: quick match, play the AI, create a room. Pure state, no drawing.

use noughts_protocol::{
    ClientMessage, ClockSpec, CreateRoom, Level, PlayAi, Seek, SideChoice, Variant,
};

/// The clock presets offered in the forms, with their labels.
pub const CLOCKS: [(&str, Option<ClockSpec>); 4] = [
    ("no clock", None),
    ("1 min + 1 s", Some(clock(60, 1))),
    ("3 min + 2 s", Some(clock(180, 2))),
    ("10 min + 5 s", Some(clock(600, 5))),
];

const fn clock(initial_s: u64, increment_s: u64) -> ClockSpec {
    ClockSpec {
        initial_ms: initial_s * 1000,
        increment_ms: increment_s * 1000,
    }
}

/// The sides a player may ask for against the AI, with their labels.
pub const SIDES: [(&str, SideChoice); 3] = [
    ("X (moves first)", SideChoice::X),
    ("O", SideChoice::O),
    ("random", SideChoice::Random),
];

/// Which request a form builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    QuickMatch,
    PlayAi,
    CreateRoom,
}

impl FormKind {
    /// The form's title.
    pub fn title(self) -> &'static str {
        match self {
            FormKind::QuickMatch => "Quick match",
            FormKind::PlayAi => "Play the AI",
            FormKind::CreateRoom => "Create a room",
        }
    }
}

/// One row of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Variant,
    Clock,
    Level,
    Side,
    Private,
    Rated,
    /// Whether a quick match may pair with a bot account.
    Bots,
}

impl Field {
    /// The row's label.
    pub fn label(self) -> &'static str {
        match self {
            Field::Variant => "Variant",
            Field::Clock => "Clock",
            Field::Level => "Level",
            Field::Side => "Play as",
            Field::Private => "Listed",
            Field::Rated => "Rated",
            Field::Bots => "Opponents",
        }
    }
}

/// A form being filled in: each field holds an index into its list of choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// What the form asks the server for.
    pub kind: FormKind,
    /// The focused row.
    pub focus: usize,
    /// Index into [`Variant::ALL`].
    pub variant: usize,
    /// Index into [`CLOCKS`].
    pub clock: usize,
    /// Index into [`Level::ALL`].
    pub level: usize,
    /// Index into [`SIDES`].
    pub side: usize,
    /// Whether a room stays out of the lobby list (joined by its code only).
    pub private: bool,
    /// Whether a game between people counts for ratings.
    pub rated: bool,
    /// Whether a quick match may pair with a bot account.
    pub bots: bool,
    /// How the engines' league rates each level, where the server told us: shown beside the
    /// level chosen.
    pub ratings: Vec<LevelRating>,
}

/// How the engines' league rates a level on a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelRating {
    pub variant: Variant,
    pub level: Level,
    pub rating: u32,
    pub deviation: u32,
}

impl Form {
    /// A fresh form with sensible defaults: classic, no clock, the medium AI (as on the page),
    /// playing X.
    pub fn new(kind: FormKind) -> Form {
        Form {
            kind,
            focus: 0,
            variant: 0,
            clock: 0,
            level: Level::ALL
                .iter()
                .position(|&level| level == Level::Medium)
                .unwrap_or(0),
            side: 0,
            private: false,
            rated: false,
            bots: false,
            ratings: Vec::new(),
        }
    }

    /// The league's rating of the level chosen on the variant chosen, in words: "plays like
    /// 1570 ± 116".
    pub fn level_rating(&self) -> Option<String> {
        let (variant, level) = (Variant::ALL[self.variant], Level::ALL[self.level]);
        let rated = self
            .ratings
            .iter()
            .find(|r| r.variant == variant && r.level == level)?;
        Some(format!(
            "plays like {} ± {}",
            rated.rating,
            2 * rated.deviation
        ))
    }

    /// The rows this kind of form shows.
    pub fn fields(&self) -> &'static [Field] {
        match self.kind {
            FormKind::QuickMatch => &[Field::Variant, Field::Clock, Field::Rated, Field::Bots],
            FormKind::PlayAi => &[Field::Variant, Field::Level, Field::Side, Field::Clock],
            FormKind::CreateRoom => &[Field::Variant, Field::Clock, Field::Rated, Field::Private],
        }
    }

    /// Moves the focus up (`-1`) or down (`+1`), wrapping around.
    pub fn move_focus(&mut self, delta: isize) {
        self.focus = step(self.focus, self.fields().len(), delta);
    }

    /// Changes the focused field's value to the previous (`-1`) or next (`+1`) choice.
    pub fn change(&mut self, delta: isize) {
        match self.fields()[self.focus] {
            Field::Variant => self.variant = step(self.variant, Variant::ALL.len(), delta),
            Field::Clock => self.clock = step(self.clock, CLOCKS.len(), delta),
            Field::Level => self.level = step(self.level, Level::ALL.len(), delta),
            Field::Side => self.side = step(self.side, SIDES.len(), delta),
            Field::Private => self.private = !self.private,
            Field::Rated => self.rated = !self.rated,
            Field::Bots => self.bots = !self.bots,
        }
    }

    /// The value of a field, as shown.
    pub fn value(&self, field: Field) -> &'static str {
        match field {
            Field::Variant => Variant::ALL[self.variant].name(),
            Field::Clock => CLOCKS[self.clock].0,
            Field::Level => Level::ALL[self.level].name(),
            Field::Side => SIDES[self.side].0,
            Field::Rated => {
                if self.rated {
                    "rated (counts for ratings)"
                } else {
                    "casual"
                }
            }
            Field::Bots => {
                if self.bots {
                    "people and bots"
                } else {
                    "people only"
                }
            }
            Field::Private => {
                if self.private {
                    "no (private: code only)"
                } else {
                    "yes (public)"
                }
            }
        }
    }

    /// The request the form describes.
    pub fn request(&self) -> ClientMessage {
        let variant = Variant::ALL[self.variant];
        let clock = CLOCKS[self.clock].1;
        match self.kind {
            FormKind::QuickMatch => ClientMessage::Seek(Seek {
                variant,
                clock,
                rated: self.rated,
                bots: self.bots,
            }),
            FormKind::PlayAi => ClientMessage::PlayAi(PlayAi {
                variant,
                level: Level::ALL[self.level],
                side: SIDES[self.side].1,
                clock,
            }),
            FormKind::CreateRoom => ClientMessage::CreateRoom(CreateRoom {
                variant,
                clock,
                private: self.private,
                rated: self.rated,
            }),
        }
    }
}

fn step(value: usize, len: usize, delta: isize) -> usize {
    (value as isize + delta).rem_euclid(len as isize) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_request_it_shows() {
        let mut form = Form::new(FormKind::PlayAi);
        form.change(1); // variant: four
        form.move_focus(1);
        form.change(1); // level: from medium to hard
        form.move_focus(1);
        form.change(-1); // side: random (wraps)
        assert_eq!(
            form.request(),
            ClientMessage::PlayAi(PlayAi {
                variant: Variant::Four,
                level: Level::Hard,
                side: SideChoice::Random,
                clock: None
            })
        );
        form.move_focus(1);
        form.move_focus(1);
        assert_eq!(form.focus, 0, "the focus wraps around");
    }

    #[test]
    fn a_quick_match_may_welcome_bots() {
        let mut form = Form::new(FormKind::QuickMatch);
        let seek = |form: &Form| match form.request() {
            ClientMessage::Seek(seek) => seek.bots,
            other => panic!("{other:?}"),
        };
        assert!(!seek(&form), "people only unless asked");
        form.focus = form
            .fields()
            .iter()
            .position(|&field| field == Field::Bots)
            .unwrap();
        assert_eq!(form.value(Field::Bots), "people only");
        form.change(1);
        assert_eq!(form.value(Field::Bots), "people and bots");
        assert!(seek(&form));
    }
}
