//! The operator's knobs for accounts.

use std::time::Duration;

/// How accounts behave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountConfig {
    /// A TLS-terminating proxy stands in front of the server, so a plain connection is encrypted
    /// up to the proxy and may carry passwords (`--tls-proxy`). Without it, and without
    /// `--tls-cert`, only connections from loopback may.
    pub tls_proxy: bool,
    /// How many passwords may be hashed or checked at once; more wait their turn, so a flood of
    /// sign-ins cannot take every core.
    pub concurrent_hashes: usize,
    /// How long a closed account's username stays reserved before anyone may register it.
    pub closed_name_hold: Duration,
    /// Wrong passwords allowed for one account, or from one address, before each further try
    /// must wait.
    pub free_failures: u32,
    /// The first wait after the free failures; each further failure doubles it.
    pub first_delay: Duration,
    /// The longest wait.
    pub max_delay: Duration,
    /// How long a count of failures is kept after the last one.
    pub forget_after: Duration,
}

impl Default for AccountConfig {
    fn default() -> AccountConfig {
        AccountConfig {
            tls_proxy: false,
            concurrent_hashes: 2,
            closed_name_hold: Duration::from_secs(30 * 24 * 3600),
            free_failures: 10,
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(15 * 60),
            forget_after: Duration::from_secs(24 * 3600),
        }
    }
}
