//! `noughts-engine`: the analysis command line.

fn main() {
    eprintln!("noughts-engine: the analysis commands are not built yet");
    std::process::exit(2);
}
