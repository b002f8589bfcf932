//! The client's address behind a proxy. A connection's address is its TCP peer's, unless that
//! peer is a proxy the operator trusts (`--trusted-proxy`): then it is the address the proxy
//! gives, from the PROXY protocol v2 header the proxy sends before anything else (read here,
//! before TLS and the HTTP request), or from the request's `X-Forwarded-For` or `Forwarded`
//! header. Nothing an untrusted peer sends is read as an address.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use ppp::v2;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::timeout;

/// The PROXY protocol v2 header's first twelve bytes.
const SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";
/// The fixed part of a v2 header: the signature, version and command, family, and length.
const FIXED: usize = 16;
/// The longest v2 header read past its fixed part: addresses (216 bytes at most, for Unix
/// sockets) and whatever TLVs a proxy adds (an id, TLS details); a longer one is refused.
const MAX_REST: usize = 2048;

/// A network of addresses, as `ADDRESS/BITS` (or a lone address, all its bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    /// The network's address, its host bits cleared.
    net: IpAddr,
    /// How many leading bits name the network.
    bits: u8,
}

impl Cidr {
    /// Whether `ip` is in this network (an IPv4-mapped IPv6 address counts as its IPv4 address).
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.net, canonical(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                mask_v4(u32::from(ip), self.bits) == u32::from(net)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                mask_v6(u128::from(ip), self.bits) == u128::from(net)
            }
            _ => false,
        }
    }
}

fn mask_v4(ip: u32, bits: u8) -> u32 {
    if bits == 0 {
        0
    } else {
        ip & (u32::MAX << (32 - u32::from(bits)))
    }
}

fn mask_v6(ip: u128, bits: u8) -> u128 {
    if bits == 0 {
        0
    } else {
        ip & (u128::MAX << (128 - u32::from(bits)))
    }
}

/// An IPv4-mapped IPv6 address as the IPv4 address it carries; any other as it is.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// Why a network could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an address or a network (ADDRESS/BITS), such as 10.0.0.0/8 or ::1")]
pub struct BadCidr(String);

impl FromStr for Cidr {
    type Err = BadCidr;

    fn from_str(text: &str) -> Result<Cidr, BadCidr> {
        let bad = || BadCidr(text.to_owned());
        let (address, bits) = match text.trim().split_once('/') {
            Some((address, bits)) => (address, Some(bits)),
            None => (text.trim(), None),
        };
        let ip = canonical(address.parse::<IpAddr>().map_err(|_| bad())?);
        let most = if ip.is_ipv4() { 32 } else { 128 };
        let bits = match bits {
            Some(bits) if bits.bytes().all(|b| b.is_ascii_digit()) && !bits.is_empty() => {
                bits.parse::<u8>().map_err(|_| bad())?
            }
            Some(_) => return Err(bad()),
            None => most,
        };
        if bits > most {
            return Err(bad());
        }
        let net = match ip {
            IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(mask_v4(u32::from(v4), bits))),
            IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(mask_v6(u128::from(v6), bits))),
        };
        Ok(Cidr { net, bits })
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.net, self.bits)
    }
}

/// Where a trusted proxy gives the client's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientAddress {
    /// The right-most address of `X-Forwarded-For` that is not itself a trusted proxy.
    #[default]
    XForwardedFor,
    /// The same, from the `for=` parameters of `Forwarded` (RFC 7239).
    Forwarded,
    /// The PROXY protocol v2 header, before any other byte; a trusted peer that sends none (or
    /// a malformed one) is disconnected.
    ProxyProtocol,
}

impl FromStr for ClientAddress {
    type Err = String;

    fn from_str(text: &str) -> Result<ClientAddress, String> {
        match text.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ClientAddress::XForwardedFor),
            "forwarded" => Ok(ClientAddress::Forwarded),
            "proxy-protocol" => Ok(ClientAddress::ProxyProtocol),
            _ => Err(format!(
                "{text:?}: expected x-forwarded-for, forwarded or proxy-protocol"
            )),
        }
    }
}

/// The proxies whose word on a client's address is taken, and where they give it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Proxies {
    /// The proxies' networks; empty (the default), no peer is a proxy.
    pub trusted: Vec<Cidr>,
    /// Where they give the client's address.
    pub client_address: ClientAddress,
}

impl Proxies {
    /// Whether `ip` is a trusted proxy.
    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        self.trusted.iter().any(|net| net.contains(ip))
    }

    /// The header to read the client's address from, for a connection from `peer`: none unless
    /// the peer is trusted and the address comes in a header.
    pub(crate) fn header_for(&self, peer: IpAddr) -> Option<Header<'_>> {
        if !self.trusts(peer) {
            return None;
        }
        let name = match self.client_address {
            ClientAddress::XForwardedFor => "x-forwarded-for",
            ClientAddress::Forwarded => "forwarded",
            ClientAddress::ProxyProtocol => return None,
        };
        Some(Header {
            name,
            proxies: self,
        })
    }

    /// Whether a connection from `peer` starts with a PROXY protocol header.
    pub(crate) fn expects_proxy_header(&self, peer: IpAddr) -> bool {
        self.client_address == ClientAddress::ProxyProtocol && self.trusts(peer)
    }
}

