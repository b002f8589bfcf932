//! How a person's name is shown everywhere: an account's name is its username, shown as it is;
//! a guest's name is followed by a mark, so that a guest never passes for the account of the
//! same name; a bot account's is preceded by `BOT`, as lichess shows its bots.

/// The mark after a guest's name.
pub const GUEST_MARK: &str = " (guest)";

/// The mark before a bot account's name.
pub const BOT_MARK: &str = "BOT ";

/// `name` as shown: marked when it is a guest's or a bot's.
pub fn shown(name: &str, guest: bool, bot: bool) -> String {
    match (guest, bot) {
        (true, _) => format!("{name}{GUEST_MARK}"),
        (false, true) => format!("{BOT_MARK}{name}"),
        (false, false) => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::widgets::person;

    #[test]
    fn a_guest_and_a_bot_are_marked_and_the_mark_survives_a_cut() {
        assert_eq!(shown("ada", false, false), "ada");
        assert_eq!(shown("ada", true, false), "ada (guest)");
        assert_eq!(shown("tinker", false, true), "BOT tinker");
        assert_eq!(person("tinker", false, true, 20), "BOT tinker");
        assert_eq!(
            person("a-very-long-bot-name", false, true, 10),
            "BOT a-ver…"
        );
    }
}
