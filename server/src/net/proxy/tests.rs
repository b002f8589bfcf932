//! The proxy module's tests: networks, forwarding headers, and the PROXY protocol header read
//! from good, short, slow and random input.

use std::time::Duration;

use ppp::v2::{Builder, Command, IPv4, IPv6, Protocol, Version};

use super::*;

fn ip(text: &str) -> IpAddr {
    text.parse().unwrap()
}

fn proxies(trusted: &[&str], client_address: ClientAddress) -> Proxies {
    Proxies {
        trusted: trusted.iter().map(|t| t.parse().unwrap()).collect(),
        client_address,
    }
}

#[test]
fn networks_are_read_and_matched() {
    let net: Cidr = "10.1.2.3/8".parse().unwrap();
    assert_eq!(net.to_string(), "10.0.0.0/8");
    assert!(net.contains(ip("10.200.0.1")));
    assert!(net.contains(ip("::ffff:10.0.0.9")));
    assert!(!net.contains(ip("11.0.0.1")));
    let lone: Cidr = "127.0.0.1".parse().unwrap();
    assert!(lone.contains(ip("127.0.0.1")) && !lone.contains(ip("127.0.0.2")));
    let six: Cidr = "2001:db8::/32".parse().unwrap();
    assert!(six.contains(ip("2001:db8:ffff::1")) && !six.contains(ip("2001:db9::1")));
    assert!(!six.contains(ip("10.0.0.1")));
    let all: Cidr = "0.0.0.0/0".parse().unwrap();
    assert!(all.contains(ip("203.0.113.9")));
    for bad in [
        "",
        "10.0.0.0/33",
        "::/129",
        "10.0.0.0/",
        "10.0.0.0/+8",
        "host",
        "10.0.0/8",
    ] {
        assert!(bad.parse::<Cidr>().is_err(), "{bad:?}");
    }
}

#[test]
fn the_right_most_untrusted_hop_of_x_forwarded_for_is_the_client() {
    let p = proxies(&["127.0.0.1", "10.0.0.0/8"], ClientAddress::XForwardedFor);
    let peer = ip("127.0.0.1");
    let header = p.header_for(peer).unwrap();
    assert_eq!(header.name, "x-forwarded-for");
    // The client forged the first entry; the proxies appended the rest.
    let client = header.client(["6.6.6.6, 198.51.100.7", "10.0.0.2"], peer);
    assert_eq!(client, ip("198.51.100.7"));
    assert_eq!(
        header.client(["198.51.100.7:4711"], peer),
        ip("198.51.100.7")
    );
    assert_eq!(
        header.client(["[2001:db8::7]:4711"], peer),
        ip("2001:db8::7")
    );
    assert_eq!(header.client(["2001:db8::7"], peer), ip("2001:db8::7"));
    // No header: the proxy itself; every hop trusted: the left-most.
    assert_eq!(header.client([], peer), peer);
    assert_eq!(header.client(["10.0.0.5, 10.0.0.2"], peer), ip("10.0.0.5"));
    // Not an address: the walk stops at the last trusted hop.
    assert_eq!(
        header.client(["198.51.100.7, unknown, 10.0.0.2"], peer),
        ip("10.0.0.2")
    );
    assert_eq!(header.client(["garbage"], peer), peer);
    // An untrusted peer's header is never read.
    assert!(p.header_for(ip("203.0.113.1")).is_none());
    // Nothing trusted by default.
    assert!(Proxies::default().header_for(peer).is_none());
    assert!(!Proxies::default().expects_proxy_header(peer));
}

#[test]
fn forwarded_is_read_by_its_for_parameters() {
    let p = proxies(&["127.0.0.1"], ClientAddress::Forwarded);
    let peer = ip("127.0.0.1");
    let header = p.header_for(peer).unwrap();
    let value = r#"for=6.6.6.6, for="[2001:db8:cafe::17]:4711";proto=https;by=127.0.0.1"#;
    assert_eq!(header.client([value], peer), ip("2001:db8:cafe::17"));
    assert_eq!(
        header.client(["proto=http;For=192.0.2.60"], peer),
        ip("192.0.2.60")
    );
    assert_eq!(header.client(["for=_hidden"], peer), peer);
    assert!(p.header_for(ip("192.0.2.1")).is_none());
}

