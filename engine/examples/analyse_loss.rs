use noughts_engine::book_build::Builder;
use noughts_engine::threats::ThreatSearch;
use noughts_engine::*;
use std::time::Instant;
fn main() {
    let moves: Vec<usize> = std::env::args()
        .nth(1)
        .unwrap()
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let cap: u64 = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(20000);
    let from: usize = std::env::args()
        .nth(3)
        .map(|s| s.parse().unwrap())
        .unwrap_or(4);
    let mut board = Board::new(Variant::Qubic);
    for (ply, &m) in moves.iter().enumerate() {
        board = board.play(m).unwrap();
        let p = ply + 1;
        if p < from || board.is_over() {
            continue;
        }
        let (x, o) = (board.mask(Mark::X), board.mask(Mark::O));
        let t = Instant::now();
        let mut b = Builder::from_position(x, o);
        let mut n = 0;
        while n < cap {
            b.run(4);
            n += 4;
            let pr = b.progress();
            if pr.root_proof == 0 || pr.root_disproof == 0 {
                break;
            }
        }
        let mut ts = ThreatSearch::new(Variant::Qubic, 200_000);
        let o_threat_win = if p % 2 == 1 {
            ts.find_win(o, x, 12)
        } else {
            None
        };
        println!(
            "after ply {p} (move {m} by {}): X proven win {} in {} exp ({:.0} ms); O to move wins by threats: {:?}",
            if p % 2 == 1 { "X" } else { "O" },
            b.solved(),
            b.expansions(),
            t.elapsed().as_secs_f64() * 1e3,
            o_threat_win
        );
    }
}
