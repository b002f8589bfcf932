//! The operator's knobs for accounts, and for what one address or player may pile up.

use std::time::Duration;

/// How accounts behave, and how much one address or player may pile up (registrations,
/// accounts, sessions, reports).
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
    /// `register` requests one address may make in an hour (a taken name counts too); more get
    /// `rate_limited`.
    pub registrations_per_hour: u32,
    /// Accounts one address may make in a day; more get `rate_limited`.
    pub accounts_per_day: u32,
    /// Sessions (signed-in devices) one account may hold; signing in past it ends the least
    /// recently used.
    pub sessions_per_account: usize,
    /// Reports one player may send in an hour.
    pub reports_per_hour: u32,
    /// Reports one address may send in an hour, whichever players send them (so fresh guests
    /// share their address's quota).
    pub address_reports_per_hour: u32,
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
            registrations_per_hour: 5,
            accounts_per_day: 20,
            sessions_per_account: 20,
            reports_per_hour: 10,
            address_reports_per_hour: 20,
        }
    }
}