#[test]
fn the_proxy_protocol_is_expected_only_from_trusted_peers() {
    let p = proxies(&["127.0.0.1"], ClientAddress::ProxyProtocol);
    assert!(p.expects_proxy_header(ip("127.0.0.1")));
    assert!(!p.expects_proxy_header(ip("127.0.0.2")));
    assert!(p.header_for(ip("127.0.0.1")).is_none(), "no header then");
}

fn v4_header(command: Command) -> Vec<u8> {
    let addresses = IPv4::new([198, 51, 100, 7], [10, 0, 0, 1], 4711, 443);
    Builder::with_addresses(Version::Two | command, Protocol::Stream, addresses)
        .write_tlv(ppp::v2::Type::NoOp, &[0; 3])
        .unwrap()
        .build()
        .unwrap()
}

async fn read(bytes: &[u8]) -> (Result<Option<SocketAddr>, BadHeader>, Vec<u8>) {
    let mut stream = bytes;
    let header = read_header(&mut stream, Duration::from_secs(5)).await;
    (header, stream.to_vec())
}

#[tokio::test]
async fn a_v2_header_gives_the_client_and_leaves_the_bytes_after_it() {
    let mut bytes = v4_header(Command::Proxy);
    bytes.extend_from_slice(b"GET / HTTP/1.1\r\n");
    let (header, rest) = read(&bytes).await;
    assert_eq!(header, Ok(Some("198.51.100.7:4711".parse().unwrap())));
    assert_eq!(rest, b"GET / HTTP/1.1\r\n");
    let six = IPv6::new(
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 7],
        [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1],
        1,
        2,
    );
    let bytes = Builder::with_addresses(Version::Two | Command::Proxy, Protocol::Stream, six)
        .build()
        .unwrap();
    let (header, _) = read(&bytes).await;
    assert_eq!(header, Ok(Some("[2001:db8::7]:1".parse().unwrap())));
    // LOCAL (a health check of the proxy's own): the peer's address stands.
    let (header, _) = read(&v4_header(Command::Local)).await;
    assert_eq!(header, Ok(None));
}

#[tokio::test]
async fn anything_but_a_whole_v2_header_is_refused() {
    let good = v4_header(Command::Proxy);
    let (header, _) = read(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n").await;
    assert_eq!(header, Err(BadHeader::Missing));
    let (header, _) = read(b"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n").await;
    assert_eq!(header, Err(BadHeader::Missing), "version 1 is not read");
    let (header, _) = read(&good[..good.len() - 1]).await;
    assert_eq!(header, Err(BadHeader::Closed));
    let mut long = good[..16].to_vec();
    long[14..16].copy_from_slice(&u16::MAX.to_be_bytes());
    let (header, _) = read(&long).await;
    assert_eq!(header, Err(BadHeader::TooLong));
    let mut version = good.clone();
    version[12] = 0x11;
    assert!(matches!(
        read(&version).await.0,
        Err(BadHeader::Malformed(_))
    ));
    // A proxy that opens and says nothing is cut off at the limit.
    let (mut silent, _keep) = tokio::io::duplex(64);
    let header = read_header(&mut silent, Duration::from_millis(50)).await;
    assert_eq!(header, Err(BadHeader::Timeout));
}

/// A small, seeded generator, so a failure is repeatable.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[tokio::test]
async fn random_and_mutated_headers_never_panic_or_read_past_their_length() {
    let good = v4_header(Command::Proxy);
    let mut rng = Lcg(7);
    for round in 0..20_000 {
        let mut bytes = if round % 2 == 0 {
            good.clone()
        } else {
            let mut bytes = SIGNATURE.to_vec();
            let n = (rng.next() % 64) as usize;
            bytes.extend((0..n).map(|_| rng.next() as u8));
            bytes
        };
        for _ in 0..(rng.next() % 4) {
            let at = (rng.next() as usize) % bytes.len();
            bytes[at] = rng.next() as u8;
        }
        let cut = (rng.next() as usize) % (bytes.len() + 1);
        bytes.truncate(cut.max(bytes.len() / 2));
        bytes.extend_from_slice(b"after");
        let total = bytes.len();
        let (header, rest) = read(&bytes).await;
        if header.is_ok() {
            let declared = usize::from(u16::from_be_bytes([bytes[14], bytes[15]]));
            assert_eq!(total - rest.len(), FIXED + declared, "{bytes:?}");
        }
    }
}
