//! The registry's indexes and counts, each checked on its own.

use noughts_protocol::{ClockSpec, PlayerId, Variant};

use super::counts::Counts;
use super::*;
use crate::net::network::Network;
use crate::session::{OpenSeek, SeekTerms};

fn terms(variant: Variant, clock: Option<ClockSpec>, rated: bool) -> SeekTerms {
    SeekTerms {
        variant,
        clock,
        rated,
        bots: false,
        bot: false,
    }
}

fn open(registry: &Registry, key: SeekTerms) -> OpenSeek {
    OpenSeek {
        id: registry.seeks.next_id().unwrap(),
        key,
    }
}

#[test]
fn seeks_pair_the_oldest_matching_seeker() {
    let registry = Registry::default();
    let [a, b, c] = ["a", "b", "c"].map(|name| registry.new_session(name).unwrap().0);
    let classic = terms(Variant::Classic, None, false);
    let timed = terms(
        Variant::Classic,
        Some(ClockSpec {
            initial_ms: 60_000,
            increment_ms: 0,
        }),
        false,
    );
    let a_seek = open(&registry, classic);
    assert!(a.start_seek(a_seek, None));
    let mut listed = false;
    assert!(
        registry
            .seeks
            .pair_or_wait(&a, a_seek, true, &|_| false, || listed = true)
            .is_none()
    );
    assert!(listed, "a waiting seek is listed");
    let b_seek = open(&registry, timed);
    assert!(b.start_seek(b_seek, None));
    assert!(
        registry
            .seeks
            .pair_or_wait(&b, b_seek, true, &|_| false, || ())
            .is_none(),
        "a different clock does not match"
    );
    let c_seek = open(&registry, classic);
    assert!(c.start_seek(c_seek, None));
    let met = registry
        .seeks
        .pair_or_wait(&c, c_seek, true, &|_| false, || panic!("c does not wait"))
        .expect("c meets a");
    assert_eq!((met.seek, met.seeker.player), (a_seek.id, a.player));
    assert_eq!(a.seek(), None, "a's seek is used up");
    // Anyone but b may take b's seek, once.
    assert_eq!(
        registry
            .seeks
            .accept(b_seek.id, b.player, &|_| false)
            .unwrap_err(),
        AcceptSeekError::OwnSeek
    );
    let (key, seeker) = registry
        .seeks
        .accept(b_seek.id, c.player, &|_| false)
        .expect("c takes it");
    assert_eq!((key, seeker.player), (timed, b.player));
    assert_eq!(b.seek(), None);
    assert_eq!(
        registry
            .seeks
            .accept(b_seek.id, a.player, &|_| false)
            .unwrap_err(),
        AcceptSeekError::NoSuchSeek
    );
}

#[test]
fn seeks_of_one_speed_pair_on_the_waiting_seeks_terms() {
    let registry = Registry::default();
    let [a, b, c, d, e, f] =
        ["a", "b", "c", "d", "e", "f"].map(|name| registry.new_session(name).unwrap().0);
    let clock = |minutes: u64, increment: u64| {
        Some(ClockSpec {
            initial_ms: minutes * 60_000,
            increment_ms: increment * 1_000,
        })
    };
    let blitz_3_2 = terms(Variant::Classic, clock(3, 2), false);
    let blitz_5_0 = terms(Variant::Classic, clock(5, 0), false);
    let bullet_1_0 = terms(Variant::Classic, clock(1, 0), false);
    let blitz_3_0 = terms(Variant::Classic, clock(3, 0), false);
    let rated_3_2 = terms(Variant::Classic, clock(3, 2), true);
    // Each seeker opens a seek and offers it; the handler ends the newcomer's own seek.
    let seek = |who: &Arc<Session>, key| {
        let seek = open(&registry, key);
        assert!(who.start_seek(seek, None));
        let paired = registry
            .seeks
            .pair_or_wait(who, seek, true, &|_| false, || ());
        if paired.is_some() {
            who.end_seek(seek.id);
        }
        paired.map(|met| (met.seeker.player, met.terms))
    };
    assert_eq!(seek(&a, blitz_3_2), None);
    assert_eq!(
        seek(&b, blitz_5_0),
        Some((a.player, blitz_3_2)),
        "5+0 meets 3+2, both blitz, on the waiting seek's clock"
    );
    assert_eq!(seek(&c, bullet_1_0), None);
    assert_eq!(seek(&d, blitz_3_0), None, "blitz does not meet bullet");
    assert_eq!(seek(&e, blitz_3_2), Some((d.player, blitz_3_0)));
    assert_eq!(seek(&f, rated_3_2), None, "rated and casual stay apart");
}

