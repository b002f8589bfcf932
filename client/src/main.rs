//! `noughts`: the terminal client.

fn main() {}