/// The request header that names a connection's client, and whom to skip in it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header<'a> {
    /// Its name, lowercase.
    pub name: &'static str,
    /// The trusted proxies, skipped from the right.
    proxies: &'a Proxies,
}

impl Header<'_> {
    /// The client's address from the values of every line of this header, in order, for a
    /// request that came from the trusted proxy `peer`: the right-most address that is not a
    /// trusted proxy. An element that is not an address (`unknown`, an obfuscated name) stops
    /// the walk at the last trusted hop, which is then the address; with no header, `peer`.
    pub(crate) fn client<'v>(
        &self,
        values: impl IntoIterator<Item = &'v str>,
        peer: IpAddr,
    ) -> IpAddr {
        let mut hops: Vec<&str> = Vec::new();
        for value in values {
            for element in value.split(',') {
                let hop = match self.name {
                    "forwarded" => element
                        .split(';')
                        .filter_map(|pair| pair.split_once('='))
                        .find(|(key, _)| key.trim().eq_ignore_ascii_case("for"))
                        .map_or("", |(_, value)| value),
                    _ => element,
                };
                hops.push(hop);
            }
        }
        let mut nearest = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = hop_address(hop) else {
                return nearest;
            };
            if !self.proxies.trusts(ip) {
                return canonical(ip);
            }
            nearest = canonical(ip);
        }
        nearest
    }
}

/// The address in one hop of a forwarding header: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`,
/// `[2001:db8::1]` or `[2001:db8::1]:4711`, each perhaps in double quotes.
fn hop_address(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    let hop = hop
        .strip_prefix('"')
        .and_then(|h| h.strip_suffix('"'))
        .unwrap_or(hop)
        .trim();
    if let Some(rest) = hop.strip_prefix('[') {
        let (inside, _) = rest.split_once(']')?;
        return inside.parse::<Ipv6Addr>().ok().map(IpAddr::V6);
    }
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip);
    }
    hop.parse::<SocketAddr>().ok().map(|addr| addr.ip())
}

/// Why a PROXY protocol header was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadHeader {
    #[error("no PROXY protocol v2 header")]
    Missing,
    #[error("the PROXY protocol header did not come in time")]
    Timeout,
    #[error("the connection closed before its PROXY protocol header was whole")]
    Closed,
    #[error("the PROXY protocol header is longer than {MAX_REST} bytes")]
    TooLong,
    #[error("malformed PROXY protocol v2 header: {0}")]
    Malformed(String),
}

/// Reads the PROXY protocol v2 header at the start of `stream`, within `limit`, and not one byte
/// more. Returns the client's address for a proxied connection, or `None` for one the proxy
/// made itself (`LOCAL`, as for its health checks, or an address family that is not IP), whose
/// address is the peer's.
pub(crate) async fn read_header<S: AsyncRead + Unpin>(
    stream: &mut S,
    limit: Duration,
) -> Result<Option<SocketAddr>, BadHeader> {
    let read = async {
        let mut header = vec![0u8; FIXED];
        stream
            .read_exact(&mut header)
            .await
            .map_err(|_| BadHeader::Closed)?;
        if &header[..SIGNATURE.len()] != SIGNATURE {
            return Err(BadHeader::Missing);
        }
        let rest = usize::from(u16::from_be_bytes([header[14], header[15]]));
        if rest > MAX_REST {
            return Err(BadHeader::TooLong);
        }
        header.resize(FIXED + rest, 0);
        stream
            .read_exact(&mut header[FIXED..])
            .await
            .map_err(|_| BadHeader::Closed)?;
        parse(&header)
    };
    timeout(limit, read).await.map_err(|_| BadHeader::Timeout)?
}

/// A whole v2 header's client address; see [`read_header`].
fn parse(header: &[u8]) -> Result<Option<SocketAddr>, BadHeader> {
    let parsed =
        v2::Header::try_from(header).map_err(|err| BadHeader::Malformed(err.to_string()))?;
    if parsed.command == v2::Command::Local {
        return Ok(None);
    }
    Ok(match parsed.addresses {
        v2::Addresses::IPv4(v4) => Some(SocketAddr::new(
            IpAddr::V4(v4.source_address),
            v4.source_port,
        )),
        v2::Addresses::IPv6(v6) => Some(SocketAddr::new(
            canonical(IpAddr::V6(v6.source_address)),
            v6.source_port,
        )),
        v2::Addresses::Unspecified | v2::Addresses::Unix(_) => None,
    })
}

mod door;

pub(crate) use door::{Door, MAX_SOCKET_PATH};
pub use door::{DoorError, ProxySocket};

#[cfg(test)]
mod tests;
