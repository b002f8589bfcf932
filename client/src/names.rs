//! How a person's name is shown everywhere: an account's name is its username, shown as it is;
//! a guest's name is followed by a mark, so that a guest never passes for the account of the
//! same name.

/// The mark after a guest's name.
pub const GUEST_MARK: &str = " (guest)";

/// `name` as shown: marked when it is a guest's.
pub fn shown(name: &str, guest: bool) -> String {
    if guest {
        format!("{name}{GUEST_MARK}")
    } else {
        name.to_owned()
    }
}
