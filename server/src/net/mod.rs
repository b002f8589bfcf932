//! The network's edge: accepted sockets (TCP, or the proxy's Unix socket), the client's address
//! behind a trusted proxy, TLS, the WebSocket handshake and the plain HTTP pages beside it, and
//! the sending half of every connection.

pub(crate) mod http;
pub(crate) mod network;
pub(crate) mod outbound;
pub(crate) mod proxy;
pub(crate) mod shared_socket;
pub(crate) mod socket;
pub(crate) mod tls;
pub(crate) mod upgrade;