#[test]
fn a_withdrawn_seek_matches_nobody() {
    let registry = Registry::default();
    let [a, b] = ["a", "b"].map(|name| registry.new_session(name).unwrap().0);
    let key = terms(Variant::Four, None, false);
    let a_seek = open(&registry, key);
    assert!(a.start_seek(a_seek, None));
    assert!(
        registry
            .seeks
            .pair_or_wait(&a, a_seek, true, &|_| false, || ())
            .is_none()
    );
    assert!(a.end_seek(a_seek.id));
    let b_seek = open(&registry, key);
    assert!(b.start_seek(b_seek, None));
    assert!(
        registry
            .seeks
            .pair_or_wait(&b, b_seek, true, &|_| false, || ())
            .is_none(),
        "b waits rather than meet a ghost"
    );
}

#[test]
fn rooms_are_taken_once_and_never_by_their_host() {
    let registry = Registry::default();
    let [host, guest, late] = ["h", "g", "l"].map(|name| registry.new_session(name).unwrap().0);
    let room = registry
        .rooms
        .open(host.clone(), Variant::Cube, None, true, false, None);
    assert_eq!(
        registry
            .rooms
            .take(&room.code, host.player, &|_| false)
            .unwrap_err(),
        JoinRoomError::OwnRoom
    );
    assert!(
        registry.rooms.close(&room.code, guest.player).is_none(),
        "only the host closes it"
    );
    assert_eq!(
        registry
            .rooms
            .take(&room.code, guest.player, &|_| false)
            .unwrap()
            .code,
        room.code
    );
    assert_eq!(
        registry
            .rooms
            .take(&room.code, late.player, &|_| false)
            .unwrap_err(),
        JoinRoomError::NoSuchRoom
    );
}

#[test]
fn tokens_are_long_and_random_and_sessions_are_found_by_player() {
    let registry = Registry::default();
    let (a, a_token) = registry.new_session("a").unwrap();
    let (b, b_token) = registry.new_session("b").unwrap();
    assert_eq!(a_token.len(), 32);
    assert!(a_token.chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a_token, b_token);
    assert_ne!(a.player, b.player);
    assert_eq!(registry.session(a.player).unwrap().player, a.player);
    assert!(registry.session(PlayerId(99)).is_none());
}

#[test]
fn places_are_capped_and_given_back_on_drop() {
    let counts = Arc::new(Counts::default());
    let home = Network::of("192.0.2.1".parse().unwrap());
    let away = Network::of("198.51.100.1".parse().unwrap());
    let first = counts.take(home, 2).expect("one");
    let second = counts.take(home, 2).expect("two");
    assert!(counts.take(home, 2).is_none(), "a third is over the cap");
    let other = counts
        .take(away, 2)
        .expect("another network has its own count");
    drop(first);
    assert_eq!(counts.held(home), 1);
    let third = counts.take(home, 2).expect("a place came back");
    drop((second, third, other));
    assert_eq!(counts.networks(), 0, "empty entries are removed");
    assert!(
        counts.take(home, 0).is_none(),
        "a cap of zero admits nobody"
    );
    assert_eq!(counts.networks(), 0);
}

#[test]
fn a_bot_meets_only_people_who_chose_bots_and_other_bots() {
    let registry = Registry::default();
    let [person, bot, fan, other_bot] =
        ["person", "bot", "fan", "other"].map(|name| registry.new_session(name).unwrap().0);
    let people_only = terms(Variant::Four, None, false);
    let welcome = SeekTerms {
        bots: true,
        ..people_only
    };
    let a_bot = SeekTerms {
        bot: true,
        ..people_only
    };
    let seek = |session: &Arc<Session>, key: SeekTerms| {
        let open = open(&registry, key);
        assert!(session.start_seek(open, None));
        let met = registry
            .seeks
            .pair_or_wait(session, open, true, &|_| false, || ());
        if met.is_some() {
            // Paired: the seeker's own seek is over too (as the handler ends it).
            session.end_seek(open.id);
        }
        met.map(|waiting| waiting.seeker.player)
    };
    assert_eq!(seek(&person, people_only), None);
    assert_eq!(seek(&bot, a_bot), None, "the bot passes the person over");
    assert_eq!(
        seek(&fan, welcome),
        Some(person.player),
        "people meet the oldest first"
    );
    assert_eq!(seek(&fan, welcome), Some(bot.player), "then the bot");
    assert_eq!(seek(&bot, a_bot), None);
    assert_eq!(seek(&other_bot, a_bot), Some(bot.player), "bots meet bots");
}
